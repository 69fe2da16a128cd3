/**
 * @module A JSON reader that keeps every number as the text the source sent. Node 20's JSON.parse
 * turns `64123.12345678` into a binary float before any code sees it (and its reviver gets no
 * source text), so prices sent as JSON numbers (CoinGecko's) are read here instead: the number's
 * exact digits reach decimal arithmetic untouched.
 */

/** A JSON number, as its source text (`64123.1`, `1.2e-05`). */
export class JsonNumber {
  constructor(readonly text: string) {}
}

/** A parsed JSON value whose numbers are JsonNumber. */
export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | { [key: string]: JsonValue };

// The grammar of RFC 8259 (`-`, integer without leading zeros, optional fraction and exponent).
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
// A string token: escapes are validated by JSON.parse of the token.
// oxlint-disable-next-line no-control-regex -- JSON forbids raw control characters inside strings
const STRING = /"(?:[^"\\\u0000-\u001f]|\\.)*"/y;
const WHITESPACE = /[ \t\n\r]*/y;
const MAX_DEPTH = 64;

/** Parses JSON text, numbers kept as text; throws SyntaxError on anything that is not JSON. */
export function parseJsonKeepingNumbers(text: string): JsonValue {
  let at = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at position ${at}`);
  };
  const skip = () => {
    WHITESPACE.lastIndex = at;
    WHITESPACE.exec(text);
    at = WHITESPACE.lastIndex;
  };
  const token = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (!match) return undefined;
    at = pattern.lastIndex;
    return match[0];
  };
  const literal = (word: string): boolean => {
    if (!text.startsWith(word, at)) return false;
    at += word.length;
    return true;
  };
  const value = (depth: number): JsonValue => {
    if (depth > MAX_DEPTH) fail('nested too deeply');
    skip();
    const char = text[at];
    if (char === '{') return object(depth);
    if (char === '[') return array(depth);
    if (char === '"') return JSON.parse(token(STRING) ?? fail('bad string')) as string;
    if (literal('true')) return true;
    if (literal('false')) return false;
    if (literal('null')) return null;
    const number = token(NUMBER);
    return number === undefined ? fail('unexpected character') : new JsonNumber(number);
  };
  const object = (depth: number): JsonValue => {
    at++;
    const result: { [key: string]: JsonValue } = {};
    skip();
    if (literal('}')) return result;
    for (;;) {
      skip();
      const key = JSON.parse(token(STRING) ?? fail('expected a key')) as string;
      skip();
      if (!literal(':')) fail('expected ":"');
      // A key such as "__proto__" must stay a plain property.
      Object.defineProperty(result, key, { value: value(depth + 1), enumerable: true, writable: true, configurable: true });
      skip();
      if (literal('}')) return result;
      if (!literal(',')) fail('expected "," or "}"');
    }
  };
  const array = (depth: number): JsonValue => {
    at++;
    const result: JsonValue[] = [];
    skip();
    if (literal(']')) return result;
    for (;;) {
      result.push(value(depth + 1));
      skip();
      if (literal(']')) return result;
      if (!literal(',')) fail('expected "," or "]"');
    }
  };
  const result = value(0);
  skip();
  if (at !== text.length) fail('unexpected text after the value');
  return result;
}
