/**
 * The payment and withdrawal lifecycle driven over HTTP through the simulated chains: every status
 * transition of CONTRACT.md section 5, payouts of section 6, and the ledger balanced after each step.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addressCodec } from '../../api/networks/address-codecs.ts';
import { merchantApi, postJson, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';

type Asset = { short: string; network: string };
const BTC = { short: 'BTC', network: 'bitcoin' };
const LTC = { short: 'LTC', network: 'litecoin' };
const ETH = { short: 'ETH', network: 'ethereum' };
const USDT_ETH = { short: 'USDT', network: 'ethereum' };
const XRP = { short: 'XRP', network: 'ripple' };
const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const XRP_ADDRESS = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh';
const START = Date.parse('2026-11-21T10:00:00.000Z');

let server: TestServer;
let shop: TestMerchant;
let api: ReturnType<typeof merchantApi>;

before(async () => {
  server = await startTestServer();
  server.clock.set(START);
  shop = await server.createMerchant('Lifecycle Shop');
  api = merchantApi(server, shop);
});
after(() => server.close());

async function createPayment(amount: string, asset: Asset, extra: Record<string, unknown> = {}) {
  const response = await api.post('/payment', { amount, asset, ...extra });
  assert.equal(response.status, 200);
  return response.body;
}

/** A payer's transaction to a payment's address (and tag), `confirmations` deep. */
async function pay(payment: { addressTo: string; destTag: string | null; asset: Asset }, amount: string, confirmations = 0, asset: Asset = payment.asset) {
  const response = await postJson(`${server.api}/dev/transactions`, {
    address: payment.addressTo,
    ...(payment.destTag ? { destTag: payment.destTag } : {}),
    amount,
    asset: { short: asset.short, network: asset.network },
    confirmations,
  });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body as { txnId: string; addressFrom: string };
}

async function mine(network: string, count = 1) {
  const response = await postJson(`${server.api}/dev/blocks`, { network, count });
  assert.equal(response.status, 200);
}

async function fetchPayment(id: string) {
  const response = await api.get(`/payment/${id}`);
  assert.equal(response.status, 200);
  return response.body;
}

async function balance(short: string, network: string) {
  const { body } = await api.get('/balance');
  const row = body.data.find((b: { asset: Asset }) => b.asset.short === short && b.asset.network === network);
  return row ? { available: row.available, reserved: row.reserved } : undefined;
}

/** Every ledger account of the shop: its deltas sum to its latest running balance, which /v2/balance reports. */
async function assertLedgerBalanced(merchant: TestMerchant = shop, client = api) {
  const entries = await server.services.db.all<{
    asset_id: number;
    short: string;
    network: string;
    decimals: number;
    available_delta: string;
    reserved_delta: string;
    available_after: string;
    reserved_after: string;
  }>(
    `SELECT e.asset_id, a.short, a.network, a.decimals, e.available_delta, e.reserved_delta, e.available_after, e.reserved_after
     FROM ledger_entries e JOIN assets a ON a.id = e.asset_id
     WHERE e.merchant_id = ? ORDER BY e.seq`,
    [merchant.merchant.id],
  );
  // Per account: every delta, and the running balance of its latest row.
  const accounts = new Map<number, { short: string; network: string; decimals: number; availableDeltas: string[]; reservedDeltas: string[]; available_after: string; reserved_after: string }>();
  for (const entry of entries) {
    const account = accounts.get(entry.asset_id) ?? { short: entry.short, network: entry.network, decimals: entry.decimals, availableDeltas: [], reservedDeltas: [], available_after: '', reserved_after: '' };
    account.availableDeltas.push(entry.available_delta);
    account.reservedDeltas.push(entry.reserved_delta);
    account.available_after = entry.available_after;
    account.reserved_after = entry.reserved_after;
    accounts.set(entry.asset_id, account);
  }
  const reported = (await client.get('/balance')).body.data;
  assert.equal(reported.length, accounts.size);
  for (const account of accounts.values()) {
    assert.equal(sumDecimal(account.availableDeltas, account.decimals), account.available_after, `${account.short} available`);
    assert.equal(sumDecimal(account.reservedDeltas, account.decimals), account.reserved_after, `${account.short} reserved`);
    assert.ok(!account.available_after.startsWith('-') && !account.reserved_after.startsWith('-'));
    const row = reported.find((b: { asset: Asset }) => b.asset.short === account.short && b.asset.network === account.network);
    assert.deepEqual({ available: row.available, reserved: row.reserved }, { available: account.available_after, reserved: account.reserved_after });
  }
}

