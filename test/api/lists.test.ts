/** GET /v2/payment and GET /v2/withdrawal: envelope, order, filters in every array encoding, page and limit bounds. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { merchantApi, postJson, startTestServer, type TestServer } from '../helpers/test-server.ts';

const START = Date.parse('2026-11-21T10:00:00.000Z');
const BTC = { short: 'BTC', network: 'bitcoin' };
const ETH = { short: 'ETH', network: 'ethereum' };
const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

type Api = ReturnType<typeof merchantApi>;
let server: TestServer;
let shop: Api;
/** 21 OPEN payments of `shop`, oldest first, one second apart. */
const payments: Array<{ id: string; invoice: string; createdAt: string }> = [];
/** One payment of `states` per status. */
const byStatus: Record<string, { id: string; txnId?: string }> = {};
let states: Api;
let payouts: Api;
/** 5 withdrawals of `payouts`, oldest first. */
const withdrawals: Array<{ id: string; invoice: string; status: string; txnId: string | null }> = [];

async function pay(api: Api, paymentBody: Record<string, unknown>, confirmations?: number) {
  server.clock.advance(1_000);
  const payment = (await api.post('/payment', paymentBody)).body;
  if (confirmations === undefined) return { id: payment.id as string };
  const sent = await postJson(`${server.api}/dev/transactions`, { address: payment.addressTo, amount: paymentBody.amount, asset: paymentBody.asset, confirmations });
  return { id: payment.id as string, txnId: sent.body.txnId as string };
}

const ids = (list: { body: { data: Array<{ id: string }> } }) => list.body.data.map((r) => r.id);
const newestFirst = <T>(items: T[]) => [...items].reverse();

before(async () => {
  server = await startTestServer();
  server.clock.set(START);
  shop = merchantApi(server, await server.createMerchant('List Shop'));
  for (let i = 0; i < 21; i++) {
    server.clock.advance(1_000);
    const { body } = await shop.post('/payment', { amount: '0.001', asset: BTC, invoice: `inv-${String(i).padStart(2, '0')}` });
    payments.push({ id: body.id, invoice: body.invoice, createdAt: body.createdAt });
  }

  states = merchantApi(server, await server.createMerchant('States Shop'));
  byStatus.EXPIRED_SWEPT = await pay(states, { amount: '1', asset: BTC, timeout: 60 });
  server.clock.advance(61_000);
  assert.equal(await server.services.expirySweep.run(), 1);
  byStatus.EXPIRED_BY_TIME = await pay(states, { amount: '1', asset: BTC, timeout: 60 });
  server.clock.advance(61_000);
  byStatus.OPEN = await pay(states, { amount: '1', asset: BTC });
  byStatus.CONFIRMING = await pay(states, { amount: '1', asset: BTC }, 0);
  byStatus.COMPLETE = await pay(states, { amount: '1', asset: BTC }, 2);

  payouts = merchantApi(server, await server.createMerchant('Payouts Shop'));
  await pay(payouts, { amount: '10', asset: ETH }, 3);
  for (let i = 0; i < 5; i++) {
    server.clock.advance(1_000);
    const { body } = await payouts.post('/withdrawal', { amount: '0.1', asset: ETH, addressTo: ETH_ADDRESS, invoice: `w-${i}` });
    withdrawals.push({ id: body.id, invoice: body.invoice, status: 'OPEN', txnId: null });
  }
  const approved = await payouts.post(`/withdrawal/${withdrawals[1]!.id}/approve`, {});
  Object.assign(withdrawals[1]!, { status: 'APPROVED', txnId: approved.body.txnId });
  await payouts.post(`/withdrawal/${withdrawals[3]!.id}/cancel`, {});
  withdrawals[3]!.status = 'CANCELLED';
});
after(() => server.close());

