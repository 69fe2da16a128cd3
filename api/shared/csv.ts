/**
 * @module CSV as RFC 4180 writes it (CRLF line ends; a field with a comma, quote, CR or LF quoted,
 * quotes doubled), with spreadsheet formulas neutralised as OWASP advises: a cell that begins with
 * `=`, `+`, `-`, `@`, tab or carriage return is prefixed with `'`, so no spreadsheet runs it.
 * Small enough to own: a library would add a dependency for these two rules.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell as written: neutralised, then quoted when it must be. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, CRLF-terminated. */
export function csvRow(values: ReadonlyArray<string | number | boolean | null | undefined>): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
