/**
 * The payer's download: the gzipped widget bundle, and everything the hosted page pulls in on a
 * first visit (the HTML, then every script, style sheet and image it references, following module
 * imports and CSS references), fetched from the running service and gzipped one by one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { DIST_DIR } from '../api/app.ts';

/** The weight budget of both figures. */
export const BUDGET_BYTES = 30 * 1024;

/** One measured download. */
export interface Weight {
  /** Gzipped bytes, or undefined with `missing` saying why. */
  gzipBytes?: number;
  missing?: string;
  /** What was summed (URL or file, and its gzipped size). */
  parts: Array<{ what: string; gzipBytes: number }>;
  notes: string[];
}

function gzipSize(bytes: Uint8Array): number {
  return gzipSync(bytes, { level: 9 }).length;
}

/** The widget bundle as built. */
export function widgetWeight(): Weight {
  const file = path.join(DIST_DIR, 'widget', 'crypto-checkout.js');
  if (!fs.existsSync(file)) return { missing: 'dist/widget/crypto-checkout.js is not built yet (npm run build)', parts: [], notes: [] };
  const gzipBytes = gzipSize(fs.readFileSync(file));
  const built = fs.statSync(file).mtime.toISOString();
  return { gzipBytes, parts: [{ what: 'dist/widget/crypto-checkout.js', gzipBytes }], notes: [`built ${built}`] };
}

const HTML_REFERENCES = [
  /<script\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi,
  /<link\b[^>]*\bhref\s*=\s*["']([^"']+)["'][^>]*>/gi,
  /<img\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi,
  /<(?:img|source)\b[^>]*\bsrcset\s*=\s*["']([^"']+)["']/gi,
];
const LINK_RELS_LOADED = /\brel\s*=\s*["'][^"']*\b(stylesheet|modulepreload|preload|icon|apple-touch-icon|manifest)\b/i;
// Static imports and re-exports, side-effect imports, and literal dynamic imports (counted too:
// a budget should not depend on which branch the page takes).
const JS_REFERENCES = [
  /\b(?:import|export)\s*(?:[\w*${}\s,]+?\s*from\s*)?["']([^"']+)["']/g,
  /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
];
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

/** Everything a first visit of /pay?id=<id> downloads from the service, gzipped. */
export async function hostedPageWeight(serviceUrl: string, paymentId: string): Promise<Weight> {
  const pageUrl = `${serviceUrl}/pay?id=${paymentId}`;
  const first = await fetch(pageUrl);
  if (!first.ok) {
    await first.body?.cancel();
    return { missing: `GET /pay?id=… answered ${first.status}: the hosted page is not served yet`, parts: [], notes: [] };
  }
  const origin = new URL(serviceUrl).origin;
  const parts: Weight['parts'] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  const queue: Array<{ url: string; response?: Response }> = [{ url: pageUrl, response: first }];
  while (queue.length > 0) {
    const { url, response: given } = queue.shift()!;
    const response = given ?? (await fetch(url));
    const bytes = new Uint8Array(await response.arrayBuffer());
    const what = url === pageUrl ? '/pay?id=…' : url.slice(origin.length);
    if (!response.ok) {
      notes.push(`${what} answered ${response.status}`);
      continue;
    }
    parts.push({ what, gzipBytes: gzipSize(bytes) });
    const contentType = response.headers.get('content-type') ?? '';
    const isText = /html|javascript|css|svg|json/.test(contentType);
    if (!isText) continue;
    for (const ref of referencesIn(new TextDecoder().decode(bytes), contentType, url === pageUrl)) {
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
  return { gzipBytes: parts.reduce((sum, p) => sum + p.gzipBytes, 0), parts, notes };
}
