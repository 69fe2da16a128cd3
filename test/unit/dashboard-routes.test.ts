/** The dashboard's addresses: the page each shows, and none for an address the app has no page at. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageOf } from '../../dashboard/routes.ts';

test('each address of the navigation, the start and the sign-in form shows its page', () => {
  assert.deepEqual(pageOf('/dashboard'), { name: 'payments-page' });
  assert.deepEqual(pageOf('/dashboard/'), { name: 'payments-page' });
  assert.deepEqual(pageOf('/dashboard/login'), { name: 'payments-page' });
  for (const name of ['payments', 'refunds', 'withdrawals', 'balance', 'webhooks', 'keys', 'settings']) {
    assert.deepEqual(pageOf(`/dashboard/${name}`), { name: `${name}-page` });
  }
});

test("a payment's address names its id, decoded", () => {
  assert.deepEqual(pageOf('/dashboard/payments/5b1e0c7a-1d2f-4a1b-9c3d-0e1f2a3b4c5d'), { name: 'payment-page', paymentId: '5b1e0c7a-1d2f-4a1b-9c3d-0e1f2a3b4c5d' });
  assert.deepEqual(pageOf('/dashboard/payments/a%20b'), { name: 'payment-page', paymentId: 'a b' });
});

test('any other address has no page: unknown names, deeper paths, a trailing slash, broken escapes, other cases', () => {
  for (const path of ['/dashboard/nosuchpage', '/dashboard/payments/', '/dashboard/payments/x/refunds', '/dashboard/settings/', '/dashboard/Payments', '/dashboard/payments/%E0%A4%A', '/dashboard/constructor', '/dashboard/__proto__', '/dashboardx']) {
    assert.equal(pageOf(path), undefined, path);
  }
});