/** Sums decimal strings exactly with BigInt, independently of the service's money module. */
function sumDecimal(values: string[], decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const toUnits = (v: string) => {
    const negative = v.startsWith('-');
    const [whole = '0', fraction = ''] = v.replace('-', '').split('.');
    const units = BigInt(whole) * scale + BigInt(fraction.padEnd(decimals, '0') || '0');
    return negative ? -units : units;
  };
  const total = values.reduce((acc, v) => acc + toUnits(v), 0n);
  const abs = total < 0n ? -total : total;
  return `${total < 0n ? '-' : ''}${abs / scale}.${(abs % scale).toString().padStart(decimals, '0')}`;
}

describe('payment transitions', () => {
  test('OPEN → CONFIRMING → COMPLETE as blocks confirm a full payment', async () => {
    const payment = await createPayment('0.01', BTC, { invoice: 'btc-1' });
    assert.equal(payment.status, 'OPEN');
    server.clock.advance(5_000);
    const sent = await pay(payment, '0.01');
    assert.ok(addressCodec('bitcoin', 'main').isValid(sent.addressFrom));

    const confirming = await fetchPayment(payment.id);
    assert.deepEqual(confirming, {
      ...payment,
      status: 'CONFIRMING',
      totalReceivedAmount: '0.01000000',
      amountDue: '0.00000000',
      updatedAt: '2026-11-21T10:00:05.000Z',
      transactions: [
        {
          paymentId: payment.id,
          txnId: sent.txnId,
          receivedAmount: '0.01000000',
          asset: payment.asset,
          destTag: null,
          addressFrom: sent.addressFrom,
          addressTo: payment.addressTo,
          date: '2026-11-21T10:00:05.000Z',
          confirmations: 0,
          late: false,
        },
      ],
    });
    assert.equal(await balance('BTC', 'bitcoin'), undefined, 'nothing is credited before confirmation');

    await mine('bitcoin');
    const oneBlock = await fetchPayment(payment.id);
    assert.equal(oneBlock.status, 'CONFIRMING');
    assert.equal(oneBlock.transactions[0].confirmations, 1);
    assert.equal(await balance('BTC', 'bitcoin'), undefined);

    server.clock.advance(1_000);
    await mine('bitcoin');
    const complete = await fetchPayment(payment.id);
    assert.deepEqual(complete, {
      ...confirming,
      status: 'COMPLETE',
      // Refundable once confirmed: unconfirmed funds never are.
      refundableAmount: '0.01000000',
      updatedAt: '2026-11-21T10:00:06.000Z',
      transactions: [{ ...confirming.transactions[0], confirmations: 2 }],
    });
    assert.deepEqual(await balance('BTC', 'bitcoin'), { available: '0.01000000', reserved: '0.00000000' });
    await assertLedgerBalanced();

    await mine('bitcoin', 3);
    assert.equal((await fetchPayment(payment.id)).status, 'COMPLETE');
    assert.deepEqual(await balance('BTC', 'bitcoin'), { available: '0.01000000', reserved: '0.00000000' }, 'credited once');
  });

  test('OPEN → COMPLETE when the transaction arrives already confirmed', async () => {
    const payment = await createPayment('0.5', ETH);
    await pay(payment, '0.5', 3);
    const complete = await fetchPayment(payment.id);
    assert.equal(complete.status, 'COMPLETE');
    assert.equal(complete.transactions[0].confirmations, 3);
    assert.deepEqual(await balance('ETH', 'ethereum'), { available: '0.50000000', reserved: '0.00000000' });
    await assertLedgerBalanced();
  });

  test('counts confirmations up to confirmsNeeded and then holds them, however many blocks are mined at once', async () => {
    const deep = await createPayment('0.004', BTC);
    await pay(deep, '0.004', 6);
    assert.equal((await fetchPayment(deep.id)).transactions[0].confirmations, 2, 'arrived 6 deep');
    const mined = await createPayment('0.005', BTC);
    await pay(mined, '0.005');
    await mine('bitcoin', 5);
    const once = await fetchPayment(mined.id);
    assert.equal(once.status, 'COMPLETE');
    assert.equal(once.transactions[0].confirmations, 2, 'five blocks in one call');
    await mine('bitcoin', 3);
    assert.equal((await fetchPayment(mined.id)).transactions[0].confirmations, 2, 'still the figure it settled at');
    const payer = (await (await fetch(`${server.api}/checkout/${mined.id}`)).json()) as { transactions: Array<{ confirmations: number }> };
    assert.equal(payer.transactions[0]!.confirmations, 2);
  });

  test('a partial payment stays OPEN with amountDue shrinking, and a second transaction completes it', async () => {
    const payment = await createPayment('1', LTC);
    assert.equal(payment.paymentUri, `litecoin:${payment.addressTo}?amount=1`);
    await pay(payment, '0.4', 3);
    const partial = await fetchPayment(payment.id);
    assert.equal(partial.status, 'OPEN');
    assert.equal(partial.totalReceivedAmount, '0.40000000');
    assert.equal(partial.amountDue, '0.60000000');
    assert.equal(partial.paymentUri, `litecoin:${payment.addressTo}?amount=0.6`);
    assert.deepEqual(await balance('LTC', 'litecoin'), { available: '0.40000000', reserved: '0.00000000' }, 'the confirmed part is credited');
    await assertLedgerBalanced();

    await pay(payment, '0.25');
    const stillShort = await fetchPayment(payment.id);
    assert.equal(stillShort.status, 'OPEN');
    assert.equal(stillShort.amountDue, '0.35000000');
    assert.equal(stillShort.paymentUri, `litecoin:${payment.addressTo}?amount=0.35`);

    await pay(payment, '0.35');
    const covered = await fetchPayment(payment.id);
    assert.equal(covered.status, 'CONFIRMING');
    assert.equal(covered.amountDue, '0.00000000');
    assert.equal(covered.transactions.length, 3);

    await mine('litecoin', 3);
    const complete = await fetchPayment(payment.id);
    assert.equal(complete.status, 'COMPLETE');
    assert.equal(complete.totalReceivedAmount, '1.00000000');
    assert.equal(complete.paymentUri, `litecoin:${payment.addressTo}?amount=1`);
    assert.deepEqual(await balance('LTC', 'litecoin'), { available: '1.00000000', reserved: '0.00000000' });
    await assertLedgerBalanced();
  });

  test('an overpayment completes the payment and credits everything received', async () => {
    const payment = await createPayment('0.01', BTC);
    const before = await balance('BTC', 'bitcoin');
    await pay(payment, '0.015', 2);
    const complete = await fetchPayment(payment.id);
    assert.equal(complete.status, 'COMPLETE');
    assert.equal(complete.amount, '0.01000000');
    assert.equal(complete.totalReceivedAmount, '0.01500000');
    assert.equal(complete.amountDue, '0.00000000');
    assert.deepEqual(await balance('BTC', 'bitcoin'), { available: sumDecimal([before!.available, '0.015'], 8), reserved: '0.00000000' });
    await pay(complete, '0.001', 2);
    const more = await fetchPayment(payment.id);
    assert.equal(more.status, 'COMPLETE', 'a completed payment stays complete');
    assert.equal(more.totalReceivedAmount, '0.01600000');
    await assertLedgerBalanced();
  });

  test('transactions are matched on amount exactly, however many small ones add up', async () => {
    const payment = await createPayment('0.3', ETH);
    for (let i = 0; i < 3; i++) await pay(payment, '0.1', 3);
    const complete = await fetchPayment(payment.id);
    assert.equal(complete.status, 'COMPLETE', '0.1 + 0.1 + 0.1 covers 0.3 exactly');
    assert.equal(complete.totalReceivedAmount, '0.30000000');
  });

  test('an XRP payment is paid by its destination tag on the shared address', async () => {
    const first = await createPayment('10', XRP);
    const second = await createPayment('10', XRP);
    assert.equal(first.addressTo, second.addressTo);
    assert.notEqual(first.destTag, second.destTag);
    const sent = await pay(second, '10', 1);
    const paid = await fetchPayment(second.id);
    assert.equal(paid.status, 'COMPLETE');
    assert.equal(paid.transactions[0].destTag, second.destTag);
    assert.equal(paid.transactions[0].txnId, sent.txnId);
    assert.equal((await fetchPayment(first.id)).status, 'OPEN', 'the other tag is untouched');
    await pay({ ...first, destTag: '999999999' }, '10', 1);
    assert.equal((await fetchPayment(first.id)).transactions.length, 0, 'an unknown tag pays nobody');
  });

  test('funds of another asset sent to a payment address do not count towards it', async () => {
    const payment = await createPayment('1', ETH);
    await pay(payment, '1', 3, USDT_ETH);
    const unpaid = await fetchPayment(payment.id);
    assert.equal(unpaid.status, 'OPEN');
    assert.deepEqual(unpaid.transactions, []);
  });
});

