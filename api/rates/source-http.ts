/**
 * @module What the rate sources share: a bounded GET of a JSON document (numbers kept as text),
 * the check that a value is a positive decimal price, and a small concurrency limit so a refresh
 * never opens dozens of connections to one source at once.
 */
import { Amount } from '../shared/money.ts';
import { JsonNumber, type JsonValue, parseJsonKeepingNumbers } from './json-numbers.ts';
import type { PairOutcome } from './rate-source.ts';

/** A source answered something unusable; the message says what, for the log and /health. */
export class SourceError extends Error {
  override name = 'SourceError';
  constructor(
    message: string,
    /** The HTTP status, when the source answered with one that is not 200. */
    readonly status?: number,
    /** That answer's body as JSON, when it was JSON (a source's own error document). */
    readonly body?: JsonValue,
  ) {
    super(message);
  }
}

// Every documented answer is a few kilobytes; Coinbase's full exchange-rate table about 10 KB.
const MAX_BODY_BYTES = 1024 * 1024;
// A source's error document is a line or two.
const ERROR_BODY_BYTES = 16 * 1024;
/** Requests one source has open at once during a refresh. */
export const SOURCE_CONCURRENCY = 4;

/** GETs `url` and reads its JSON body; anything but a 200 with JSON is a SourceError. */
export async function getJson(url: string, signal: AbortSignal): Promise<JsonValue> {
  let response: Response;
  try {
    response = await fetch(url, { signal, headers: { Accept: 'application/json' } });
  } catch (err) {
    throw new SourceError(signal.aborted ? 'no answer within the time allowed' : `unreachable (${causeOf(err)})`);
  }
  if (response.status !== 200) {
    // Kept when it is a small JSON document: a source's own "no such pair" answer, told apart from a
    // proxy's or a wrong address's error page.
    const declared = Number(response.headers.get('content-length') ?? 0);
    let body: JsonValue | undefined;
    if (declared <= ERROR_BODY_BYTES && (response.headers.get('content-type') ?? '').includes('json')) {
      const text = await readBounded(response, ERROR_BODY_BYTES).catch(() => undefined);
      try {
        if (text !== undefined) body = parseJsonKeepingNumbers(text);
      } catch {
        body = undefined;
      }
    } else {
      await response.body?.cancel().catch(() => {});
    }
    throw new SourceError(`answered HTTP ${response.status}`, response.status, body);
  }
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) {
    await response.body?.cancel().catch(() => {});
    throw new SourceError(`answered ${declared} bytes, more than a price needs`);
  }
  let text: string | undefined;
  try {
    text = await readBounded(response, MAX_BODY_BYTES);
  } catch (err) {
    throw new SourceError(signal.aborted ? 'no answer within the time allowed' : `answer cut off (${causeOf(err)})`);
  }
  if (text === undefined) throw new SourceError(`answered more than ${MAX_BODY_BYTES} bytes, more than a price needs`);
  try {
    return parseJsonKeepingNumbers(text);
  } catch {
    throw new SourceError(`answered with status 200 but not JSON (starts "${text.slice(0, 40).replace(/\s+/g, ' ')}")`);
  }
}

// The body as text, read no further than `limit` bytes (a chunked answer declares no length):
// undefined, and the rest left unread, when it is longer.
async function readBounded(response: Response, limit: number): Promise<string | undefined> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) {
      await response.body.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function causeOf(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  return cause instanceof Error ? cause.message : String(cause);
}

const DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;
const MAX_PRICE_DIGITS = 60;

/**
 * A price as a canonical decimal string: a JSON string of digits ("64123.5") or a JSON number
 * (64123.5, 1.2e-05), read from its text, never through a float. Zero, a negative, anything else
 * is a SourceError naming what came.
 */
export function positivePrice(value: JsonValue | undefined): string {
  let decimal: Amount;
  if (typeof value === 'string' && DECIMAL.test(value) && value.length <= MAX_PRICE_DIGITS) decimal = new Amount(value);
  else if (value instanceof JsonNumber && value.text.length <= MAX_PRICE_DIGITS) decimal = new Amount(value.text);
  else throw new SourceError(`price ${describe(value)} is not a decimal number`);
  if (!decimal.isFinite() || decimal.lte(0)) throw new SourceError(`price ${describe(value)} is not positive`);
  const canonical = decimal.toFixed();
  if (canonical.length > MAX_PRICE_DIGITS) throw new SourceError(`price ${describe(value)} is out of any sensible range`);
  return canonical;
}

function describe(value: JsonValue | undefined): string {
  if (value instanceof JsonNumber) return value.text;
  const text = value === undefined ? 'missing' : JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** Whether a JSON value is an object (not an array, a number or null). */
export function isJsonObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber);
}

/** A member of a JSON object, or undefined when `value` is not an object or lacks it. */
export function member(value: JsonValue | undefined, key: string): JsonValue | undefined {
  return isJsonObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

/** The outcome of reading one price: a quote, or the reason it could not be used. */
export function outcomeOf(read: () => string): PairOutcome {
  try {
    return { kind: 'quote', value: read() };
  } catch (err) {
    return { kind: 'failed', reason: err instanceof Error ? err.message : String(err) };
  }
}

/** Runs `work` over `items`, at most `limit` at once. */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
