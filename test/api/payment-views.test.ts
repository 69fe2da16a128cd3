/**
 * Rendered payment views are reused only while exact: the version the database moves on every
 * change, the bounded cache keyed by it, and reads that see another process's writes and expiry
 * by time alone, on the merchant's record, the merchant's list and the payer's view.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../api/db/database.ts';
import { openPostgresDatabase } from '../../api/db/postgres-database.ts';
import { openSqliteDatabase } from '../../api/db/sqlite-database.ts';
import type { Merchant } from '../../api/merchants/merchant.store.ts';
import { createPaymentService } from '../../api/payments/payment.service.ts';
import { createPaymentViewCache } from '../../api/payments/payment-view-cache.ts';
import { silentLogger } from '../../api/shared/logger.ts';
import { type AnyStores, createUnitOfWork, type UnitOfWork } from '../../api/unit-of-work.ts';
import { merchantApi, openTestStore, startTestServer, type TestServer } from '../helpers/test-server.ts';

const NOW = Date.parse('2026-11-21T10:00:00.000Z');
const BTC = { short: 'BTC', network: 'bitcoin' };

/**
 * A connection of its own to the data a test server (or another connection) runs on, as another
 * service process on the same DATA_DIR or PostgreSQL database would have.
 */
async function openAnotherConnection(target: { databaseUrl: string | undefined; dataDir: string }): Promise<Database> {
  if (target.databaseUrl) return openPostgresDatabase(target.databaseUrl, silentLogger(), { poolSize: 1 });
  return openSqliteDatabase(path.join(target.dataDir, 'checkout.db'));
}