describe('expiry', () => {
  test('is reported EXPIRED the moment expiresAt passes, before any sweep, and listed as EXPIRED', async () => {
    const payment = await createPayment('0.02', BTC, { timeout: 60, invoice: 'expiring' });
    const expiresAt = Date.parse(payment.expiresAt);
    assert.equal(expiresAt, Date.parse(payment.createdAt) + 60_000);

    server.clock.set(expiresAt - 1);
    assert.equal((await fetchPayment(payment.id)).status, 'OPEN');
    server.clock.set(expiresAt);
    const expired = await fetchPayment(payment.id);
    assert.deepEqual(expired, { ...payment, status: 'EXPIRED' });
    const stored = (await server.services.db.get<{ status: string }>('SELECT status FROM payments WHERE id = ?', [payment.id]))!;
    assert.equal(stored.status, 'OPEN', 'no sweep has run');
    assert.deepEqual(
      (await api.get('/payment?invoices=expiring&statuses=EXPIRED')).body.data.map((p: { id: string }) => p.id),
      [payment.id],
    );
    assert.equal((await api.get('/payment?invoices=expiring&statuses=OPEN')).body.total, 0);

    server.clock.advance(1_000);
    assert.ok((await server.services.expirySweep.run()) >= 1);
    const swept = await fetchPayment(payment.id);
    assert.equal(swept.status, 'EXPIRED');
    assert.equal(swept.updatedAt, new Date(expiresAt + 1_000).toISOString());
  });

  test('a late transaction is recorded late: true, leaves the payment EXPIRED, and is credited once confirmed', async () => {
    const payment = await createPayment('1', LTC, { timeout: 60 });
    server.clock.advance(120_000);
    const before = await balance('LTC', 'litecoin');
    const sent = await pay(payment, '1');
    const late = await fetchPayment(payment.id);
    assert.equal(late.status, 'EXPIRED');
    assert.equal(late.amountDue, '1.00000000', 'a late transaction does not count towards the amount');
    assert.equal(late.totalReceivedAmount, '1.00000000');
    assert.deepEqual(late.transactions.map((t: { txnId: string; late: boolean; confirmations: number }) => [t.txnId, t.late, t.confirmations]), [[sent.txnId, true, 0]]);

    await mine('litecoin', 3);
    const confirmed = await fetchPayment(payment.id);
    assert.equal(confirmed.status, 'EXPIRED');
    assert.equal(confirmed.transactions[0].confirmations, 3);
    assert.deepEqual(await balance('LTC', 'litecoin'), { available: sumDecimal([before?.available ?? '0', '1'], 8), reserved: '0.00000000' });
    await assertLedgerBalanced();
  });

  test('a late transaction to a payment nobody swept yet is late too', async () => {
    const payment = await createPayment('0.1', ETH, { timeout: 60 });
    server.clock.advance(61_000);
    await pay(payment, '0.1', 3);
    const paid = await fetchPayment(payment.id);
    assert.equal(paid.status, 'EXPIRED');
    assert.equal(paid.transactions[0].late, true);
  });

  test('funds seen before expiry still complete the payment after expiresAt', async () => {
    const payment = await createPayment('0.05', BTC, { timeout: 60 });
    await pay(payment, '0.05');
    server.clock.advance(3_600_000);
    await server.services.expirySweep.run();
    assert.equal((await fetchPayment(payment.id)).status, 'CONFIRMING', 'a CONFIRMING payment does not expire');
    await mine('bitcoin', 2);
    const complete = await fetchPayment(payment.id);
    assert.equal(complete.status, 'COMPLETE');
    assert.equal(complete.transactions[0].late, false);
  });

  test('a partial payment that runs out of time is EXPIRED with what it received', async () => {
    const payment = await createPayment('2', LTC, { timeout: 60 });
    await pay(payment, '0.5', 3);
    server.clock.advance(60_000);
    const expired = await fetchPayment(payment.id);
    assert.equal(expired.status, 'EXPIRED');
    assert.equal(expired.amountDue, '1.50000000');
    assert.equal(expired.totalReceivedAmount, '0.50000000');
  });
});

