/**
 * Requests answered in the same turn of the event loop. The reads of one turn wait for one
 * change-generation ask (SQLite) or one stamp query (PostgreSQL) and then go on together, so one
 * request's statements run between another's. Each request here starts in its own timer callback,
 * as requests on separate connections start in their own I/O callbacks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DatabaseUnavailable, type Params, type Sql } from '../../api/db/database.ts';
import { parseCreatePayment } from '../../api/payments/payment-request.ts';
import { type PageRequest, PaymentStore } from '../../api/payments/payment.store.ts';
import { createServices } from '../../api/services.ts';
import { silentLogger } from '../../api/shared/logger.ts';
import type { Merchant } from '../../api/merchants/merchant.store.ts';
import { startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';

/** Starts each call in a timer callback of its own, all in the same turn; settles like Promise.allSettled. */
function apart<T>(calls: Array<() => Promise<T>>): Promise<Array<PromiseSettledResult<T>>> {
  return Promise.allSettled(calls.map((call) => new Promise<T>((resolve, reject) => setTimeout(() => call().then(resolve, reject), 0))));
}
const outcome = (result: PromiseSettledResult<unknown>) => (result.status === 'fulfilled' ? 'answered' : `${(result.reason as Error).name}: ${(result.reason as Error).message}`);

