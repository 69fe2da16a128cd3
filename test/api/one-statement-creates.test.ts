/**
 * Creates on PostgreSQL: those asked for together (in one turn of the event loop, or while the
 * previous statement of creates ran) are stored by one statement
 * (`PaymentStore.insertManyInOneStatement`), each taking its network's oldest pooled addresses in
 * the order asked, or its own tag on a shared address. A statement is all or nothing, so a create
 * that makes it fail is tried again alone, and fails alone. SQLite shares a commit instead (see
 * group-commit.test.ts), so this runs in the PostgreSQL half only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Merchant } from '../../api/merchants/merchant.store.ts';
import { parseCreatePayment } from '../../api/payments/payment-request.ts';
import { MAX_CREATES_IN_ONE_STATEMENT } from '../../api/payments/payment.service.ts';
import { INSERT_MANY } from '../../api/payments/payment.store.ts';
import { testClusterUrl } from '../helpers/test-database.ts';
import { findNode, type PlanNode } from '../helpers/query-plan.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';

const BTC = { short: 'BTC', network: 'bitcoin' };
const TRX = { short: 'TRX', network: 'tron' };
const XRP = { short: 'XRP', network: 'ripple' };

describe('creates of one turn on PostgreSQL', { skip: testClusterUrl() ? false : 'one-statement creates are PostgreSQL only: runs in the PostgreSQL half' }, () => {
  let server: TestServer;
  let merchant: Merchant;
  /** How many statements stored several creates at once. */
  let sharedStatements = 0;

  before(async () => {
    server = await startTestServer({ env: { ADDRESS_POOL_SIZE: '5' } });
    merchant = (await server.services.merchants.findById((await server.createMerchant('Turn Shop')).merchant.id))!;
    const store = server.services.uow.stores.payments;
    const insertMany = store.insertManyInOneStatement.bind(store);
    store.insertManyInOneStatement = (items) => {
      sharedStatements++;
      return insertMany(items);
    };
    // The shared XRP address, read once, lets XRP creates take a tag without a transaction.
    await create(XRP);
  });
  after(() => server?.close());

  const create = (asset: { short: string; network: string }, owner: Merchant = merchant) =>
    server.services.payments.create(owner, parseCreatePayment(server.services.registry, { amount: '1', asset }));
  const pooled = async (network: string) =>
    (await server.services.db.all<{ address: string }>('SELECT address FROM addresses WHERE network = ? AND payment_id IS NULL ORDER BY id', [network])).map((row) => row.address);
  const receivingOf = async (id: string) =>
    server.services.db.get<{ network: string; address: string; dest_tag: string | null }>('SELECT network, address, dest_tag FROM addresses WHERE payment_id = ?', [id]);

  test('share one statement, and take their networks’ oldest pooled addresses in the order asked', async () => {
    await server.services.addressPool.refill();
    const [bitcoin, tron] = [await pooled('bitcoin'), await pooled('tron')];
    const before = sharedStatements;
    const created = await Promise.all([create(BTC), create(TRX), create(XRP), create(BTC), create(XRP), create(BTC)]);
    assert.equal(sharedStatements, before + 1, 'the six creates of the turn went as one statement');
    assert.deepEqual(
      created.filter((p) => p.asset.network === 'bitcoin').map((p) => p.addressTo),
      bitcoin.slice(0, 3),
    );
    assert.equal(created[1]!.addressTo, tron[0]);
    const [xrpA, xrpB] = [created[2]!, created[4]!];
    assert.equal(xrpA.addressTo, xrpB.addressTo, 'XRP payments share the merchant-wide address');
    assert.notEqual(xrpA.destTag, xrpB.destTag);
    for (const payment of created) {
      const receiving = await receivingOf(payment.id);
      assert.deepEqual(receiving, { network: payment.asset.network, address: payment.addressTo, dest_tag: payment.destTag ?? null });
      assert.equal((await server.services.payments.get(merchant, payment.id)).includes(payment.addressTo), true);
    }
    assert.deepEqual(await pooled('bitcoin'), bitcoin.slice(3));
    // The status counters counted each of them once.
    const open = await server.services.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM payments WHERE merchant_id = ? AND status = 'OPEN'", [merchant.id]);
    assert.equal((await server.services.payments.list(merchant, { statuses: ['OPEN'] })).total, Number(open!.n));
  });

  test('store every create of the turn, unique addresses each, when the pool holds fewer', async () => {
    await server.services.addressPool.refill();
    const bitcoin = await pooled('bitcoin');
    assert.equal(bitcoin.length, 5);
    const created = await Promise.all(Array.from({ length: 8 }, () => create(BTC)));
    const addresses = created.map((p) => p.addressTo);
    assert.equal(new Set(addresses).size, 8, 'no address handed out twice');
    assert.deepEqual(addresses.slice(0, 5), bitcoin, 'the pool’s five went to the first five, in order');
    for (const payment of created) assert.equal((await receivingOf(payment.id))?.address, payment.addressTo);
  });

  test('fail alone: a create the database refuses leaves the others of its turn stored', async () => {
    await server.services.addressPool.refill();
    const claimed = async () =>
      (await server.services.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM addresses WHERE network = 'bitcoin' AND payment_id IS NOT NULL"))!.n;
    const claimedBefore = Number(await claimed());
    const before = sharedStatements;
    const stranger = { ...merchant, id: 'no-such-merchant' };
    const outcomes = await Promise.allSettled([create(BTC), create(BTC, stranger), create(XRP), create(BTC)]);
    assert.equal(sharedStatements, before + 1, 'the four were sent as one statement first');
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    const stored = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    for (const payment of stored) assert.ok(await receivingOf(payment.id), `payment ${payment.id} stored with its address`);
    assert.equal((await server.services.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM payments WHERE merchant_id = 'no-such-merchant'"))!.n, 0);
    // The refused create took no address; the two stored BTC payments took theirs in the order asked.
    assert.equal(Number(await claimed()), claimedBefore + 2);
    const order = await server.services.db.all<{ payment_id: string }>("SELECT payment_id FROM addresses WHERE payment_id IN (?, ?) ORDER BY id", [stored[0]!.id, stored[2]!.id]);
    assert.deepEqual(
      order.map((row) => row.payment_id),
      [stored[0]!.id, stored[2]!.id],
    );
  });

  test(`split a turn of more than ${MAX_CREATES_IN_ONE_STATEMENT} creates over several statements`, async () => {
    await server.services.addressPool.refill();
    const before = sharedStatements;
    const created = await Promise.all(Array.from({ length: MAX_CREATES_IN_ONE_STATEMENT + 5 }, () => create(BTC)));
    assert.equal(new Set(created.map((p) => p.addressTo)).size, created.length, 'no address handed out twice');
    assert.equal(sharedStatements, before + 2);
  });

  test('claim through the pool index, however many addresses were claimed before the free ones', async () => {
    const { db } = server.services;
    // A busy installation's history: 20,000 claimed tron addresses, then 20,000 free ones.
    const rows = (from: number, claimed: boolean) =>
      `INSERT INTO addresses (network, address, payment_id) SELECT 'tron', 'Tplan' || g, ${claimed ? "'plan-' || g" : 'NULL'} FROM generate_series(${from}, ${from + 19_999}) g`;
    try {
      await db.run(rows(1, true));
      await db.run(rows(20_001, false));
      await db.run('ANALYZE addresses');
      const one = (value: unknown) => [value];
      const params = {
        id: one('p'), merchantId: one(merchant.id), assetId: one(1), amount: one('1'), confirmsNeeded: one(1), timeout: one(900), expiresAt: one(1), checkoutUrl: one(null),
        status: one('OPEN'), customerId: one(null), customerName: one(null), customerEmail: one(null), invoice: one(null), createdAt: one(1), updatedAt: one(1),
        priceAmount: one(null), priceCurrency: one(null), rateValue: one(null), rateSources: one(null), rateAt: one(null), tolerancePercent: one('0'),
        network: one('tron'), addressTo: one(null), destTag: one(null),
      };
      const [explained] = await db.all<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${INSERT_MANY}`, params);
      const plan = explained!['QUERY PLAN'][0].Plan;
      const locked = findNode(plan, (node) => node['Node Type'] === 'LockRows');
      assert.ok(locked, JSON.stringify(plan));
      assert.equal(findNode(locked, (node) => node['Relation Name'] === 'addresses')?.['Index Name'], 'addresses_pool', JSON.stringify(locked));
    } finally {
      await db.run("DELETE FROM addresses WHERE address LIKE 'Tplan%'");
    }
  });
});
