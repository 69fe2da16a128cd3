/** A created payment as the create hands it on: every field of the new payment, written out one by one. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type NewPayment, newlyStored } from '../../api/payments/payment.store.ts';

test('newlyStored keeps every field of the new payment in its own place, with its address, no exception and version 1', () => {
  // Every field a distinct value, so a field copied from the wrong one shows.
  const fiat: Omit<NewPayment, 'addressTo' | 'destTag'> = {
    id: 'b5f0c1de-2f4a-4c8e-9d61-0c7a3e5b9f21',
    merchantId: 'merchant-1',
    assetId: 7,
    amount: '0.00031250',
    confirmsNeeded: 3,
    timeout: 1800,
    expiresAt: 1_790_000_001_000,
    checkoutUrl: 'https://shop.example/orders/42',
    status: 'OPEN',
    customer: { id: 12, name: 'Ada', email: 'ada@example.com' },
    invoice: 'INV-42',
    createdAt: 1_790_000_000_000,
    updatedAt: 1_790_000_000_500,
    price: { amount: '19.99', currency: 'USD' },
    rate: { value: '63968.01', currency: 'USD', sources: ['coinbase', 'kraken'], at: 1_789_999_990_000 },
    tolerancePercent: '0.5',
  };
  const asset: Omit<NewPayment, 'addressTo' | 'destTag'> = { ...fiat, checkoutUrl: null, customer: null, invoice: null, price: null, rate: null };
  for (const payment of [fiat, asset]) {
    for (const [addressTo, destTag] of [
      ['bc1qdv2h9rhtx4sq559eyjcnp4mn4uphgayl3yxz6v', null],
      ['rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe', '4000000123'],
    ] as const) {
      const stored = newlyStored(payment, addressTo, destTag);
      assert.deepEqual(stored, { ...payment, addressTo, destTag, exception: null, version: 1 });
      assert.deepEqual(Object.keys(stored).sort(), [...Object.keys(payment), 'addressTo', 'destTag', 'exception', 'version'].sort(), 'no field left out or added');
    }
  }
});
