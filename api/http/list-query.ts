import { invalidFields } from '../shared/errors.ts';

/**
 * Reads a list endpoint's query string, accepting array filters in all three encodings:
 * repeated keys (`ids=a&ids=b`), brackets (`ids[]=a`, `ids[0]=a`) and commas (`ids=a,b`).
 * A percent-encoded comma (`%2C`, what URLSearchParams and most HTTP clients send for a comma)
 * separates values too, except for the keys in `commaInValueKeys` (free text such as invoices),
 * where only a literal comma separates, so a value that itself holds a comma can be sent as
 * `%2C`. Unknown parameters are ignored; a known one in a form this does not read (`statuses[a]=…`,
 * `page[]=2`) is refused with 400 validation-failed, never dropped: dropped, it would widen the list
 * to every record the filter meant to leave out.
 */
export function readListQuery(
  url: string,
  arrayKeys: readonly string[],
  scalarKeys: readonly string[],
  commaInValueKeys: readonly string[] = [],
): Record<string, unknown> {
  const queryStart = url.indexOf('?');
  const pairs = queryStart === -1 ? [] : url.slice(queryStart + 1).split('&').filter(Boolean).map(splitPair);
  const malformed = pairs.flatMap(([name]) => {
    const bracket = name.indexOf('[');
    if (bracket <= 0) return [];
    const key = name.slice(0, bracket);
    if (scalarKeys.includes(key)) return [{ path: name, message: `is not read: write ${key}=<value>, once` }];
    if (arrayKeys.includes(key) && !/^\[\d*\]$/.test(name.slice(bracket))) {
      return [{ path: name, message: `is not read: write ${key}=a,b, ${key}=a&${key}=b, ${key}[]=a or ${key}[0]=a` }];
    }
    return [];
  });
  if (malformed.length > 0) throw invalidFields(malformed);
  const query: Record<string, unknown> = {};
  for (const key of arrayKeys) {
    const values: string[] = [];
    for (const [name, rawValue] of pairs) {
      if (name !== key && name !== `${key}[]` && !(name.startsWith(`${key}[`) && /^\[\d+\]$/.test(name.slice(key.length)))) continue;
      const parts = commaInValueKeys.includes(key) ? rawValue.split(',').map(decode) : decode(rawValue).split(',');
      for (const part of parts) {
        const value = part.trim();
        if (value !== '') values.push(value);
      }
    }
    if (values.length > 0) query[key] = values;
  }
  for (const key of scalarKeys) {
    const all = pairs.filter(([name]) => name === key).map(([, value]) => decode(value));
    if (all.length === 1) query[key] = all[0];
    else if (all.length > 1) query[key] = all; // refused by the schema: one page, one limit
  }
  return query;
}

function splitPair(pair: string): [string, string] {
  const eq = pair.indexOf('=');
  return eq === -1 ? [decode(pair), ''] : [decode(pair.slice(0, eq)), pair.slice(eq + 1)];
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    // A malformed escape is kept as written; the schema then judges the value.
    return text;
  }
}