describe('payment list', () => {
  test('answers the envelope with the first 20, newest first, and the total', async () => {
    const list = await shop.get('/payment');
    assert.equal(list.status, 200);
    assert.deepEqual(Object.keys(list.body), ['data', 'page', 'limit', 'total']);
    assert.equal(list.body.page, 1);
    assert.equal(list.body.limit, 20);
    assert.equal(list.body.total, 21);
    assert.deepEqual(ids(list), newestFirst(payments).slice(0, 20).map((p) => p.id));
    const fetched = await shop.get(`/payment/${payments[20]!.id}`);
    assert.deepEqual(list.body.data[0], fetched.body, 'list items are full payment records');
  });

  test('pages from 1 with the limit given', async () => {
    const second = await shop.get('/payment?page=2&limit=5');
    assert.deepEqual({ ...second.body, data: ids(second) }, { data: newestFirst(payments).slice(5, 10).map((p) => p.id), page: 2, limit: 5, total: 21 });
    const last = await shop.get('/payment?page=5&limit=5');
    assert.deepEqual({ ...last.body, data: ids(last) }, { data: [payments[0]!.id], page: 5, limit: 5, total: 21 });
    const exactlyFull = await shop.get('/payment?page=3&limit=7');
    assert.deepEqual({ ...exactlyFull.body, data: ids(exactlyFull) }, { data: [payments[6]!.id, payments[5]!.id, payments[4]!.id, payments[3]!.id, payments[2]!.id, payments[1]!.id, payments[0]!.id], page: 3, limit: 7, total: 21 });
    const beyond = await shop.get('/payment?page=9&limit=5');
    assert.deepEqual(beyond.body, { data: [], page: 9, limit: 5, total: 21 });
    const largest = await shop.get('/payment?limit=100');
    assert.deepEqual({ ...largest.body, data: largest.body.data.length }, { data: 21, page: 1, limit: 100, total: 21 });
  });

  test('answers every limit from 1 to 100 with that many records and the same total', async () => {
    for (let limit = 1; limit <= 100; limit++) {
      const list = await shop.get(`/payment?limit=${limit}&page=2`);
      const expected = newestFirst(payments).slice(limit, 2 * limit).map((p) => p.id);
      assert.deepEqual({ ...list.body, data: ids(list) }, { data: expected, page: 2, limit, total: 21 }, `limit ${limit}`);
    }
  });

  test('reads ids in any letter case, as UUIDs are case-insensitive', async () => {
    const id = payments[4]!.id;
    const upper = id.toUpperCase();
    assert.notEqual(upper, id);
    const direct = await shop.get(`/payment/${upper}`);
    assert.equal(direct.status, 200);
    assert.equal(direct.body.id, id);
    assert.deepEqual(ids(await shop.get(`/payment?ids=${upper}`)), [id]);
    const payer = await fetch(`${server.api}/checkout/${upper}`);
    assert.equal(payer.status, 200);
    assert.equal(((await payer.json()) as { id: string }).id, id);
    const withdrawal = withdrawals[2]!;
    assert.equal((await payouts.get(`/withdrawal/${withdrawal.id.toUpperCase()}`)).body.id, withdrawal.id);
    assert.deepEqual(ids(await payouts.get(`/withdrawal?ids=${withdrawal.id.toUpperCase()}`)), [withdrawal.id]);
  });

  test('orders payments created at the same instant by id, descending', async () => {
    const api = merchantApi(server, await server.createMerchant('Same Instant Shop'));
    const created: string[] = [];
    for (let i = 0; i < 4; i++) created.push((await api.post('/payment', { amount: '1', asset: BTC })).body.id);
    assert.deepEqual(ids(await api.get('/payment')), [...created].sort().reverse());
  });

  test('filters by ids in repeated keys, brackets, indexed brackets and commas alike', async () => {
    const [a, b, c, d] = [payments[2]!.id, payments[5]!.id, payments[9]!.id, payments[14]!.id];
    const expected = [d, c, b, a];
    for (const query of [
      `ids=${a}&ids=${b}&ids=${c}&ids=${d}`,
      `ids[]=${a}&ids[]=${b}&ids[]=${c}&ids[]=${d}`,
      `ids%5B%5D=${a}&ids%5B%5D=${b}&ids%5B%5D=${c}&ids%5B%5D=${d}`,
      `ids[0]=${a}&ids[1]=${b}&ids[2]=${c}&ids[3]=${d}`,
      `ids=${a},${b},${c},${d}`,
      `ids=${a},${b}&ids[]=${c}&ids[7]=${d}`,
    ]) {
      const list = await shop.get(`/payment?${query}`);
      assert.equal(list.status, 200, query);
      assert.deepEqual(ids(list), expected, query);
      assert.equal(list.body.total, 4, query);
    }
  });

  test('keeps a percent-encoded comma inside an invoice instead of splitting on it', async () => {
    const api = merchantApi(server, await server.createMerchant('Comma Shop'));
    const first = (await api.post('/payment', { amount: '0.001', asset: BTC, invoice: 'inv-00' })).body;
    server.clock.advance(1_000);
    const second = (await api.post('/payment', { amount: '0.001', asset: BTC, invoice: 'order 7, part 2' })).body;
    const list = await api.get(`/payment?invoices=${encodeURIComponent('order 7, part 2')},inv-00`);
    assert.deepEqual(ids(list), [second.id, first.id]);
    const split = await api.get('/payment?invoices=order 7, part 2');
    assert.deepEqual(ids(split), [], 'a literal comma still separates values');
  });

  test('splits ids, statuses and txnIds on a percent-encoded comma too, as URLSearchParams sends them', async () => {
    const wanted = [payments[3]!.id, payments[5]!.id];
    const params = new URLSearchParams({ ids: wanted.join(','), statuses: 'OPEN,EXPIRED' });
    assert.match(params.toString(), /%2C/);
    const list = await shop.get(`/payment?${params}`);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(ids(list), [payments[5]!.id, payments[3]!.id]);
    const settled = await states.get(`/payment?${new URLSearchParams({ statuses: 'COMPLETE,CONFIRMING' })}`);
    assert.deepEqual(new Set(ids(settled)), new Set([byStatus.COMPLETE!.id, byStatus.CONFIRMING!.id]));
    const byTxn = await states.get(`/payment?${new URLSearchParams({ txnIds: `${byStatus.COMPLETE!.txnId},${byStatus.CONFIRMING!.txnId}` })}`);
    assert.deepEqual(new Set(ids(byTxn)), new Set([byStatus.COMPLETE!.id, byStatus.CONFIRMING!.id]));
  });

  test('filters by invoices, a single value as the specification shows it', async () => {
    const list = await shop.get('/payment?invoices=inv-03');
    assert.deepEqual(ids(list), [payments[3]!.id]);
    const two = await shop.get('/payment?invoices[]=inv-03&invoices[]=inv-04&invoices[]=no-such-invoice');
    assert.deepEqual(ids(two), [payments[4]!.id, payments[3]!.id]);
  });

  test('combines filters with AND and values within a filter with OR', async () => {
    const list = await shop.get(`/payment?ids=${payments[3]!.id},${payments[4]!.id}&invoices=inv-04,inv-05`);
    assert.deepEqual(ids(list), [payments[4]!.id]);
  });

  test('filters by txnIds, whose values may look like numbers', async () => {
    const list = await states.get(`/payment?txnIds=${byStatus.COMPLETE!.txnId}`);
    assert.deepEqual(ids(list), [byStatus.COMPLETE!.id]);
    const both = await states.get(`/payment?txnIds[]=${byStatus.COMPLETE!.txnId}&txnIds[]=${byStatus.CONFIRMING!.txnId}&txnIds[]=12345`);
    assert.deepEqual(ids(both), [byStatus.COMPLETE!.id, byStatus.CONFIRMING!.id]);
    const numeric = await states.get('/payment?txnIds=12345&txnIds=67890');
    assert.deepEqual(numeric.body, { data: [], page: 1, limit: 20, total: 0 });
  });

  test('finds a hex transaction id written in either case', async () => {
    const txnId = byStatus.COMPLETE!.txnId!;
    assert.match(txnId, /^(0x)?[0-9a-fA-F]+$/);
    for (const spelling of [txnId.toUpperCase().replace(/^0X/, '0x'), txnId.toLowerCase()]) {
      assert.deepEqual(ids(await states.get(`/payment?txnIds=${spelling}`)), [byStatus.COMPLETE!.id], spelling);
    }
  });

  test('filters by status, counting a payment past its expiry as EXPIRED before any sweep', async () => {
    const expected: Record<string, string[]> = {
      OPEN: [byStatus.OPEN!.id],
      CONFIRMING: [byStatus.CONFIRMING!.id],
      COMPLETE: [byStatus.COMPLETE!.id],
      EXPIRED: [byStatus.EXPIRED_BY_TIME!.id, byStatus.EXPIRED_SWEPT!.id],
    };
    for (const [status, expectedIds] of Object.entries(expected)) {
      const list = await states.get(`/payment?statuses=${status}&page=1&limit=20`);
      assert.deepEqual(ids(list), expectedIds, status);
      assert.equal(list.body.total, expectedIds.length, status);
      for (const payment of list.body.data) assert.equal(payment.status, status);
    }
    const openOrExpired = await states.get('/payment?statuses=OPEN,EXPIRED');
    assert.deepEqual(ids(openOrExpired), [byStatus.OPEN!.id, byStatus.EXPIRED_BY_TIME!.id, byStatus.EXPIRED_SWEPT!.id]);
  });

  test('every combination of statuses, on every page, lists and counts exactly the payments in those statuses, before and after the sweep', async () => {
    const all = ['OPEN', 'CONFIRMING', 'COMPLETE', 'EXPIRED'];
    // Ground truth: each payment's status as GET reports it, newest first.
    const everything = (await states.get('/payment?limit=100')).body.data as Array<{ id: string; status: string }>;
    const check = async (when: string) => {
      for (let mask = 1; mask < 16; mask++) {
        const wanted = all.filter((_, bit) => mask & (1 << bit));
        const expected = everything.filter((p) => wanted.includes(p.status)).map((p) => p.id);
        for (const [page, limit] of [[1, 20], [1, 1], [2, 1], [3, 2]] as const) {
          const list = await states.get(`/payment?statuses=${wanted.join(',')}&page=${page}&limit=${limit}`);
          assert.equal(list.status, 200);
          assert.equal(list.body.total, expected.length, `${when}: total of ${wanted}`);
          assert.deepEqual(ids(list), expected.slice((page - 1) * limit, page * limit), `${when}: ${wanted} page ${page} of ${limit}`);
        }
      }
      assert.equal((await states.get('/payment?limit=1')).body.total, everything.length, `${when}: total without a filter`);
    };
    await check('one OPEN payment past its expiry, not swept');
    await server.services.expirySweep.run();
    const swept = (await states.get('/payment?limit=100')).body.data as Array<{ id: string; status: string }>;
    const statusOf = (list: Array<{ id: string; status: string }>) => list.map((p) => `${p.id} ${p.status}`);
    assert.deepEqual(statusOf(swept), statusOf(everything), 'the sweep changes what is stored, not what is reported');
    await check('after the sweep');
  });

  test('shows one merchant none of another merchant\'s payments, even by id', async () => {
    const list = await states.get(`/payment?ids=${payments[0]!.id}`);
    assert.deepEqual(list.body, { data: [], page: 1, limit: 20, total: 0 });
  });

  test('ignores unknown query parameters', async () => {
    const list = await shop.get('/payment?limit=3&sort=asc&foo=bar&status=EXPIRED');
    assert.equal(list.status, 200);
    assert.deepEqual(ids(list), newestFirst(payments).slice(0, 3).map((p) => p.id));
  });

  test('ignores empty filter values', async () => {
    const list = await shop.get('/payment?ids=&invoices[]=&limit=1');
    assert.equal(list.body.total, 21);
  });
});

