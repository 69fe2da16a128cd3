/**
 * Reads a list endpoint's query string, accepting array filters in all three encodings:
 * repeated keys (`ids=a&ids=b`), brackets (`ids[]=a`, `ids[0]=a`) and commas (`ids=a,b`).
 * Unknown parameters are ignored.
 */
export function readListQuery(url: string, arrayKeys: readonly string[], scalarKeys: readonly string[]): Record<string, unknown> {
  const queryStart = url.indexOf('?');
  const params = new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1));
  const query: Record<string, unknown> = {};
  for (const key of arrayKeys) {
    const values: string[] = [];
    for (const [name, value] of params) {
      if (name === key || name === `${key}[]` || (name.startsWith(`${key}[`) && /^\[\d+\]$/.test(name.slice(key.length)))) {
        for (const part of value.split(',')) {
          const trimmed = part.trim();
          if (trimmed !== '') values.push(trimmed);
        }
      }
    }
    if (values.length > 0) query[key] = values;
  }
  for (const key of scalarKeys) {
    const all = params.getAll(key);
    if (all.length === 1) query[key] = all[0];
    else if (all.length > 1) query[key] = all; // rejected by the schema: one page, one limit
  }
  return query;
}
