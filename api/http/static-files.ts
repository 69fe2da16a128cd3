/**
 * @module The built widget and payer-page files, sent compressed. The build writes a brotli (`.br`)
 * and a gzip (`.gz`) copy beside each file; a request gets the smallest its `Accept-Encoding`
 * allows, with `Content-Encoding` and `Vary: Accept-Encoding`. A file whose name carries a content
 * hash (`name.1a2b3c4d.js`, as the build names chunks) never changes, so it is cached for a year, `immutable`; a stable name
 * (`crypto-checkout.js`, which merchants' pages link) is revalidated on each use with its ETag, and
 * an unchanged file answers `304` with no body.
 */
import type { Request, RequestHandler, Response } from 'express';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
};
/** A content hash in a file name, as the build writes it for chunks (`[name].[hash].js`). */
const HASHED_NAME = /\.[A-Za-z0-9_-]{8,}\.[a-z]+$/;
const YEAR_SECONDS = 31_536_000;

/** One encoding of a file, with its own ETag. */
interface Variant {
  bytes: Buffer;
  etag: string;
}

/** A file as it is sent: its type, its bytes as they are and, when there are, compressed copies. */
export interface EncodedFile {
  type: string;
  identity: Variant;
  br?: Variant;
  gzip?: Variant;
}

interface Entry extends EncodedFile {
  mtimeMs: number;
}

/** Cache-Control of a file whose name carries its content hash: a year, immutable. */
export const IMMUTABLE = `public, max-age=${YEAR_SECONDS}, immutable`;

/** A variant whose ETag is the file's digest with the encoding's suffix (`-br`, `-gz`). */
function variant(bytes: Buffer, suffix: string, digest: string): Variant {
  return { bytes, etag: `"${digest}${suffix}"` };
}

/** Which encoding to send, from Accept-Encoding (q=0 refuses one). */
export function pickEncoding(header: string | undefined, available: { br: boolean; gzip: boolean }): 'br' | 'gzip' | 'identity' {
  if (!header) return 'identity';
  const accepted = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(name.trim(), q ? Number(q.slice(2)) || 0 : 1);
  }
  const allows = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (available.br && allows('br')) return 'br';
  if (available.gzip && allows('gzip')) return 'gzip';
  return 'identity';
}

/** Serves the files of `dir` (GET and HEAD); anything else falls through. */
export function staticFiles(dir: string, options: { cors?: boolean } = {}): RequestHandler {
  const root = path.resolve(dir);
  const cache = new Map<string, Entry>();

  function load(file: string): Entry | undefined {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      return undefined;
    }
    if (!stat.isFile()) return undefined;
    const cached = cache.get(file);
    if (cached && cached.mtimeMs === stat.mtimeMs) return cached;
    const bytes = fs.readFileSync(file);
    const digest = createHash('sha256').update(bytes).digest('base64url').slice(0, 22);
    const sibling = (suffix: string) => {
      try {
        // Only a copy at least as new as the file: a stale one would send old code.
        const copy = `${file}.${suffix}`;
        return fs.statSync(copy).mtimeMs >= stat.mtimeMs ? fs.readFileSync(copy) : undefined;
      } catch {
        return undefined;
      }
    };
    const br = sibling('br');
    const gz = sibling('gz');
    const entry: Entry = {
      mtimeMs: stat.mtimeMs,
      type: TYPES[path.extname(file)] ?? 'application/octet-stream',
      identity: variant(bytes, '', digest),
      ...(br ? { br: variant(br, '-br', digest) } : {}),
      ...(gz ? { gzip: variant(gz, '-gz', digest) } : {}),
    };
    cache.set(file, entry);
    return entry;
  }

  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    let relative: string;
    try {
      relative = decodeURIComponent(req.path);
    } catch {
      return next();
    }
    const file = path.join(root, relative);
    // Never outside the folder, never a precompressed copy asked for by name.
    if (!file.startsWith(root + path.sep) || /\.(br|gz)$/.test(file)) return next();
    const entry = load(file);
    if (!entry) return next();
    if (options.cors) res.setHeader('Access-Control-Allow-Origin', '*');
    sendEncodedFile(req, res, entry, HASHED_NAME.test(file) ? IMMUTABLE : 'public, max-age=0, must-revalidate');
  };
}

/**
 * Answers a GET or HEAD with the smallest variant `Accept-Encoding` allows, its ETag and
 * `cacheControl`; `304` with no body when `If-None-Match` names that variant.
 */
export function sendEncodedFile(req: Request, res: Response, file: EncodedFile, cacheControl: string): void {
  const encoding = pickEncoding(req.get('Accept-Encoding'), { br: file.br !== undefined, gzip: file.gzip !== undefined });
  const chosen = encoding === 'br' ? file.br! : encoding === 'gzip' ? file.gzip! : file.identity;
  res.setHeader('Content-Type', file.type);
  res.setHeader('Vary', 'Accept-Encoding');
  res.setHeader('ETag', chosen.etag);
  res.setHeader('Cache-Control', cacheControl);
  const match = req.get('If-None-Match');
  if (match && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === chosen.etag)) {
    res.status(304).end();
    return;
  }
  if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
  res.setHeader('Content-Length', String(chosen.bytes.length));
  res.status(200);
  if (req.method === 'HEAD') res.end();
  else res.end(chosen.bytes);
}