describe('withdrawal list', () => {
  test('pages from 0 by default, newest first', async () => {
    const list = await payouts.get('/withdrawal');
    assert.equal(list.status, 200);
    assert.deepEqual({ ...list.body, data: ids(list) }, { data: newestFirst(withdrawals).map((w) => w.id), page: 0, limit: 20, total: 5 });
    const fetched = await payouts.get(`/withdrawal/${withdrawals[4]!.id}`);
    assert.deepEqual(list.body.data[0], fetched.body, 'list items are full withdrawal records');
  });

  test('treats page 0 as the first page and page 1 as the second', async () => {
    const first = await payouts.get('/withdrawal?page=0&limit=2');
    assert.deepEqual({ ...first.body, data: ids(first) }, { data: [withdrawals[4]!.id, withdrawals[3]!.id], page: 0, limit: 2, total: 5 });
    const second = await payouts.get('/withdrawal?page=1&limit=2');
    assert.deepEqual(ids(second), [withdrawals[2]!.id, withdrawals[1]!.id]);
    const third = await payouts.get('/withdrawal?page=2&limit=2');
    assert.deepEqual(ids(third), [withdrawals[0]!.id]);
  });

  test('filters by each status of the withdrawal set', async () => {
    for (const status of ['OPEN', 'APPROVED', 'CANCELLED', 'COMPLETE']) {
      const list = await payouts.get(`/withdrawal?statuses[]=${status}`);
      assert.deepEqual(ids(list), newestFirst(withdrawals).filter((w) => w.status === status).map((w) => w.id), status);
    }
    const both = await payouts.get('/withdrawal?statuses=APPROVED&statuses=CANCELLED');
    assert.deepEqual(ids(both), [withdrawals[3]!.id, withdrawals[1]!.id]);
  });

  test('filters by ids, invoices and txnIds in every encoding', async () => {
    assert.deepEqual(ids(await payouts.get(`/withdrawal?ids[0]=${withdrawals[0]!.id}&ids[1]=${withdrawals[2]!.id}`)), [withdrawals[2]!.id, withdrawals[0]!.id]);
    assert.deepEqual(ids(await payouts.get('/withdrawal?invoices=w-0,w-4')), [withdrawals[4]!.id, withdrawals[0]!.id]);
    assert.deepEqual(ids(await payouts.get(`/withdrawal?txnIds=${withdrawals[1]!.txnId}`)), [withdrawals[1]!.id]);
    assert.deepEqual(ids(await payouts.get('/withdrawal?txnIds[]=1&txnIds[]=2')), []);
    assert.deepEqual(ids(await payouts.get(`/withdrawal?txnIds=${withdrawals[1]!.txnId!.toUpperCase().replace(/^0X/, '0x')}`)), [withdrawals[1]!.id]);
  });

  test('shows one merchant none of another merchant\'s withdrawals', async () => {
    const list = await shop.get('/withdrawal');
    assert.deepEqual(list.body, { data: [], page: 0, limit: 20, total: 0 });
  });
});

