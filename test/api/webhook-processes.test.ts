/**
 * Webhooks from real service processes (the compiled build): an event whose payment completed just
 * before a kill -9 is delivered after the restart, with the same webhook-id; two instances on one
 * database deliver each event once.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { readDemoMerchant } from '../../api/merchants/demo-merchant.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { merchantApi, postJson, type TestMerchant } from '../helpers/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const BTC = { short: 'BTC', network: 'bitcoin' };
// A short answer deadline keeps an endpoint claimed by a killed process for 9 s, not 35.
const ENV = { WEBHOOK_TIMEOUT_SECONDS: '2', ADDRESS_POOL_SIZE: '40' };

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Creates a payment on an instance and pays it in full with enough confirmations. */
async function completePayment(instance: ServerProcess, keys: TestMerchant, invoice: string): Promise<string> {
  const api = merchantApi({ api: `${instance.url}/v2` }, keys);
  const payment = await api.post('/payment', { amount: '0.001', asset: BTC, invoice });
  assert.equal(payment.status, 200, JSON.stringify(payment.body));
  const sent = await postJson(`${instance.url}/v2/dev/transactions`, { address: payment.body.addressTo, amount: '0.001', asset: BTC, confirmations: 10 });
  assert.equal(sent.status, 200);
  return payment.body.id;
}

describe('webhooks from service processes', () => {
  let dataDir: string;
  let receiver: WebhookReceiver;
  const running: ServerProcess[] = [];

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-webhooks-'));
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await Promise.all(running.map((p) => p.stop('SIGKILL').catch(() => {})));
    await receiver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('kill -9 right after a payment completes: payment.completed is delivered after the restart, same webhook-id', async () => {
    const first = await startServerProcess({ ...ENV, DATA_DIR: dataDir });
    running.push(first);
    const keys = readDemoMerchant(dataDir)!;
    const api = merchantApi({ api: `${first.url}/v2` }, keys);
    const endpoint = (await api.post('/webhooks', { url: `${receiver.url}/crash`, events: ['payment.completed'] })).body;
    // The endpoint takes a second to answer, so the kill lands while the first attempt is in flight.
    receiver.answer('/crash', { status: 200, delayMs: 1_000 });
    const paymentId = await completePayment(first, keys, 'crash-1');
    await until(() => receiver.at('/crash').length >= 1, 5_000, 'the first attempt');
    await first.stop('SIGKILL');
    running.splice(running.indexOf(first), 1);

    receiver.answer('/crash', { status: 200 });
    const second = await startServerProcess({ ...ENV, DATA_DIR: dataDir });
    running.push(second);
    await until(() => receiver.at('/crash').length >= 2, 30_000, 'the delivery after the restart');
    const requests = receiver.at('/crash');
    const verifier = new Webhook(endpoint.secret);
    for (const request of requests) {
      const event = verifier.verify(request.body, request.headers as Record<string, string>) as { type: string; data: { id: string; status: string } };
      assert.deepEqual([event.type, event.data.id, event.data.status], ['payment.completed', paymentId, 'COMPLETE']);
    }
    assert.equal(new Set(requests.map((r) => r.headers['webhook-id'])).size, 1);
    const log = await merchantApi({ api: `${second.url}/v2` }, keys).get(`/webhooks/${endpoint.id}/deliveries`);
    assert.deepEqual(log.body.data.map((a: { statusCode: number | null }) => a.statusCode), [200]);
    await second.stop();
    running.splice(running.indexOf(second), 1);
  });

  test('two instances on one database deliver each event once', async () => {
    const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-webhooks-pair-'));
    try {
      const a = await startServerProcess({ ...ENV, DATA_DIR: shared });
      running.push(a);
      const b = await startServerProcess({ ...ENV, DATA_DIR: shared, PUBLIC_URL: a.url });
      running.push(b);
      const keys = readDemoMerchant(shared)!;
      const endpoint = (await merchantApi({ api: `${a.url}/v2` }, keys).post('/webhooks', { url: `${receiver.url}/pair` })).body;
      assert.ok(endpoint.id);
      // A slow endpoint widens the window in which both instances see the same events due.
      receiver.answer('/pair', { status: 200, delayMs: 50 });
      const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => completePayment(i % 2 === 0 ? a : b, keys, `pair-${i}`)));
      // transaction-seen, confirming and completed for each.
      await until(() => receiver.at('/pair').length >= ids.length * 2, 30_000, 'every event');
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const requests = receiver.at('/pair');
      const webhookIds = requests.map((r) => r.headers['webhook-id']);
      assert.equal(new Set(webhookIds).size, webhookIds.length, 'no event was sent twice');
      const types = requests.map((r) => JSON.parse(r.body) as { type: string; data: { id: string } });
      for (const id of ids) {
        const mine = types.filter((t) => t.data.id === id).map((t) => t.type);
        assert.deepEqual(mine, ['payment.transaction-seen', 'payment.completed'], `events of ${id} in order`);
      }
      await Promise.all([a.stop(), b.stop()]);
      running.splice(0, running.length);
    } finally {
      fs.rmSync(shared, { recursive: true, force: true });
    }
  });
});
