/**
 * The payer's download, in bytes on the wire as a browser asking for `br, gzip` receives them: the
 * widget bundle, and everything the hosted page pulls in on a first visit (the HTML, then every
 * script, style sheet and image it references, following module imports and CSS references),
 * fetched from the running service. Headers are not counted.
 */
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

/** The weight budget of both figures. */
export const BUDGET_BYTES = 30 * 1024;

/** One measured download. */
export interface Weight {
  /** Bytes on the wire, or undefined with `missing` saying why. */
  wireBytes?: number;
  missing?: string;
  /** What was summed (URL, its bytes on the wire and how it was encoded). */
  parts: Array<{ what: string; wireBytes: number; encoding: string }>;
  notes: string[];
}

interface Download {
  status: number;
  contentType: string;
  encoding: string;
  wireBytes: number;
  /** The body as the browser sees it, decoded. */
  body: Uint8Array;
}

/** A GET as a browser makes it (`Accept-Encoding: br, gzip`), counting the bytes that arrive. */
function download(url: string): Promise<Download> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { 'Accept-Encoding': 'br, gzip' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const raw = Buffer.concat(chunks);
        const encoding = response.headers['content-encoding'] ?? 'identity';
        const body = encoding === 'br' ? brotliDecompressSync(raw) : encoding === 'gzip' ? gunzipSync(raw) : raw;
        resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'] ?? '', encoding, wireBytes: raw.length, body });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** The widget bundle as the service sends it, with the language chunk `languageChunk` (a path) if one is given. */
export async function widgetWeight(serviceUrl: string, languageChunk?: string): Promise<Weight> {
  const parts: Weight['parts'] = [];
  for (const file of ['/widget/crypto-checkout.js', ...(languageChunk ? [languageChunk] : [])]) {
    const got = await download(`${serviceUrl}${file}`);
    if (got.status !== 200) return { missing: `GET ${file} answered ${got.status} (npm run build)`, parts: [], notes: [] };
    parts.push({ what: file, wireBytes: got.wireBytes, encoding: got.encoding });
  }
  return { wireBytes: parts.reduce((sum, p) => sum + p.wireBytes, 0), parts, notes: [] };
}

/** The heaviest first visit of /pay over every language, and the widget with the heaviest language chunk. */
export async function heaviestWeights(serviceUrl: string, paymentId: string, locales: readonly string[]): Promise<{ widget: Weight; hosted: Weight }> {
  let hosted: Weight | undefined;
  let chunk: { path: string; bytes: number } | undefined;
  for (const locale of locales) {
    const weight = await hostedPageWeight(serviceUrl, paymentId, locale);
    if (weight.wireBytes === undefined) return { widget: weight, hosted: weight };
    if (!hosted || weight.wireBytes > hosted.wireBytes!) hosted = { ...weight, notes: [...weight.notes, `the heaviest of ${locales.length} languages: ${locale}`] };
    for (const part of weight.parts) {
      if (part.what.startsWith('/widget/locales/') && (!chunk || part.wireBytes > chunk.bytes)) chunk = { path: part.what, bytes: part.wireBytes };
    }
  }
  return { widget: await widgetWeight(serviceUrl, chunk?.path), hosted: hosted! };
}

const HTML_REFERENCES = [
  /<script\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi,
  /<link\b[^>]*\bhref\s*=\s*["']([^"']+)["'][^>]*>/gi,
  /<img\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi,
  /<(?:img|source)\b[^>]*\bsrcset\s*=\s*["']([^"']+)["']/gi,
];
const LINK_RELS_LOADED = /\brel\s*=\s*["'][^"']*\b(stylesheet|modulepreload|preload|icon|apple-touch-icon|manifest)\b/i;
// Static imports and re-exports, and side-effect imports. Not dynamic imports: the widget imports
// each language's chunk on demand, and the page preloads (so this counts) the one it shows.
const JS_REFERENCES = [/\b(?:import|export)\s*(?:[\w*${}\s,]+?\s*from\s*)?["']([^"']+)["']/g];
const CSS_REFERENCES = [/@import\s+(?:url\()?\s*["']?([^"')\s;]+)/g, /url\(\s*["']?([^"')]+?)["']?\s*\)/g];

function referencesIn(text: string, contentType: string, fromHtml: boolean): string[] {
  const found: string[] = [];
  const collect = (patterns: RegExp[], source: string) => {
    for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]!);
  };
  if (fromHtml) {
    for (const pattern of HTML_REFERENCES) {
      for (const match of text.matchAll(pattern)) {
        if (match[0].startsWith('<link') && !LINK_RELS_LOADED.test(match[0])) continue;
        const value = match[1]!;
        found.push(...(pattern.source.includes('srcset') ? value.split(',').map((s) => s.trim().split(/\s+/)[0]!) : [value]));
      }
    }
    for (const block of text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)) collect(JS_REFERENCES, block[1]!);
    for (const block of text.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)) collect(CSS_REFERENCES, block[1]!);
    for (const attr of text.matchAll(/\bstyle\s*=\s*"([^"]*)"/gi)) collect(CSS_REFERENCES, attr[1]!);
  } else if (contentType.includes('javascript')) {
    collect(JS_REFERENCES, text);
  } else if (contentType.includes('css')) {
    collect(CSS_REFERENCES, text);
  }
  return found.filter((ref) => ref !== '' && !ref.startsWith('data:') && !ref.startsWith('#'));
}

/** Everything a first visit of /pay?id=<id>&lang=<locale> downloads from the service, in bytes on the wire. */
export async function hostedPageWeight(serviceUrl: string, paymentId: string, locale = 'en'): Promise<Weight> {
  return crawlWeight(serviceUrl, `${serviceUrl}/pay?id=${paymentId}&lang=${locale}`, '/pay?id=…');
}

/** The merchant dashboard's budget (CONTRACT.md section 18). */
export const DASHBOARD_BUDGET_BYTES = 60 * 1024;

/** A first load of /dashboard: the page and every file it loads (its script and style sheet). */
export function dashboardWeight(serviceUrl: string): Promise<Weight> {
  return crawlWeight(serviceUrl, `${serviceUrl}/dashboard`, '/dashboard');
}

/** A page and everything it references on its origin, recursively, in bytes on the wire. */
async function crawlWeight(serviceUrl: string, pageUrl: string, label: string): Promise<Weight> {
  const first = await download(pageUrl);
  if (first.status !== 200) return { missing: `GET ${label} answered ${first.status}: the page is not served yet`, parts: [], notes: [] };
  const origin = new URL(serviceUrl).origin;
  const parts: Weight['parts'] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  const queue: Array<{ url: string; got?: Download }> = [{ url: pageUrl, got: first }];
  while (queue.length > 0) {
    const { url, got: given } = queue.shift()!;
    const got = given ?? (await download(url));
    const what = url === pageUrl ? label : url.slice(origin.length);
    if (got.status !== 200) {
      notes.push(`${what} answered ${got.status}`);
      continue;
    }
    parts.push({ what, wireBytes: got.wireBytes, encoding: got.encoding });
    const contentType = got.contentType;
    const isText = /html|javascript|css|svg|json/.test(contentType);
    if (!isText) continue;
    for (const ref of referencesIn(new TextDecoder().decode(got.body), contentType, url === pageUrl)) {
      let resolved: URL;
      try {
        resolved = new URL(ref, url);
      } catch {
        continue; // a bare module specifier would not load in a browser either
      }
      resolved.hash = '';
      if (resolved.origin !== origin) {
        notes.push(`not counted (other origin): ${resolved.href}`);
        continue;
      }
      if (seen.has(resolved.href) || resolved.href === pageUrl) continue;
      seen.add(resolved.href);
      queue.push({ url: resolved.href });
    }
  }
  return { wireBytes: parts.reduce((sum, p) => sum + p.wireBytes, 0), parts, notes };
}