describe('dropped transactions', () => {
  test('CONFIRMING → OPEN when the covering transaction is dropped from the mempool', async () => {
    const payment = await createPayment('0.2', ETH);
    const sent = await pay(payment, '0.2');
    assert.equal((await fetchPayment(payment.id)).status, 'CONFIRMING');
    const dropped = await postJson(`${server.api}/dev/transactions/${sent.txnId}/drop`, {});
    assert.equal(dropped.status, 200);
    assert.deepEqual(dropped.body, { txnId: sent.txnId, dropped: true });
    const reopened = await fetchPayment(payment.id);
    assert.equal(reopened.status, 'OPEN');
    assert.deepEqual(reopened.transactions, []);
    assert.equal(reopened.amountDue, '0.20000000');
    assert.equal(reopened.totalReceivedAmount, '0.00000000');

    await pay(payment, '0.2', 3);
    assert.equal((await fetchPayment(payment.id)).status, 'COMPLETE', 'the payer can pay again');
    await assertLedgerBalanced();
  });

  test('a drop after expiresAt turns a CONFIRMING payment EXPIRED, never OPEN', async () => {
    const payment = await createPayment('0.2', ETH, { timeout: 60 });
    const sent = await pay(payment, '0.2');
    server.clock.advance(120_000);
    await postJson(`${server.api}/dev/transactions/${sent.txnId}/drop`, {});
    assert.equal((await fetchPayment(payment.id)).status, 'EXPIRED');
  });

  test('refuses to drop a confirmed transaction (409) or an unknown one (404)', async () => {
    const payment = await createPayment('0.2', ETH);
    const sent = await pay(payment, '0.2', 1);
    const confirmed = await postJson(`${server.api}/dev/transactions/${sent.txnId}/drop`, {});
    assert.equal(confirmed.status, 409);
    assert.deepEqual(confirmed.body, { error: { code: 'invalid-state', message: 'Only an unconfirmed payer transaction can be dropped.' } });
    const unknown = await postJson(`${server.api}/dev/transactions/0xdeadbeef/drop`, {});
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, { error: { code: 'not-found', message: 'No unconfirmed transaction 0xdeadbeef on any simulated network.' } });
  });
});

