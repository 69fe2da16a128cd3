/**
 * Requests answered in the same turn of the event loop. The reads of one turn wait for one
 * change-generation ask (SQLite) or one stamp query (PostgreSQL) and then go on together, so one
 * request's statements run between another's. Each request here starts in its own timer callback,
 * as requests on separate connections start in their own I/O callbacks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseCreatePayment } from '../../api/payments/payment-request.ts';
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
});
