/** The demo store's small text formats. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usd } from '../../demo/views/format.ts';

test('dollars show at least two decimals, never lose one given, and group thousands', () => {
  assert.equal(usd('18'), '$18.00');
  assert.equal(usd('0.5'), '$0.50');
  assert.equal(usd('64000.12'), '$64,000.12');
  assert.equal(usd('1234567'), '$1,234,567.00');
  assert.equal(usd('999.5'), '$999.50');
  assert.equal(usd('2.345'), '$2.345');
});
