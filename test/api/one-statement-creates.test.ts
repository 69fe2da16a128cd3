/**
 * Creates on PostgreSQL: those asked for together (in one turn of the event loop, or while the
 * previous statement of creates ran) are stored by one statement
 * (`PaymentStore.insertManyInOneStatement`), each taking its network's oldest pooled addresses in
 * the order asked, or its own tag on a shared address. A statement is all or nothing, so a create
 * that makes it fail is tried again alone, and fails alone. SQLite shares a commit instead (see
 * group-commit.test.ts), so this runs in the PostgreSQL half only.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openPostgresDatabase } from '../../api/db/postgres-database.ts';
import type { Merchant } from '../../api/merchants/merchant.store.ts';
import { parseCreatePayment } from '../../api/payments/payment-request.ts';
import { MAX_CREATES_IN_ONE_STATEMENT } from '../../api/payments/payment.service.ts';
import { INSERT_MANY, type NewPayment, PaymentStore } from '../../api/payments/payment.store.ts';
import { silentLogger } from '../../api/shared/logger.ts';
import { testClusterUrl } from '../helpers/test-database.ts';
import { findNode, type PlanNode } from '../helpers/query-plan.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';

const BTC = { short: 'BTC', network: 'bitcoin' };
const TRX = { short: 'TRX', network: 'tron' };
const XRP = { short: 'XRP', network: 'ripple' };

describe('creates asked for together on PostgreSQL', { skip: testClusterUrl() ? false : 'one-statement creates are PostgreSQL only: runs in the PostgreSQL half' }, () => {
  let server: TestServer;
  let merchant: Merchant;
  /** The creates of each statement that stored several at once, by asset network. */
  const groups: string[][] = [];
  const sharedStatements = () => groups.length;

  before(async () => {
    server = await startTestServer({ env: { ADDRESS_POOL_SIZE: '5' } });
    merchant = (await server.services.merchants.findById((await server.createMerchant('Turn Shop')).merchant.id))!;
    const store = server.services.uow.stores.payments;
    const insertMany = store.insertManyInOneStatement.bind(store);
    store.insertManyInOneStatement = (items) => {
      groups.push(items.map((item) => item.receiving.network));
      return insertMany(items);
    };
    // The shared XRP address, read once, lets XRP creates take a tag without a transaction.
    await create(XRP);
  });
  after(() => server?.close());

  const newPayment = (assetId: number, id: string, expiresAt: number): Omit<NewPayment, 'addressTo' | 'destTag'> => ({
    id, merchantId: merchant.id, assetId, amount: '1', confirmsNeeded: 1, timeout: 900, expiresAt, checkoutUrl: null, status: 'OPEN', customer: null,
    invoice: null, createdAt: Date.now(), updatedAt: Date.now(), price: null, rate: null, tolerancePercent: '0',
  });
  const create = (asset: { short: string; network: string }, owner: Merchant = merchant) =>
    server.services.payments.create(owner, parseCreatePayment(server.services.registry, { amount: '1', asset }));
  const pooled = async (network: string) =>
    (await server.services.db.all<{ address: string }>('SELECT address FROM addresses WHERE network = ? AND payment_id IS NULL ORDER BY id', [network])).map((row) => row.address);
  const receivingOf = async (id: string) =>
    server.services.db.get<{ network: string; address: string; dest_tag: string | null }>('SELECT network, address, dest_tag FROM addresses WHERE payment_id = ?', [id]);

  test('asked for together, share one statement, and take their networks’ oldest pooled addresses in the order asked', async () => {
    await server.services.addressPool.refill();
    const [bitcoin, tron] = [await pooled('bitcoin'), await pooled('tron')];
    const before = sharedStatements();
    const created = await Promise.all([create(BTC), create(TRX), create(XRP), create(BTC), create(XRP), create(BTC)]);
    assert.equal(sharedStatements(), before + 1, 'the six creates went as one statement');
    assert.deepEqual(groups.at(-1), ['bitcoin', 'tron', 'ripple', 'bitcoin', 'ripple', 'bitcoin']);
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

  test('store every create of a statement, unique addresses each, when the pool holds fewer', async () => {
    await server.services.addressPool.refill();
    const bitcoin = await pooled('bitcoin');
    assert.equal(bitcoin.length, 5);
    const created = await Promise.all(Array.from({ length: 8 }, () => create(BTC)));
    const addresses = created.map((p) => p.addressTo);
    assert.equal(new Set(addresses).size, 8, 'no address handed out twice');
    assert.deepEqual(addresses.slice(0, 5), bitcoin, 'the pool’s five went to the first five, in order');
    for (const payment of created) assert.equal((await receivingOf(payment.id))?.address, payment.addressTo);
  });

  test('fail alone: a create the database refuses leaves the others of its statement stored', async () => {
    await server.services.addressPool.refill();
    const claimed = async () =>
      (await server.services.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM addresses WHERE network = 'bitcoin' AND payment_id IS NOT NULL"))!.n;
    const claimedBefore = Number(await claimed());
    const before = sharedStatements();
    const stranger = { ...merchant, id: 'no-such-merchant' };
    const outcomes = await Promise.allSettled([create(BTC), create(BTC, stranger), create(XRP), create(BTC)]);
    assert.equal(sharedStatements(), before + 1, 'the four were sent as one statement first');
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    const stored = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    for (const payment of stored) assert.ok(await receivingOf(payment.id), `payment ${payment.id} stored with its address`);
    assert.equal((await server.services.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM payments WHERE merchant_id = 'no-such-merchant'"))!.n, 0);
    // The refused create took no address; the two stored BTC payments took one each.
    assert.equal(Number(await claimed()), claimedBefore + 2);
    assert.notEqual(stored[0]!.addressTo, stored[2]!.addressTo);
  });

  test('store nothing for a tag already recorded for another payment: alone or in a statement of several, the others are stored', async () => {
    await server.services.addressPool.refill();
    const store = server.services.uow.stores.payments;
    const shared = (await create(XRP)).addressTo;
    const ripple = (await server.services.db.get<{ id: number }>("SELECT id FROM assets WHERE short = 'XRP' AND network = 'ripple'"))!.id;
    const bitcoin = (await server.services.db.get<{ id: number }>("SELECT id FROM assets WHERE short = 'BTC' AND network = 'bitcoin'"))!.id;
    const owner = (await create(BTC)).id;
    const taken = String(4_000_000_000 + Math.floor(Math.random() * 1_000_000));
    await server.services.db.run('INSERT INTO addresses (network, address, dest_tag, derivation_index, payment_id) VALUES (?, ?, ?, NULL, ?)', ['ripple', shared, taken, owner]);
    const tagged = (destTag: string) => ({ network: 'ripple', pooled: false, address: shared, destTag }) as const;
    const expiresAt = Date.now() + 900_000;

    const alone = newPayment(ripple, randomUUID(), expiresAt);
    assert.equal(await store.insertInOneStatement(alone, tagged(taken)), undefined);
    const free = String(Number(taken) + 1);
    const items = [
      { payment: newPayment(bitcoin, randomUUID(), expiresAt), receiving: { network: 'bitcoin', pooled: true } as const },
      { payment: newPayment(ripple, randomUUID(), expiresAt), receiving: tagged(taken) },
      { payment: newPayment(ripple, randomUUID(), expiresAt), receiving: tagged(free) },
    ];
    const stored = await store.insertManyInOneStatement(items);
    assert.equal(stored[1], undefined, 'the recorded tag stored nothing');
    assert.equal(stored[2]?.destTag, free);
    assert.ok(stored[0]?.addressTo);
    const rows = await server.services.db.all<{ id: string }>('SELECT id FROM payments WHERE id IN (?, ?, ?, ?)', [alone.id, ...items.map((item) => item.payment.id)]);
    assert.deepEqual(rows.map((row) => row.id).sort(), [items[0]!.payment.id, items[2]!.payment.id].sort());
    assert.deepEqual(await server.services.db.all<{ payment_id: string }>("SELECT payment_id FROM addresses WHERE network = 'ripple' AND dest_tag = ?", [taken]), [{ payment_id: owner }]);
    assert.equal((await receivingOf(items[2]!.payment.id))?.dest_tag, free);
  });

  test(`split more than ${MAX_CREATES_IN_ONE_STATEMENT} creates asked for together over several statements`, async () => {
    await server.services.addressPool.refill();
    const before = sharedStatements();
    const created = await Promise.all(Array.from({ length: MAX_CREATES_IN_ONE_STATEMENT + 5 }, () => create(BTC)));
    assert.equal(new Set(created.map((p) => p.addressTo)).size, created.length, 'no address handed out twice');
    assert.deepEqual(
      groups.slice(before).map((group) => group.length),
      [MAX_CREATES_IN_ONE_STATEMENT, 5],
    );
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

  test('do not deadlock with a create stored alone elsewhere, whatever minutes the group expires in', async () => {
    await server.services.addressPool.refill();
    // Another instance: its own connections to the same database.
    const elsewhere = await openPostgresDatabase(server.services.config.databaseUrl!, silentLogger(), { poolSize: 2 });
    const holder = new pg.Client({ connectionString: server.services.config.databaseUrl! });
    await holder.connect();
    try {
      const bitcoin = (await server.services.db.get<{ id: number }>("SELECT id FROM assets WHERE short = 'BTC' AND network = 'bitcoin'"))!.id;
      const slot = 7;
      const minute = Math.floor(Date.now() / 60_000) + 20;
      const expiring = (k: number) => (minute + k) * 60_000 + 1_000;
      const pooled = { network: 'bitcoin', pooled: true } as const;
      // A transaction holds the group's second minute for a moment, so the group and the lone
      // create overlap the way concurrent traffic makes them do by chance.
      await holder.query('BEGIN');
      await holder.query('INSERT INTO open_payment_expiries AS c (merchant_id, minute, slot, n) VALUES ($1, $2, $3, 0) ON CONFLICT (merchant_id, minute, slot) DO UPDATE SET n = c.n', [merchant.id, minute + 1, slot]);
      const group = server.services.uow.stores.payments.insertManyInOneStatement([0, 1, 2].map((k) => ({ payment: newPayment(bitcoin, idInSlot(slot), expiring(k)), receiving: pooled })));
      await pause(200);
      const alone = new PaymentStore(elsewhere).insertInOneStatement(newPayment(bitcoin, idInSlot(slot), expiring(2)), pooled);
      await pause(200);
      await holder.query('COMMIT');
      const [grouped, single] = await Promise.allSettled([group, alone]);
      assert.equal(grouped.status, 'fulfilled', String((grouped as PromiseRejectedResult).reason));
      assert.equal(single.status, 'fulfilled', String((single as PromiseRejectedResult).reason));
      assert.equal((grouped as PromiseFulfilledResult<unknown[]>).value.filter(Boolean).length, 3, 'the pool had five addresses: the group stored its three');
      assert.ok((single as PromiseFulfilledResult<unknown>).value, 'the lone create was stored');
    } finally {
      await holder.end();
      await elsewhere.close();
    }
  });

  test('are not held up by a statement of another merchant waiting on a lock', async () => {
    const other = (await server.services.merchants.findById((await server.createMerchant('Other Shop')).merchant.id))!;
    await create(XRP, other);
    const holder = new pg.Client({ connectionString: server.services.config.databaseUrl! });
    await holder.connect();
    try {
      // A transaction holding every OPEN count of `other` (as the expiry sweep does while it runs).
      await holder.query('BEGIN');
      await holder.query(
        `INSERT INTO payment_status_counts AS c (merchant_id, status, slot, n) SELECT $1, 'OPEN', g, 0 FROM generate_series(0, 63) g
         ON CONFLICT (merchant_id, status, slot) DO UPDATE SET n = c.n`,
        [other.id],
      );
      const held = create(XRP, other);
      await pause(50);
      const mine = create(XRP);
      const outcome = await Promise.race([mine.then(() => 'stored'), pause(1_000).then(() => 'still waiting after 1 s')]);
      await holder.query('COMMIT');
      assert.equal(outcome, 'stored', 'a create of another merchant is not held up behind the waiting statement');
      assert.ok((await mine).id);
      assert.ok((await held).id, 'the held create is stored once the lock is released');
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.end();
    }
  });
});

/** A payment id whose counter slot (migration 0103's payment_counter_slot) is `slot`. */
function idInSlot(slot: number): string {
  for (;;) {
    const id = randomUUID();
    if (createHash('md5').update(id).digest()[0]! % 64 === slot) return id;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
