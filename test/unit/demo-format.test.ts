/** The demo store's small text formats. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usd } from '../../demo/views/format.ts';

test('dollars show at least two decimals, and never lose one given', () => {
  assert.equal(usd('18'), '$18.00');
  assert.equal(usd('0.5'), '$0.50');
  assert.equal(usd('64000.12'), '$64000.12');
  assert.equal(usd('2.345'), '$2.345');
});
