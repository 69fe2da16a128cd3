/** Reading JSON request bodies: media type, size limit, raw bytes (for signatures), then parsing. */
import type { RequestHandler } from 'express';
import { isUtf8 } from 'node:buffer';
import { ApiError } from './api-error.ts';

/** Largest body a POST may carry. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** 415 unless the body is declared as UTF-8 JSON. */
export const requireJsonContentType: RequestHandler = (req, _res, next) => {
  const [mediaType = '', ...params] = (req.headers['content-type'] ?? '').split(';');
  const charset = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('charset='));
  if (mediaType.trim().toLowerCase() !== 'application/json' || (charset && !['charset=utf-8', 'charset="utf-8"'].includes(charset))) {
    next(new ApiError(415, 'unsupported-media-type', 'Send the body as UTF-8 JSON with the header Content-Type: application/json.'));
    return;
  }
  next();
};

const tooLarge = () => new ApiError(413, 'payload-too-large', 'The request body is larger than 64 KiB.');

/**
 * Reads the body as raw bytes into `req.body` (a Buffer; left undefined when the request announces
 * none), up to the limit: 413 beyond it, at once when the declared Content-Length already says so
 * (rather than after waiting for bytes that will be refused), else once the rest has been read off,
 * so that the answer is not sent into a request still arriving. A compressed body is refused (415)
 * rather than inflated: the signature covers the bytes as sent. A body cut off answers 400.
 *
 * What `express.raw()` did for these routes, without its per-request generality (charset and
 * type detection, inflation, debug hooks), which cost about 45 µs a create (profiled); two builds
 * side by side measured 33 µs less CPU a create with this reader.
 */
export const readRawBody: RequestHandler = (req, _res, next) => {
  const headers = req.headers;
  const declared = headers['content-length'];
  // A body is announced by chunks or by any Content-Length (`0` reads as an empty body), as Express's readers tell.
  if (headers['transfer-encoding'] === undefined && (declared === undefined || Number.isNaN(Number(declared)))) {
    next();
    return;
  }
  if (Number(declared) > BODY_LIMIT_BYTES) {
    next(tooLarge());
    return;
  }
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding !== '' && encoding.toLowerCase() !== 'identity') {
    next(new ApiError(415, 'unsupported-media-type', 'The request body must be UTF-8 JSON.'));
    return;
  }
  if (req.readableEnded) {
    next();
    return;
  }
  // Gone before its body was read (the client reset the connection while the key was looked up):
  // no event of the stream will come.
  if (req.destroyed) {
    next(new ApiError(400, 'invalid-json', 'The request body could not be read completely.'));
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  let refused: ApiError | undefined;
  let done = false;
  const finish = (error?: ApiError) => {
    if (done) return;
    done = true;
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onCut);
    req.off('close', onCut);
    if (error) {
      next(error);
      return;
    }
    req.body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received);
    next();
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (refused) return;
    if (received > BODY_LIMIT_BYTES) {
      refused = tooLarge();
      chunks.length = 0;
    } else {
      chunks.push(chunk);
    }
  };
  const onEnd = () => finish(refused);
  // The client went away (or the stream failed) before the body's end.
  const onCut = () => finish(new ApiError(400, 'invalid-json', 'The request body could not be read completely.'));
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onCut);
  req.on('close', onCut);
};

// A leading byte order mark is dropped, as a UTF-8 TextDecoder drops it.
const hasBom = (raw: Buffer) => raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf;

/** Parses the raw bytes as JSON (400 invalid-json otherwise). */
export const parseJsonBody: RequestHandler = (req, _res, next) => {
  const raw: unknown = req.body;
  if (!Buffer.isBuffer(raw) || raw.length === 0) {
    next(new ApiError(400, 'invalid-json', 'The request body is empty; send a JSON object.'));
    return;
  }
  // Checked whole first (simdutf), then decoded: invalid bytes are refused, never replaced.
  if (!isUtf8(raw)) {
    next(new ApiError(400, 'invalid-json', 'The request body is not valid UTF-8.'));
    return;
  }
  const text = raw.toString('utf8', hasBom(raw) ? 3 : 0);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    next(new ApiError(400, 'invalid-json', `The request body is not valid JSON (${(err as Error).message}).`));
    return;
  }
  const repeated = repeatedName(text, body);
  if (repeated !== undefined) {
    next(new ApiError(400, 'invalid-json', `The request body gives the name ${JSON.stringify(repeated)} twice in one object; send each name once (readers of JSON differ on which one counts).`));
    return;
  }
  req.body = body;
  next();
};

/**
 * The first name that one object of `text` gives twice, or undefined; `text` is valid JSON and
 * `value` what JSON.parse made of it. JSON.parse keeps the last of a repeated name without a word,
 * so {"amount": "1", "amount": "100"} would be read as 100 where another reader takes 1. A colon
 * outside strings follows each name, so the text repeats one exactly when it has more such colons
 * than the value has members: one pass over the text, and only then a second to find the name.
 */
export function repeatedName(text: string, value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return colonsOutsideStrings(text) === membersOf(value) ? undefined : firstRepeatedName(text);
}

// The index of the quote that closes the string opening at `start`.
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i;
    i += c === 0x5c ? 2 : 1;
  }
}

function colonsOutsideStrings(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = stringEnd(text, i);
    else if (c === 0x3a) count += 1;
  }
  return count;
}

// Members of every object in the value, without recursion (a body may nest thousands deep).
function membersOf(value: object): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null) continue;
    const children = Array.isArray(next) ? next : Object.values(next);
    if (!Array.isArray(next)) count += children.length;
    for (const child of children) if (typeof child === 'object' && child !== null) pending.push(child);
  }
  return count;
}

// The text again, each open object with the names it has given so far (arrays hold none).
function firstRepeatedName(text: string): string | undefined {
  const open: Array<Set<string> | undefined> = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b) open.push(new Set());
    else if (c === 0x5b) open.push(undefined);
    else if (c === 0x7d || c === 0x5d) open.pop();
    else if (c === 0x22) {
      const end = stringEnd(text, i);
      let after = end + 1;
      // JSON's whitespace: space, tab, line feed, carriage return.
      while ([0x20, 0x09, 0x0a, 0x0d].includes(text.charCodeAt(after))) after += 1;
      const names = open.at(-1);
      if (names && text[after] === ':') {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        if (names.has(name)) return name;
        names.add(name);
      }
      i = end;
    }
  }
  return undefined;
}

/** The whole chain for unsigned JSON bodies. */
export const jsonBody: RequestHandler[] = [requireJsonContentType, readRawBody, parseJsonBody];
