/**
 * @module The built widget and payer-page files, sent compressed. The build writes a brotli (`.br`)
 * and a gzip (`.gz`) copy beside each file; a request gets the smallest its `Accept-Encoding`
 * allows, with `Content-Encoding` and `Vary: Accept-Encoding`. A file whose name carries a content
 * hash (`name.1a2b3c4d.js`, as the build names chunks) never changes, so it is cached for a year, `immutable`; a stable name
 * (`crypto-checkout.js`, which merchants' pages link) is revalidated on each use with its ETag, and
 * an unchanged file answers `304` with no body.
 */
import type { RequestHandler, Response } from 'express';
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

interface Variant {
  bytes: Buffer;
  etag: string;
}

interface Entry {
  mtimeMs: number;
  type: string;
  identity: Variant;
  br?: Variant;
  gzip?: Variant;
}

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

  const send = (res: Response, status: number, body?: Buffer) => {
    res.status(status);
    if (body === undefined) res.end();
    else res.end(body);
  };

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
    const encoding = pickEncoding(req.get('Accept-Encoding'), { br: entry.br !== undefined, gzip: entry.gzip !== undefined });
    const chosen = encoding === 'br' ? entry.br! : encoding === 'gzip' ? entry.gzip! : entry.identity;
    res.setHeader('Content-Type', entry.type);
    res.setHeader('Vary', 'Accept-Encoding');
    res.setHeader('ETag', chosen.etag);
    res.setHeader('Cache-Control', HASHED_NAME.test(file) ? `public, max-age=${YEAR_SECONDS}, immutable` : 'public, max-age=0, must-revalidate');
    if (options.cors) res.setHeader('Access-Control-Allow-Origin', '*');
    const match = req.get('If-None-Match');
    if (match && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === chosen.etag)) return send(res, 304);
    if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
    res.setHeader('Content-Length', String(chosen.bytes.length));
    send(res, 200, req.method === 'HEAD' ? undefined : chosen.bytes);
  };
}
