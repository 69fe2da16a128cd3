/** The dashboard's counts in the singular for one and the plural otherwise. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countOf } from '../../dashboard/count-text.ts';

test('a count of one takes the singular, any other the plural', () => {
  assert.deepEqual(
    [0, 1, 2, 21].map((n) => countOf(n, 'withdrawal', 'withdrawals')),
    ['0 withdrawals', '1 withdrawal', '2 withdrawals', '21 withdrawals'],
  );
  assert.equal(countOf(1, 'refund', 'refunds'), '1 refund');
  assert.equal(countOf(1, 'payment', 'payments'), '1 payment');
});