describe('requests answered in the same turn', () => {
  let server: TestServer;
  let shop: TestMerchant;
  let merchant: Merchant;
  let ids: string[];

  before(async () => {
    server = await startTestServer();
    shop = await server.createMerchant('Same Turn Shop');
    merchant = (await server.services.merchants.authenticate(shop.apiKey))!.merchant;
    ids = [];
    for (const amount of ['0.01', '0.02', '0.03']) {
      const input = parseCreatePayment(server.services.registry, { amount, asset: { short: 'BTC', network: 'bitcoin' } });
      ids.push((await server.services.payments.create(merchant, input)).id);
    }
  });
  after(() => server.close());

  test("answers every payer's first view after a restart, though each looks its merchant up", async () => {
    // A new process over the same store: the merchant is looked up after each view's read
    // transaction, while another view's may hold SQLite's only connection.
    const { services } = server;
    const restarted = await createServices({ db: services.db, config: services.config, clock: server.clock, logger: silentLogger(), serverKey: server.serverKey });
    try {
      const views = await apart(ids.map((id) => () => restarted.checkout.snapshot(id)));
      assert.deepEqual(views.map(outcome), ['answered', 'answered', 'answered']);
      for (const view of views) assert.equal(view.status === 'fulfilled' && view.value.view.merchant.name, 'Same Turn Shop');
    } finally {
      await restarted.close();
    }
  });

  test("answers receipt pages (the view, then the payer's language) and the locale a payer picks", async () => {
    const { checkout } = server.services;
    const receipts = await apart(
      ids.map((id) => async () => {
        const { view } = await checkout.snapshot(id);
        return checkout.payerLocaleOf(view.id);
      }),
    );
    assert.deepEqual(receipts.map(outcome), ['answered', 'answered', 'answered']);
    const picked = await apart(
      ids.map((id) => async () => {
        await checkout.snapshot(id);
        await checkout.rememberLocale(id, 'de');
        return checkout.payerLocaleOf(id);
      }),
    );
    assert.deepEqual(
      picked.map((result) => (result.status === 'fulfilled' ? result.value : outcome(result))),
      ['de', 'de', 'de'],
    );
  });

  test("never keeps a record showing the merchant's old profile after an edit", async () => {
    const { merchants, payments } = server.services;
    const before = await payments.get(merchant, ids[1]!);
    assert.equal(JSON.parse(before).merchant.name, 'Same Turn Shop');
    // A read authenticated before the edit, the edit, and a read after it, in the same turn: the
    // first is answered with the merchant it found, but its rendering must not outlive the edit.
    const renamed = { name: 'Renamed Shop', email: 'owner@shop.example', siteUrl: 'shop.example', logoUrl: 'https://shop.example/logo.png' };
    const answers = await apart<unknown>([
      () => payments.get(merchant, ids[0]!),
      () => merchants.updateProfile(merchant.id, renamed),
      async () => payments.get((await merchants.authenticate(shop.apiKey))!.merchant, ids[1]!),
    ]);
    assert.deepEqual(answers.map(outcome), ['answered', 'answered', 'answered']);
    const current = (await merchants.authenticate(shop.apiKey))!.merchant;
    for (const id of ids) assert.equal(JSON.parse(await payments.get(current, id)).merchant.name, 'Renamed Shop', `record ${id}`);
    const list = await payments.list(current, {});
    assert.deepEqual(
      list.data.map((record) => JSON.parse(record).merchant.name),
      ids.map(() => 'Renamed Shop'),
    );
  });

  test('never keeps a record rendered with a merchant read before an edit, by a request that began after it', async () => {
    // A merchant read while an edit committed is used once: the request that holds it began after the
    // edit (the generation it saw is the new one), but the name it shows is the old one.
    const { merchants, payments } = server.services;
    const held = (await merchants.authenticate(shop.apiKey))!.merchant;
    await merchants.updateProfile(merchant.id, { name: 'Third Name', email: 'owner@shop.example', siteUrl: 'shop.example', logoUrl: 'https://shop.example/logo.png' });
    assert.equal(JSON.parse(await payments.get(held, ids[2]!)).merchant.name, held.name, 'answered with the merchant it holds');
    const current = (await merchants.authenticate(shop.apiKey))!.merchant;
    assert.equal(JSON.parse(await payments.get(current, ids[2]!)).merchant.name, 'Third Name');
  });

  describe('lists', () => {
    let other: Merchant;
    const invoicesOf = (prefix: string) => ['1', '2', '3', '4'].map((n) => `${prefix}-${n}`);

    before(async () => {
      other = (await server.services.merchants.authenticate((await server.createMerchant('Other Turn Shop')).apiKey))!.merchant;
      for (const [owner, prefix] of [
        [merchant, 'same-turn'],
        [other, 'other-turn'],
      ] as const) {
        for (const [i, invoice] of invoicesOf(prefix).entries()) {
          const input = parseCreatePayment(server.services.registry, { amount: `0.1${i}`, asset: { short: 'BTC', network: 'bitcoin' }, invoice });
          server.clock.advance(1_000);
          await server.services.payments.create(owner, input);
        }
      }
    });

    test("answers each of several lists asked in the same turn with its own merchant's page, as if asked alone", async () => {
      const { payments } = server.services;
      // Alike in shape (the same filters, limit and page), different in values and merchant: on
      // PostgreSQL these pages go to the database as one statement.
      const asked: Array<[Merchant, Parameters<typeof payments.list>[1]]> = [
        [merchant, { statuses: ['OPEN'], invoices: ['same-turn-1', 'same-turn-3', 'other-turn-2'] }],
        [other, { statuses: ['OPEN'], invoices: ['other-turn-2', 'other-turn-4', 'same-turn-1'] }],
        [merchant, { statuses: ['COMPLETE'], invoices: ['same-turn-1'] }],
        [other, { statuses: ['OPEN', 'EXPIRED'], invoices: ['other-turn-1'] }],
        [merchant, {}],
        [other, {}],
        [merchant, { limit: 2, page: 2 }],
        [other, { limit: 2, page: 2 }],
        [merchant, { statuses: ['OPEN'] }],
        [other, { ids: ['no-such-payment'] }],
      ];
      const alone: Array<Awaited<ReturnType<typeof payments.list>>> = [];
      for (const [owner, filters] of asked) alone.push(await payments.list(owner, filters));
      const together = await apart(asked.map(([owner, filters]) => () => payments.list(owner, filters)));
      assert.deepEqual(together.map(outcome), asked.map(() => 'answered'));
      assert.deepEqual(
        together.map((list) => list.status === 'fulfilled' && list.value),
        alone,
      );
      const invoicesListed = (list: (typeof alone)[number]) => list.data.map((record) => JSON.parse(record).invoice as string);
      assert.deepEqual(invoicesListed(alone[0]!), ['same-turn-3', 'same-turn-1']);
      assert.deepEqual(invoicesListed(alone[1]!), ['other-turn-4', 'other-turn-2']);
      assert.deepEqual(invoicesListed(alone[2]!), []);
      assert.deepEqual(invoicesListed(alone[6]!), ['same-turn-2', 'same-turn-1']);
      assert.deepEqual(invoicesListed(alone[7]!), ['other-turn-2', 'other-turn-1']);
      assert.equal(alone[5]!.total, 4);
    });

    test('reads the pages of several lists alike in one statement where the database joins LATERAL, and each alone when that fails', async () => {
      const { db } = server.services;
      const statements: string[] = [];
      let failTogether: Error | undefined;
      const counting = (sql: string) => {
        statements.push(sql);
        if (failTogether && sql.includes('LATERAL')) throw failTogether;
      };
      const watched: Sql = {
        dialect: db.dialect,
        all: async <T>(sql: string, params?: Params) => (counting(sql), db.all<T>(sql, params)),
        get: async <T>(sql: string, params?: Params) => (counting(sql), db.get<T>(sql, params)),
        run: async (sql: string, params?: Params) => (counting(sql), db.run(sql, params)),
      };
      const store = new PaymentStore(watched);
      const now = server.clock();
      const requests: PageRequest[] = [
        { merchantId: merchant.id, filters: { invoices: ['same-turn-2', 'same-turn-4'] }, now, offset: 0, limit: 10 },
        { merchantId: other.id, filters: { invoices: ['other-turn-3', 'same-turn-2'] }, now, offset: 0, limit: 10 },
        { merchantId: merchant.id, filters: { invoices: ['same-turn-1', 'same-turn-2', 'same-turn-3'] }, now, offset: 1, limit: 10 },
        { merchantId: other.id, filters: {}, now, offset: 0, limit: 3 },
        { merchantId: merchant.id, filters: { search: 'same-turn-4' }, now, offset: 0, limit: 10 },
        { merchantId: other.id, filters: { search: 'other-turn-4' }, now, offset: 0, limit: 10 },
      ];
      const alone: Array<Awaited<ReturnType<typeof store.page>>> = [];
      for (const { merchantId, filters, now, offset, limit } of requests) alone.push(await store.page(merchantId, filters, now, offset, limit));
      assert.deepEqual(
        alone.map((page) => page.length),
        [2, 1, 2, 3, 1, 1],
      );
      const lateral = db.dialect.joinsLateral;
      assert.equal(lateral, db.dialect.name === 'postgres');
      // A statement of several pages may be estimated past jit_above_cost: the service's sessions
      // never spend milliseconds compiling it.
      if (db.dialect.name === 'postgres') assert.equal((await db.get<{ jit: string }>('SHOW jit'))?.jit, 'off');

      statements.length = 0;
      assert.deepEqual(await Promise.all(store.pages(requests)), alone);
      // The first three alike in one statement; the page of another limit, and the searches, alone.
      assert.equal(statements.length, lateral ? 4 : requests.length);
      assert.equal(statements.filter((sql) => sql.includes('LATERAL')).length, lateral ? 1 : 0);

      failTogether = new Error('the statement of several pages failed');
      statements.length = 0;
      assert.deepEqual(await Promise.all(store.pages(requests)), alone);
      assert.equal(statements.length, lateral ? 4 + 3 : requests.length);

      // The database gone: the pages that went together fail with it, without being tried again alone.
      failTogether = new DatabaseUnavailable('the database is unavailable: gone');
      statements.length = 0;
      const settled = await Promise.allSettled(store.pages(requests));
      assert.deepEqual(
        settled.map((page) => (page.status === 'rejected' ? (page.reason as Error).message : 'answered')),
        lateral ? [failTogether.message, failTogether.message, failTogether.message, 'answered', 'answered', 'answered'] : requests.map(() => 'answered'),
      );
      assert.equal(statements.length, lateral ? 4 : requests.length);
    });
  });
});
