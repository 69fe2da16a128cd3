/** CSV cells: RFC 4180 quoting and OWASP's formula neutralisation. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvCell, csvRow } from '../../api/shared/csv.ts';

test('quotes a cell with a comma, a quote, CR or LF, doubling quotes', () => {
  assert.deepEqual(['a,b', 'say "hi"', 'two\nlines', 'plain', ''].map(csvCell), ['"a,b"', '"say ""hi"""', '"two\nlines"', 'plain', '']);
});

test('prefixes a cell that begins with =, +, -, @, tab or CR with an apostrophe, then quotes it if needed', () => {
  assert.deepEqual(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx', 'a=b'].map(csvCell), ["'=1+1", "'+1", "'-1", "'@SUM(A1)", "'\tx", `"'\rx"`, 'a=b']);
});

test('writes null and undefined as empty cells, numbers and booleans as text, CRLF after each row', () => {
  assert.equal(csvRow([null, undefined, 3, false, 'x']), ',,3,false,x\r\n');
});