describe('refusing bad list parameters', () => {
  function invalid(path: string, message: string) {
    return { error: { code: 'validation-failed', message: `The request has invalid fields: ${path}.`, details: [{ path, message }] } };
  }

  for (const [query, path, message] of [
    ['page=0', 'page', 'must be from 1 to 999999999'],
    ['page=1000000000', 'page', 'must be from 1 to 999999999'],
    ['page=-1', 'page', 'must be a whole number from 1 to 999999999'],
    ['page=1.5', 'page', 'must be a whole number from 1 to 999999999'],
    ['page=', 'page', 'must be a whole number from 1 to 999999999'],
    ['page=1&page=2', 'page', 'must be given once, as a whole number'],
    ['limit=0', 'limit', 'must be from 1 to 100'],
    ['limit=101', 'limit', 'must be from 1 to 100'],
    ['limit=ten', 'limit', 'must be a whole number from 1 to 100'],
    ['statuses=PAID', 'statuses.0', 'each value must be one of OPEN, CONFIRMING, COMPLETE, EXPIRED'],
    ['statuses=OPEN,CANCELLED', 'statuses.1', 'each value must be one of OPEN, CONFIRMING, COMPLETE, EXPIRED'],
    ['statuses=open', 'statuses.0', 'each value must be one of OPEN, CONFIRMING, COMPLETE, EXPIRED'],
    [`ids=${Array.from({ length: 101 }, (_, i) => i).join(',')}`, 'ids', 'at most 100 values'],
  ] as const) {
    test(`payments: refuses ${query.length > 40 ? '101 ids' : query} with 400 validation-failed`, async () => {
      const response = await shop.get(`/payment?${query}`);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, invalid(path, message));
    });
  }

  for (const [query, path, message] of [
    ['page=-1', 'page', 'must be a whole number from 0 to 999999999'],
    ['page=1000000000', 'page', 'must be from 0 to 999999999'],
    ['limit=0', 'limit', 'must be from 1 to 100'],
    ['limit=101', 'limit', 'must be from 1 to 100'],
    ['statuses=EXPIRED', 'statuses.0', 'each value must be one of CANCELLED, OPEN, APPROVED, COMPLETE'],
  ] as const) {
    test(`withdrawals: refuses ${query} with 400 validation-failed`, async () => {
      const response = await payouts.get(`/withdrawal?${query}`);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, invalid(path, message));
    });
  }

  // A known filter in a form the list does not read is refused, never dropped: dropped, it would
  // answer every record the filter meant to leave out.
  for (const [query, path, message] of [
    ['statuses[a]=EXPIRED', 'statuses[a]', 'is not read: write statuses=a,b, statuses=a&statuses=b, statuses[]=a or statuses[0]=a'],
    ['ids[foo]=x&limit=1', 'ids[foo]', 'is not read: write ids=a,b, ids=a&ids=b, ids[]=a or ids[0]=a'],
    ['page[]=2', 'page[]', 'is not read: write page=<value>, once'],
    ['limit[x]=5', 'limit[x]', 'is not read: write limit=<value>, once'],
  ] as const) {
    test(`payments: refuses ${query} with 400 validation-failed`, async () => {
      const response = await shop.get(`/payment?${query}`);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, invalid(path, message));
    });
  }

  test('refunds and withdrawals: refuse a filter in an unread form too', async () => {
    for (const path of ['/refund?statuses[a]=OPEN', '/withdrawal?statuses[a]=OPEN']) {
      const response = await payouts.get(path);
      assert.equal(response.status, 400, path);
      assert.deepEqual(response.body, invalid('statuses[a]', 'is not read: write statuses=a,b, statuses=a&statuses=b, statuses[]=a or statuses[0]=a'));
    }
  });

  test('lists every bad parameter at once', async () => {
    const response = await shop.get('/payment?page=0&limit=500&statuses=NEW');
    assert.equal(response.status, 400);
    assert.deepEqual(response.body.error.details, [
      { path: 'statuses.0', message: 'each value must be one of OPEN, CONFIRMING, COMPLETE, EXPIRED' },
      { path: 'page', message: 'must be from 1 to 999999999' },
      { path: 'limit', message: 'must be from 1 to 100' },
    ]);
  });
});