describe('a payment version', () => {
  test('moves with every write to the payment or to its transactions, from any connection', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-version-'));
    const { db, database } = await openTestStore(dir);
    try {
      await db.run(`INSERT INTO merchants (id, name, api_key_hash, secret_key_enc, created_at) VALUES ('m', 'Shop', 'h', 'e', 0)`);
      await db.run(
        `INSERT INTO payments (id, merchant_id, asset_id, amount, address_to, confirms_needed, timeout, expires_at, status, created_at, updated_at)
         VALUES ('p', 'm', 1, '1.00000000', 'bc1q', 2, 3600, 3600000, 'OPEN', 0, 0)`,
      );
      const version = async () => (await db.get<{ version: number }>(`SELECT version FROM payments WHERE id = 'p'`))!.version;
      assert.equal(await version(), 1);
      const steps: Array<[string, string]> = [
        ['a transaction recorded', `INSERT INTO payment_transactions (id, payment_id, txn_id, amount, address_from, address_to, confirmations, late, seen_at) VALUES (7, 'p', 't1', '0.5', 'a', 'bc1q', 0, 0, 1)`],
        ['its confirmations updated', 'UPDATE payment_transactions SET confirmations = 1 WHERE id = 7'],
        ['the status set', `UPDATE payments SET status = 'CONFIRMING', updated_at = 2 WHERE id = 'p'`],
        ['an update that changes no value', `UPDATE payments SET status = status WHERE id = 'p'`],
        ['the transaction dropped', 'DELETE FROM payment_transactions WHERE id = 7'],
      ];
      let expected = 1;
      for (const [what, sql] of steps) {
        assert.equal(await db.run(sql), 1, what);
        expected += 1;
        assert.equal(await version(), expected, what);
      }
      const other = await openAnotherConnection({ databaseUrl: database?.url, dataDir: dir });
      try {
        await other.run(`UPDATE payments SET status = 'OPEN' WHERE id = 'p'`);
      } finally {
        await other.close();
      }
      assert.equal(await version(), expected + 1, 'a write through another connection');
    } finally {
      await db.close();
      await database?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the payment view cache', () => {
  const stamp = (version: number, status: 'OPEN' | 'COMPLETE' = 'OPEN') => ({ version, status, expiresAt: 1_000 });

  test('gives a view back only for the version and the side of expiry it was rendered at', () => {
    const cache = createPaymentViewCache<string>(10);
    cache.set('p', stamp(3), 999, 'open view');
    assert.equal(cache.get('p', stamp(3), 500), 'open view');
    assert.equal(cache.get('p', stamp(4), 500), undefined, 'another version');
    assert.equal(cache.get('p', stamp(3), 1_000), undefined, 'expiry passed since');
    assert.equal(cache.get('q', stamp(3), 500), undefined, 'another payment');
    cache.set('p', stamp(3), 1_000, 'expired view');
    assert.equal(cache.get('p', stamp(3), 5_000), 'expired view');
    assert.equal(cache.get('p', stamp(3), 999), undefined, 'a clock set back before the expiry');
    cache.set('c', stamp(1, 'COMPLETE'), 10, 'complete view');
    assert.equal(cache.get('c', stamp(1, 'COMPLETE'), 10_000_000), 'complete view', 'time does not touch a settled payment');
  });

  test('holds at most its capacity, dropping the least recently used first', () => {
    const cache = createPaymentViewCache<string>(2);
    cache.set('a', stamp(1), 0, 'A');
    cache.set('b', stamp(1), 0, 'B');
    assert.equal(cache.get('a', stamp(1), 0), 'A');
    cache.set('c', stamp(1), 0, 'C');
    assert.equal(cache.size(), 2);
    assert.equal(cache.get('b', stamp(1), 0), undefined, 'b was the least recently used');
    assert.equal(cache.get('a', stamp(1), 0), 'A');
    assert.equal(cache.get('c', stamp(1), 0), 'C');
    const none = createPaymentViewCache<string>(0);
    none.set('a', stamp(1), 0, 'A');
    assert.equal(none.size(), 0);
  });
});

describe('reads of a payment after a cached read', () => {
  let server: TestServer;
  let api: ReturnType<typeof merchantApi>;
  let merchant: Merchant;

  before(async () => {
    server = await startTestServer();
    server.clock.set(NOW);
    const shop = await server.createMerchant('Views Shop');
    merchant = shop.merchant;
    api = merchantApi(server, shop);
  });
  after(() => server.close());

  async function readAll(id: string, invoice: string) {
    const record = await api.get(`/payment/${id}`);
    const list = await api.get(`/payment?invoices=${invoice}`);
    const payer = await fetch(`${server.api}/checkout/${id}`);
    assert.equal(record.status, 200);
    assert.equal(list.status, 200);
    assert.equal(payer.status, 200);
    return { record: record.body, listed: list.body.data[0], payer: await payer.json(), etag: payer.headers.get('etag')! };
  }

  test("show what another process wrote: a transaction, its confirmations and the status", async () => {
    const created = (await api.post('/payment', { amount: '0.5', asset: BTC, invoice: 'other-process' })).body;
    const before = await readAll(created.id, 'other-process');
    assert.equal(before.record.status, 'OPEN');
    assert.deepEqual(before.listed, before.record);
    assert.equal((await fetch(`${server.api}/checkout/${created.id}`, { headers: { 'If-None-Match': before.etag } })).status, 304);

    // Another service process on the same data records the payer's transaction.
    const other = await openAnotherConnection({ databaseUrl: server.services.config.databaseUrl, dataDir: server.dataDir });
    try {
      await other.run(
        `INSERT INTO payment_transactions (payment_id, txn_id, amount, address_from, address_to, confirmations, late, seen_at)
         VALUES (?, ?, '0.50000000', 'bc1qsender', ?, 0, 0, ?)`,
        [created.id, `f${randomBytes(31).toString('hex')}`, created.addressTo, NOW],
      );
      await other.run(`UPDATE payments SET status = 'CONFIRMING', updated_at = ? WHERE id = ?`, [NOW + 1, created.id]);
      const seen = await readAll(created.id, 'other-process');
      for (const view of [seen.record, seen.listed, seen.payer]) {
        assert.equal(view.status, 'CONFIRMING');
        assert.equal(view.totalReceivedAmount, '0.50000000');
        assert.equal(view.amountDue, '0.00000000');
        assert.equal(view.transactions.length, 1);
        assert.equal(view.transactions[0].confirmations, 0);
      }
      assert.notEqual(seen.etag, before.etag);
      assert.equal((await fetch(`${server.api}/checkout/${created.id}`, { headers: { 'If-None-Match': before.etag } })).status, 200);

      // Only a transaction's confirmations change: no payment column is written.
      await other.run('UPDATE payment_transactions SET confirmations = 1 WHERE payment_id = ?', [created.id]);
      const confirmed = await readAll(created.id, 'other-process');
      for (const view of [confirmed.record, confirmed.listed, confirmed.payer]) assert.equal(view.transactions[0].confirmations, 1);
      assert.notEqual(confirmed.etag, seen.etag);
    } finally {
      await other.close();
    }
  });

  test('show what this process wrote at once, however many reads came before', async () => {
    const created = (await api.post('/payment', { amount: '0.5', asset: BTC, invoice: 'this-process' })).body;
    for (let i = 0; i < 3; i++) assert.equal((await readAll(created.id, 'this-process')).record.status, 'OPEN');
    const paid = await fetch(`${server.api}/dev/transactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: created.addressTo, amount: '0.5', asset: BTC, confirmations: 0 }),
    });
    assert.equal(paid.status, 200);
    const seen = await readAll(created.id, 'this-process');
    for (const view of [seen.record, seen.listed, seen.payer]) {
      assert.equal(view.status, 'CONFIRMING');
      assert.equal(view.transactions.length, 1);
    }
  });

  test("read all at once (one shared query on PostgreSQL), each answers with its own payment, and another merchant's or an unknown id with 404", async () => {
    const other = merchantApi(server, await server.createMerchant('Other Views Shop'));
    const mine = await Promise.all(Array.from({ length: 40 }, (_, i) => api.post('/payment', { amount: `0.${i + 1}`, asset: BTC, invoice: `at-once-${i}` })));
    const theirs = (await other.post('/payment', { amount: '0.7', asset: BTC, invoice: 'theirs' })).body;
    const unknown = '3f1c2a4e-9b7d-4c1e-8a2f-5d6e7f8a9b0c';
    const [records, views, refused] = await Promise.all([
      Promise.all(mine.map((created) => api.get(`/payment/${created.body.id}`))),
      Promise.all(mine.map(async (created) => (await fetch(`${server.api}/checkout/${created.body.id}`)).json())),
      Promise.all([api.get(`/payment/${theirs.id}`), api.get(`/payment/${unknown}`), fetch(`${server.api}/checkout/${unknown}`)]),
    ]);
    mine.forEach((created, i) => {
      assert.equal(records[i]!.status, 200);
      assert.deepEqual(records[i]!.body, created.body);
      const view = views[i] as { id: string; amount: string };
      assert.equal(view.id, created.body.id);
      assert.equal(view.amount, created.body.amount);
    });
    assert.deepEqual(
      refused.map((r) => r.status),
      [404, 404, 404],
    );

    // The same reads in one turn of the event loop, straight to the use cases: on PostgreSQL they go
    // as one stamp query (the records' and the payer views' readers share it), and ownership is
    // still checked on each answer it carried.
    const stampStore = server.services.uow.stores.payments;
    const asked: string[][] = [];
    const ownedStampsOf = stampStore.ownedStampsOf.bind(stampStore);
    stampStore.ownedStampsOf = (ids) => {
      asked.push([...ids]);
      return ownedStampsOf(ids);
    };
    try {
      const first = mine[0]!.body;
      const settled = await Promise.allSettled([
        ...mine.slice(0, 5).map((created) => server.services.payments.get(merchant, created.body.id)),
        server.services.payments.get(merchant, first.id),
        server.services.payments.get(merchant, theirs.id),
        server.services.payments.get(merchant, unknown),
        ...mine.slice(0, 5).map((created) => server.services.checkout.snapshot(created.body.id)),
        server.services.checkout.snapshot(theirs.id),
      ]);
      const answers = settled.map((s) => (s.status === 'rejected' ? (s.reason as { code: string }).code : JSON.parse(typeof s.value === 'string' ? s.value : s.value.text).id));
      assert.deepEqual(answers, [...mine.slice(0, 5).map((c) => c.body.id), first.id, 'payment-not-found', 'payment-not-found', ...mine.slice(0, 5).map((c) => c.body.id), theirs.id]);
      if (server.store === 'postgres') assert.equal(asked.length, 1, `stamp queries: ${JSON.stringify(asked)}`);
    } finally {
      stampStore.ownedStampsOf = ownedStampsOf;
    }
  });

  test('turn OPEN into EXPIRED at expiresAt with no write at all', async () => {
    const created = (await api.post('/payment', { amount: '0.1', asset: BTC, invoice: 'by-time', timeout: 60 })).body;
    server.clock.set(Date.parse(created.expiresAt) - 1);
    const open = await readAll(created.id, 'by-time');
    for (const view of [open.record, open.listed, open.payer]) assert.equal(view.status, 'OPEN');
    assert.equal((await api.get('/payment?invoices=by-time&statuses=OPEN')).body.total, 1);

    server.clock.set(Date.parse(created.expiresAt));
    const expired = await readAll(created.id, 'by-time');
    for (const view of [expired.record, expired.listed, expired.payer]) assert.equal(view.status, 'EXPIRED');
    assert.notEqual(expired.etag, open.etag);
    assert.equal((await api.get('/payment?invoices=by-time&statuses=OPEN')).body.total, 0);
    assert.equal((await api.get('/payment?invoices=by-time&statuses=EXPIRED')).body.total, 1);
    server.clock.set(NOW);
  });

  test('serve the payer view with the current server time on every read', async () => {
    const created = (await api.post('/payment', { amount: '0.1', asset: BTC, invoice: 'server-time' })).body;
    const first = (await (await fetch(`${server.api}/checkout/${created.id}`)).json()) as { serverTime: string };
    server.clock.advance(1_234);
    const second = (await (await fetch(`${server.api}/checkout/${created.id}`)).json()) as { serverTime: string };
    assert.equal(Date.parse(second.serverTime) - Date.parse(first.serverTime), 1_234);
    assert.deepEqual({ ...second, serverTime: null }, { ...first, serverTime: null });
    server.clock.set(NOW);
  });
});

describe('a payment list read while another process writes', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    server.clock.set(NOW);
  });
  after(() => server.close());

  test("lists asked in one turn each answer with their own merchant's payments (on SQLite from one read transaction), and fail together only if it does", async () => {
    const shopA = await server.createMerchant('Turn Shop A');
    const shopB = await server.createMerchant('Turn Shop B');
    // A second apart, so that newest first is one order.
    const create = async (shop: typeof shopA, invoice: string) => {
      server.clock.advance(1_000);
      assert.equal((await merchantApi(server, shop).post('/payment', { amount: '0.001', asset: BTC, invoice })).status, 200);
    };
    for (let i = 0; i < 3; i++) await create(shopA, `turn-a-${i}`);
    for (let i = 0; i < 2; i++) await create(shopB, `turn-b-${i}`);
    const { payments, uow } = server.services;
    const snapshot = uow.snapshot;
    let snapshots = 0;
    uow.snapshot = (work) => {
      snapshots++;
      return snapshot(work);
    };
    try {
      const lists = await Promise.all([
        payments.list(shopA.merchant, {}),
        payments.list(shopB.merchant, {}),
        payments.list(shopA.merchant, { invoices: ['turn-a-1'] }),
        payments.list(shopB.merchant, { invoices: ['turn-a-1'] }),
        payments.list(shopA.merchant, { statuses: ['OPEN'], limit: 2 }),
      ]);
      const invoices = lists.map((list) => [list.total, ...list.data.map((record) => (JSON.parse(record) as { invoice: string }).invoice)]);
      assert.deepEqual(invoices, [[3, 'turn-a-2', 'turn-a-1', 'turn-a-0'], [2, 'turn-b-1', 'turn-b-0'], [1, 'turn-a-1'], [0], [3, 'turn-a-2', 'turn-a-1']]);
      if (server.store === 'sqlite') assert.equal(snapshots, 1, 'one read transaction for the turn');

      uow.snapshot = () => Promise.reject(new Error('disk I/O error'));
      const settled = await Promise.allSettled([payments.list(shopA.merchant, {}), payments.list(shopB.merchant, {})]);
      if (server.store === 'sqlite') assert.deepEqual(settled.map((s) => s.status === 'rejected' && (s.reason as Error).message), ['disk I/O error', 'disk I/O error']);
    } finally {
      uow.snapshot = snapshot;
    }
    assert.equal((await payments.list(shopB.merchant, {})).total, 2, 'the next turn reads again');
  });

  test('shows one moment: the total, the records and their statuses agree', async () => {
    const keys = await server.createMerchant('Busy Shop');
    const api = merchantApi(server, keys);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await api.post('/payment', { amount: '0.001', asset: BTC, invoice: `busy-${i}` })).body.id);

    // A payment service whose stores let another process complete a payment right after each
    // page is read, before anything else is.
    const { db, registry, addressPool, config } = server.services;
    const other = await openAnotherConnection({ databaseUrl: config.databaseUrl, dataDir: server.dataDir });
    let completed = 0;
    let pagesRead = 0;
    const raced = <S extends AnyStores>(stores: S): S => {
      const store = stores.payments;
      const afterPage = async <T>(result: T): Promise<T> => {
        pagesRead++;
        if (completed < ids.length) assert.equal(await other.run(`UPDATE payments SET status = 'COMPLETE' WHERE id = ?`, [ids[completed++]]), 1);
        return result;
      };
      const page = store.page.bind(store);
      store.page = async (...args) => afterPage(await page(...args));
      // The pages of one turn's lists, read together (PostgreSQL).
      const pages = store.pages.bind(store);
      store.pages = (requests) => pages(requests).map((read) => read.then(afterPage));
      return stores;
    };
    const base = createUnitOfWork(db);
    const uow: UnitOfWork = {
      stores: raced(base.stores),
      shared: base.shared,
      changeGeneration: () => base.changeGeneration(),
      transaction: (work) => base.transaction((stores) => work(raced(stores))),
      snapshot: (work) => base.snapshot((stores) => work(raced(stores))),
      grouped: (work) => base.grouped((stores) => work(raced(stores))),
    };
    const payments = createPaymentService({ uow, registry, addressPool, clock: server.clock, publicUrl: server.url, paymentTimeoutSeconds: 3600, rates: server.services.rates, paymentTolerancePercent: '0' });
    try {
      for (const limit of ['20', '5']) {
        const completedBefore = completed;
        const page = await payments.list(keys.merchant, { statuses: ['OPEN'], limit: Number(limit) });
        const list = { ...page, data: page.data.map((record) => JSON.parse(record) as { status: string }) };
        assert.ok(
          list.data.every((p) => p.status === 'OPEN'),
          `an OPEN-only page shows ${list.data.map((p) => p.status).join(', ')}`,
        );
        if (limit === '20') assert.equal(list.total, list.data.length, 'a page holding every match counts exactly what it shows');
        else assert.equal(list.data.length, 5);
        // On SQLite the page is read in the turn's read transaction, and a write made during it is
        // not seen; on PostgreSQL the write between the first page and the snapshot is.
        assert.ok(list.total <= 20 - completedBefore, `a write completed before the list began is seen (total ${list.total})`);
        if (server.store === 'postgres') assert.ok(list.total < 20 - completedBefore, 'the write before the snapshot is seen');
      }
      assert.ok(pagesRead >= 2, 'another process wrote between reads');
    } finally {
      await other.close();
    }
  });
});