describe('withdrawals funded by a payment', () => {
  test('reserve on create, release on cancel, send on approve, COMPLETE at the network\'s confirmations', async () => {
    const merchant = await server.createMerchant('Payout Shop');
    const payouts = merchantApi(server, merchant);
    const shopBalance = async () => {
      await assertLedgerBalanced(merchant, payouts);
      const row = (await payouts.get('/balance')).body.data[0];
      return row && { available: row.available, reserved: row.reserved };
    };
    const funding = (await payouts.post('/payment', { amount: '1', asset: ETH })).body;
    await pay(funding, '1', 3);
    assert.deepEqual(await shopBalance(), { available: '1.00000000', reserved: '0.00000000' });

    const cancelled = (await payouts.post('/withdrawal', { amount: '0.4', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'w-cancel' })).body;
    assert.deepEqual(await shopBalance(), { available: '0.60000000', reserved: '0.40000000' });
    assert.equal((await payouts.post(`/withdrawal/${cancelled.id}/cancel`, {})).body.status, 'CANCELLED');
    assert.deepEqual(await shopBalance(), { available: '1.00000000', reserved: '0.00000000' });

    const withdrawal = (await payouts.post('/withdrawal', { amount: '0.5', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'w-send' })).body;
    assert.deepEqual(await shopBalance(), { available: '0.50000000', reserved: '0.50000000' });
    const approved = (await payouts.post(`/withdrawal/${withdrawal.id}/approve`, {})).body;
    assert.equal(approved.status, 'APPROVED');
    assert.match(approved.txnId, /^0x[0-9a-f]{64}$/);
    assert.ok(addressCodec('ethereum', 'main').isValid(approved.addressFrom));
    assert.equal(approved.receivedAmount, '0.49950000');
    assert.equal(approved.fee, '0.00050000');
    assert.equal(approved.confirmations, 0);
    assert.deepEqual(await shopBalance(), { available: '0.50000000', reserved: '0.00000000' });

    const onChain = await server.services.db.get('SELECT address_from, address_to, amount, block_height FROM sim_transactions WHERE txn_id = ?', [approved.txnId]);
    assert.deepEqual(onChain, { address_from: approved.addressFrom, address_to: ETH_ADDRESS, amount: '0.49950000', block_height: null });

    await mine('ethereum', 2);
    const twoBlocks = (await payouts.get(`/withdrawal/${withdrawal.id}`)).body;
    assert.equal(twoBlocks.status, 'APPROVED');
    assert.equal(twoBlocks.confirmations, 2);
    server.clock.advance(1_000);
    await mine('ethereum');
    const complete = (await payouts.get(`/withdrawal/${withdrawal.id}`)).body;
    assert.deepEqual(complete, { ...approved, status: 'COMPLETE', confirmations: 3, updatedAt: complete.updatedAt });
    assert.ok(Date.parse(complete.updatedAt) > Date.parse(approved.updatedAt));
    assert.deepEqual(await shopBalance(), { available: '0.50000000', reserved: '0.00000000' });

    const rows = await server.services.db.all('SELECT kind, available_delta, reserved_delta, available_after, reserved_after FROM ledger_entries WHERE merchant_id = ? ORDER BY seq', [
      merchant.merchant.id,
    ]);
    assert.deepEqual(rows, [
      { kind: 'payment-credit', available_delta: '1.00000000', reserved_delta: '0.00000000', available_after: '1.00000000', reserved_after: '0.00000000' },
      { kind: 'withdrawal-reserve', available_delta: '-0.40000000', reserved_delta: '0.40000000', available_after: '0.60000000', reserved_after: '0.40000000' },
      { kind: 'withdrawal-release', available_delta: '0.40000000', reserved_delta: '-0.40000000', available_after: '1.00000000', reserved_after: '0.00000000' },
      { kind: 'withdrawal-reserve', available_delta: '-0.50000000', reserved_delta: '0.50000000', available_after: '0.50000000', reserved_after: '0.50000000' },
      { kind: 'withdrawal-send', available_delta: '0.00000000', reserved_delta: '-0.50000000', available_after: '0.50000000', reserved_after: '0.00000000' },
    ]);
    const overdraw = await payouts.post('/withdrawal', { amount: '0.50000001', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'w-over' });
    assert.equal(overdraw.status, 422);
  });

  test('an XRP payout completes after one ledger', async () => {
    const payment = await createPayment('100', XRP);
    const before = (await balance('XRP', 'ripple'))?.available ?? '0';
    await pay(payment, '100', 1);
    const withdrawal = (await api.post('/withdrawal', { amount: '40', asset: XRP, addressTo: XRP_ADDRESS, destTag: '7', invoice: 'xrp-out' })).body;
    await assertLedgerBalanced();
    const approved = (await api.post(`/withdrawal/${withdrawal.id}/approve`, {})).body;
    assert.match(approved.txnId, /^[0-9A-F]{64}$/);
    await assertLedgerBalanced();
    await mine('ripple');
    const complete = (await api.get(`/withdrawal/${withdrawal.id}`)).body;
    assert.equal(complete.status, 'COMPLETE');
    assert.equal(complete.receivedAmount, '39.999988');
    const onChain = await server.services.db.get('SELECT dest_tag FROM sim_transactions WHERE txn_id = ?', [approved.txnId]);
    assert.deepEqual(onChain, { dest_tag: '7' });
    assert.deepEqual(await balance('XRP', 'ripple'), { available: sumDecimal([before, '60'], 6), reserved: '0.000000' });
    await assertLedgerBalanced();
  });

  test('a cancelled or refused withdrawal never reaches the chain', async () => {
    const payment = await createPayment('1', BTC);
    await pay(payment, '1', 2);
    const withdrawal = (await api.post('/withdrawal', { amount: '0.1', asset: BTC, addressTo: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', invoice: 'never-sent' })).body;
    await api.post(`/withdrawal/${withdrawal.id}/cancel`, {});
    await server.services.payouts.sendPending();
    const sent = await server.services.db.get('SELECT COUNT(*) AS n FROM sim_transactions WHERE reference = ?', [withdrawal.id]);
    assert.deepEqual(sent, { n: 0 });
    await mine('bitcoin', 5);
    assert.equal((await api.get(`/withdrawal/${withdrawal.id}`)).body.status, 'CANCELLED');
    await assertLedgerBalanced();
  });
});

describe('the simulator routes', () => {
  test('a payer transaction answers its txnId, a valid payer address and the amount in asset decimals', async () => {
    const payment = await createPayment('2', USDT_ETH);
    const response = await postJson(`${server.api}/dev/transactions`, { address: payment.addressTo, amount: '1.5', asset: USDT_ETH });
    assert.equal(response.status, 200);
    assert.match(response.body.txnId, /^0x[0-9a-f]{64}$/);
    assert.ok(addressCodec('ethereum', 'main').isValid(response.body.addressFrom));
    assert.deepEqual(response.body, {
      txnId: response.body.txnId,
      network: 'ethereum',
      asset: payment.asset,
      addressFrom: response.body.addressFrom,
      addressTo: payment.addressTo,
      destTag: null,
      amount: '1.500000',
      confirmations: 0,
    });
  });

  test('mining answers the new heights, of one network or of all', async () => {
    const before = (await postJson(`${server.api}/dev/blocks`, { network: 'tron' })).body.blocks[0].height;
    assert.deepEqual((await postJson(`${server.api}/dev/blocks`, { network: 'tron', count: 5 })).body, { blocks: [{ network: 'tron', height: before + 5 }] });
    const all = await postJson(`${server.api}/dev/blocks`, {});
    assert.deepEqual(all.body.blocks.map((b: { network: string }) => b.network), ['bitcoin', 'litecoin', 'ethereum', 'tron', 'ripple', 'monero']);
  });

  test('refuses bad simulator requests with the same error contract', async () => {
    const badAddress = await postJson(`${server.api}/dev/transactions`, { address: 'bc1qnotvalid', amount: '1', asset: BTC });
    assert.equal(badAddress.status, 400);
    assert.deepEqual(badAddress.body.error.details, [{ path: 'address', message: 'is not a valid bitcoin address' }]);
    const badBlocks = await postJson(`${server.api}/dev/blocks`, { network: 'dogecoin', count: 0 });
    assert.equal(badBlocks.status, 400);
    assert.deepEqual(badBlocks.body.error.details, [
      { path: 'count', message: 'must be at least 1' },
      { path: 'network', message: 'must be one of bitcoin, litecoin, ethereum, tron, ripple, monero' },
    ]);
    const unknownNetwork = await postJson(`${server.api}/dev/blocks`, { network: 'dogecoin' });
    assert.deepEqual(unknownNetwork.body.error.details, [{ path: 'network', message: 'must be one of bitcoin, litecoin, ethereum, tron, ripple, monero' }]);
  });
});
