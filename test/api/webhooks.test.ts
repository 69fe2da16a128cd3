/**
 * Webhooks over HTTP: registration, every event type delivered to a real receiver on loopback and
 * verified with the `standardwebhooks` package, order, retries on the injected clock (500, timeout,
 * connection refused), the schedule, 410, redeliver, hostile receivers, and the address rules of
 * production mode.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { isPublicAddress } from '../../api/webhooks/webhook-address.ts';
import { silentLogger } from '../../api/shared/logger.ts';
import { createWebhookDispatcher, RETRY_SCHEDULE_MS } from '../../api/webhooks/webhook-dispatcher.ts';
import { sendWebhook } from '../../api/webhooks/webhook-sender.ts';
import { WEBHOOK_EVENT_TYPES } from '../../api/webhooks/webhook.schema.ts';
import { merchantApi, postJson, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const BTC = { short: 'BTC', network: 'bitcoin' };
const ETH = { short: 'ETH', network: 'ethereum' };
const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

let server: TestServer;
let receiver: WebhookReceiver;
let api: ReturnType<typeof merchantApi>;
let invoice = 0;

before(async () => {
  // A short answer deadline, so the timeout case takes a second, not fifteen.
  server = await startTestServer({ config: { webhookTimeoutMs: 800 } });
  receiver = await startWebhookReceiver();
  api = merchantApi(server, await server.createMerchant('Webhook Shop'));
});
after(async () => {
  await server.close();
  await receiver.close();
});

/** Registers an endpoint at a receiver path; returns the created record (with its secret). */
async function register(path: string, events?: string[], client = api) {
  const response = await client.post('/webhooks', { url: `${receiver.url}${path}`, ...(events ? { events } : {}) });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body as { id: string; url: string; events: string[]; secret: string; createdAt: string; disabled: boolean };
}

/** Events the receiver got at a path, each verified with the standardwebhooks package. */
function verifiedAt(path: string, secret: string) {
  const verifier = new Webhook(secret);
  return receiver.at(path).map((r) => {
    const payload = verifier.verify(r.body, r.headers as Record<string, string>) as { type: string; timestamp: string; data: Record<string, any> };
    return { id: r.headers['webhook-id'] as string, ...payload };
  });
}

async function newPayment(amount = '0.5', asset = BTC, client = api) {
  const response = await client.post('/payment', { amount, asset, invoice: `wh-${++invoice}` });
  assert.equal(response.status, 200);
  return response.body as { id: string; addressTo: string; confirmsNeeded: number };
}

async function pay(payment: { addressTo: string }, amount: string, confirmations = 0, asset = BTC) {
  const sent = await postJson(`${server.api}/dev/transactions`, { address: payment.addressTo, amount, asset, confirmations });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  return sent.body as { txnId: string };
}

const mine = (network: string, count: number) => postJson(`${server.api}/dev/blocks`, { network, count });
const dispatch = () => server.services.dispatcher.run();

describe('registering endpoints', () => {
  test('answers with the secret once; the list shows every event type and no secret', async () => {
    const created = await register('/registered');
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.deepEqual(created.events, [...WEBHOOK_EVENT_TYPES]);
    assert.equal(created.disabled, false);
    const listed = await api.get('/webhooks');
    assert.equal(listed.status, 200);
    const row = listed.body.data.find((w: { id: string }) => w.id === created.id);
    assert.deepEqual(row, { id: created.id, url: `${receiver.url}/registered`, events: [...WEBHOOK_EVENT_TYPES], createdAt: created.createdAt, disabled: false, disabledReason: null });
    assert.equal(JSON.stringify(listed.body).includes('whsec_'), false);
    assert.equal((await api.send('DELETE', `/webhooks/${created.id}`)).status, 204);
  });

  test('refuses bad URLs and event types, naming the field', async () => {
    for (const [body, path] of [
      [{ url: 'not a url' }, 'url'],
      [{ url: 'ftp://shop.example/hook' }, 'url'],
      [{ url: 'https://shop.example/hook#part' }, 'url'],
      [{ url: 'https://user:secret@shop.example/hook' }, 'url'],
      [{ url: 'https://user@shop.example/hook' }, 'url'],
      [{ url: 'https://shop.example/hook', events: [] }, 'events'],
      [{ url: 'https://shop.example/hook', events: ['payment.created'] }, 'events.0'],
      [{ url: 'https://shop.example/hook', events: ['payment.completed', 'payment.completed'] }, 'events'],
      [{ url: 'https://shop.example/hook', secret: 'mine' }, 'secret'],
      [{}, 'url'],
    ] as const) {
      const response = await api.post('/webhooks', body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(response.body.error.code, 'validation-failed');
      assert.equal(response.body.error.details[0].path, path, JSON.stringify(response.body));
    }
    // Every bad field at once: a URL that can never receive with the schema's findings.
    const both = await api.post('/webhooks', { url: 'ftp://shop.example/hook', events: ['nope'] });
    assert.deepEqual(both.body.error.details.map((d: { path: string }) => d.path), ['url', 'events.0']);
  });

  test('delete is signed over the empty body, and another merchant\'s endpoint is not found', async () => {
    const created = await register('/to-delete');
    const unsigned = await fetch(`${server.api}/webhooks/${created.id}`, { method: 'DELETE', headers: { 'API-KEY': 'ak_nobody' } });
    assert.equal(unsigned.status, 401);
    const other = merchantApi(server, await server.createMerchant('Other Shop'));
    const foreign = await other.send('DELETE', `/webhooks/${created.id}`);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, 'webhook-not-found');
    assert.equal((await other.get(`/webhooks/${created.id}/deliveries`)).status, 404);
    assert.equal((await api.send('DELETE', `/webhooks/${created.id}`)).status, 204);
    assert.equal((await api.send('DELETE', `/webhooks/${created.id}`)).status, 404);
    assert.equal((await api.send('DELETE', '/webhooks/not-an-id')).status, 404);
  });

  test('the same URL registered twice is two endpoints, each with its secret, sent the same event with the same webhook-id', async () => {
    // How a secret is changed without missing an event: register again, switch, delete the old one.
    const shop = merchantApi(server, await server.createMerchant('Rotating Shop'));
    const old = await register('/rotating', undefined, shop);
    const fresh = await register('/rotating', undefined, shop);
    assert.equal(fresh.url, old.url);
    assert.notEqual(fresh.id, old.id);
    assert.notEqual(fresh.secret, old.secret);
    const payment = await newPayment('0.5', BTC, shop);
    await pay(payment, '0.5');
    await dispatch();
    const received = receiver.at('/rotating').filter((r) => JSON.parse(r.body).type === 'payment.confirming' && JSON.parse(r.body).data.id === payment.id);
    assert.equal(received.length, 2, 'one copy to each endpoint');
    assert.equal(received[0]!.headers['webhook-id'], received[1]!.headers['webhook-id']);
    // Each copy is signed with its own endpoint's secret.
    const verifies = (secret: string) => received.filter((r) => {
      try {
        new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
        return true;
      } catch {
        return false;
      }
    }).length;
    assert.deepEqual([verifies(old.secret), verifies(fresh.secret)], [1, 1]);
  });

  test('a merchant may hold 20 endpoints; the 21st is 409 webhook-limit-reached', async () => {
    const client = merchantApi(server, await server.createMerchant('Many Hooks'));
    for (let i = 0; i < 20; i += 1) await register(`/many-${i}`, undefined, client);
    const refused = await client.post('/webhooks', { url: `${receiver.url}/many-21` });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'webhook-limit-reached');
  });
});

describe('delivering events', () => {
  let shop: ReturnType<typeof merchantApi>;
  let secret: string;
  const path = '/events';

  before(async () => {
    shop = merchantApi(server, await server.createMerchant('Event Shop'));
    secret = (await register(path, undefined, shop)).secret;
  });

  test('a payment paid in part, in full and confirmed sends seen, confirming and completed, in order, signed', async () => {
    const payment = await newPayment('0.5', BTC, shop);
    await pay(payment, '0.2');
    await pay(payment, '0.3');
    await mine('bitcoin', payment.confirmsNeeded);
    await dispatch();
    const events = verifiedAt(path, secret).filter((e) => e.data.id === payment.id);
    assert.deepEqual(
      events.map((e) => e.type),
      ['payment.transaction-seen', 'payment.transaction-seen', 'payment.confirming', 'payment.completed'],
    );
    assert.deepEqual(events.map((e) => e.data.status), ['OPEN', 'CONFIRMING', 'CONFIRMING', 'COMPLETE']);
    // The data is the record as GET returns it: the last one equals the current record.
    const current = await shop.get(`/payment/${payment.id}`);
    assert.deepEqual(events.at(-1)!.data, current.body);
    assert.equal(new Set(events.map((e) => e.id)).size, events.length);
    for (const event of events) assert.match(event.id, /^msg_[0-9a-f]{32}$/);
  });

  test('an unpaid payment past its expiry sends payment.expired once', async () => {
    const payment = await newPayment('1', BTC, shop);
    server.clock.advance(2 * 3600_000);
    await server.services.expirySweep.run();
    await server.services.expirySweep.run();
    await dispatch();
    const events = verifiedAt(path, secret).filter((e) => e.data.id === payment.id);
    assert.deepEqual(events.map((e) => [e.type, e.data.status]), [['payment.expired', 'EXPIRED']]);
  });

  test('a completed payment that a reorganisation takes back sends payment.reopened, and its credit is reversed', async () => {
    const payment = await newPayment('0.2', BTC, shop);
    const { txnId } = await pay(payment, '0.2');
    await mine('bitcoin', payment.confirmsNeeded);
    const balance = async () => (await shop.get('/balance')).body.data.find((b: any) => b.asset.short === 'BTC').available as string;
    const credited = await balance();
    // What a real network's adapter reports when the blocks confirming it leave the chain.
    await server.services.watcher.handle({ kind: 'confirmations', network: 'bitcoin', updates: [{ txnId, confirmations: 0 }] });
    await dispatch();
    const events = verifiedAt(path, secret).filter((e) => e.data.id === payment.id);
    assert.deepEqual(events.slice(-2).map((e) => [e.type, e.data.status]), [
      ['payment.completed', 'COMPLETE'],
      ['payment.reopened', 'CONFIRMING'],
    ]);
    assert.equal(Number(await balance()), Math.round((Number(credited) - 0.2) * 1e8) / 1e8);
  });

  test('a confirming payment whose transaction is dropped sends payment.reopened', async () => {
    const payment = await newPayment('0.1', BTC, shop);
    const { txnId } = await pay(payment, '0.1');
    const dropped = await postJson(`${server.api}/dev/transactions/${txnId}/drop`, {});
    assert.equal(dropped.status, 200);
    await dispatch();
    const events = verifiedAt(path, secret).filter((e) => e.data.id === payment.id);
    assert.deepEqual(events.map((e) => [e.type, e.data.status]), [
      ['payment.transaction-seen', 'CONFIRMING'],
      ['payment.confirming', 'CONFIRMING'],
      ['payment.reopened', 'OPEN'],
    ]);
    assert.deepEqual(events.at(-1)!.data.transactions, []);
  });

  test('withdrawals send approved, completed and cancelled', async () => {
    const funding = await newPayment('5', ETH, shop);
    await pay(funding, '5', 50, ETH);
    const create = (n: number) => shop.post('/withdrawal', { amount: '1', asset: ETH, addressTo: ETH_ADDRESS, invoice: `wh-out-${n}-${invoice++}` });
    const approved = (await create(1)).body;
    const cancelled = (await create(2)).body;
    assert.equal((await shop.post(`/withdrawal/${approved.id}/approve`, {})).status, 200);
    assert.equal((await shop.post(`/withdrawal/${cancelled.id}/cancel`, {})).status, 200);
    await mine('ethereum', 100);
    await dispatch();
    const events = verifiedAt(path, secret).filter((e) => e.type.startsWith('withdrawal.'));
    assert.deepEqual(events.map((e) => [e.type, e.data.id, e.data.status]), [
      ['withdrawal.approved', approved.id, 'APPROVED'],
      ['withdrawal.cancelled', cancelled.id, 'CANCELLED'],
      ['withdrawal.completed', approved.id, 'COMPLETE'],
    ]);
  });

  test('an endpoint gets only the types it asked for; the delivery log lists every attempt, newest first', async () => {
    const only = await register('/only-completed', ['payment.completed'], shop);
    const payment = await newPayment('0.01', BTC, shop);
    await pay(payment, '0.01', 10);
    await dispatch();
    const events = verifiedAt('/only-completed', only.secret);
    assert.deepEqual(events.map((e) => e.type), ['payment.completed']);
    const log = await shop.get(`/webhooks/${only.id}/deliveries`);
    assert.equal(log.status, 200);
    assert.equal(log.body.total, 1);
    const [attempt] = log.body.data;
    assert.deepEqual(Object.keys(attempt).sort(), ['attempt', 'createdAt', 'durationMs', 'error', 'eventId', 'id', 'statusCode', 'type']);
    assert.equal(attempt.eventId, events[0]!.id);
    assert.equal(attempt.type, 'payment.completed');
    assert.equal(attempt.attempt, 1);
    assert.equal(attempt.statusCode, 200);
    assert.equal(attempt.error, null);
    assert.equal((await shop.get(`/webhooks/${only.id}/deliveries?limit=0`)).status, 400);
  });
});

describe('failing endpoints', () => {
  let shop: ReturnType<typeof merchantApi>;
  beforeEach(async () => {
    shop = merchantApi(server, await server.createMerchant(`Failing Shop ${invoice}`));
  });

  async function completePayment() {
    const payment = await newPayment('0.01', BTC, shop);
    await pay(payment, '0.01', 10);
    return payment;
  }

  test('a 500 is retried on the schedule with the same webhook-id until the endpoint recovers', async () => {
    const endpoint = await register('/flaky', ['payment.completed'], shop);
    receiver.answer('/flaky', { status: 500, body: 'down' });
    await completePayment();
    await dispatch();
    assert.equal(receiver.at('/flaky').length, 1);
    // Not before the first retry's time.
    server.clock.advance(4_000);
    await dispatch();
    assert.equal(receiver.at('/flaky').length, 1);
    server.clock.advance(1_000);
    await dispatch();
    assert.equal(receiver.at('/flaky').length, 2);
    receiver.answer('/flaky', { status: 204 });
    server.clock.advance(5 * 60_000);
    await dispatch();
    const requests = receiver.at('/flaky');
    assert.equal(requests.length, 3);
    assert.equal(new Set(requests.map((r) => r.headers['webhook-id'])).size, 1);
    const verified = verifiedAt('/flaky', endpoint.secret);
    assert.equal(verified.length, 3);
    const log = (await shop.get(`/webhooks/${endpoint.id}/deliveries`)).body.data;
    assert.deepEqual(log.map((a: any) => [a.attempt, a.statusCode, a.error]), [
      [3, 204, null],
      [2, 500, 'the endpoint answered 500'],
      [1, 500, 'the endpoint answered 500'],
    ]);
    server.clock.advance(86_400_000);
    await dispatch();
    assert.equal(receiver.at('/flaky').length, 3);
  });

  test('no answer within the deadline and a refused connection are failures to retry (statusCode null)', async () => {
    const slow = await register('/slow', ['payment.completed'], shop);
    receiver.answer('/slow', 'hang');
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = (await shop.post('/webhooks', { url: `http://127.0.0.1:${closedPort}/gone`, events: ['payment.completed'] })).body;
    await completePayment();
    await dispatch();
    const [timedOut] = (await shop.get(`/webhooks/${slow.id}/deliveries`)).body.data;
    assert.equal(timedOut.statusCode, null);
    assert.equal(timedOut.error, 'no answer within 0.8 s');
    assert.ok(timedOut.durationMs >= 700 && timedOut.durationMs < 5_000, String(timedOut.durationMs));
    const [noConnection] = (await shop.get(`/webhooks/${refused.id}/deliveries`)).body.data;
    assert.equal(noConnection.statusCode, null);
    assert.equal(noConnection.error, 'connection refused');
    receiver.answer('/slow', { status: 200 });
    server.clock.advance(5_000);
    await dispatch();
    const log = (await shop.get(`/webhooks/${slow.id}/deliveries`)).body.data;
    assert.deepEqual(log.map((a: any) => a.statusCode), [200, null]);
  });

  test('the schedule spans more than three days; after its last attempt the delivery is given up', async () => {
    const total = RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
    assert.ok(total >= 3 * 86_400_000, `${total} ms`);
    assert.equal(RETRY_SCHEDULE_MS[0], 5_000);
    const endpoint = await register('/always-down', ['payment.completed'], shop);
    receiver.answer('/always-down', { status: 503 });
    await completePayment();
    await dispatch();
    for (const wait of RETRY_SCHEDULE_MS) {
      server.clock.advance(wait);
      await dispatch();
    }
    assert.equal(receiver.at('/always-down').length, RETRY_SCHEDULE_MS.length + 1);
    server.clock.advance(30 * 86_400_000 - total);
    await dispatch();
    assert.equal(receiver.at('/always-down').length, RETRY_SCHEDULE_MS.length + 1);
    const log = await shop.get(`/webhooks/${endpoint.id}/deliveries?limit=100`);
    assert.equal(log.body.total, RETRY_SCHEDULE_MS.length + 1);
  });

  test('410 disables the endpoint, the list says so, and an accepted redelivery enables it again', async () => {
    const endpoint = await register('/retired', ['payment.completed'], shop);
    receiver.answer('/retired', { status: 410 });
    await completePayment();
    await dispatch();
    const listed = (await shop.get('/webhooks')).body.data.find((w: any) => w.id === endpoint.id);
    assert.equal(listed.disabled, true);
    assert.match(listed.disabledReason, /410/);
    await completePayment();
    server.clock.advance(86_400_000);
    await dispatch();
    assert.equal(receiver.at('/retired').length, 1);
    receiver.answer('/retired', { status: 200 });
    const [first] = (await shop.get(`/webhooks/${endpoint.id}/deliveries`)).body.data;
    const again = await shop.send('POST', `/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.eventId, first.eventId);
    assert.equal(again.body.attempt, 2);
    assert.equal(again.body.statusCode, 200);
    const requests = receiver.at('/retired');
    assert.equal(requests.at(-1)!.headers['webhook-id'], first.eventId);
    assert.equal((await shop.get('/webhooks')).body.data.find((w: any) => w.id === endpoint.id).disabled, false);
    // Back in service; the redelivery settled the event, so its retry (long due) does not send it a third time.
    await dispatch();
    assert.equal(receiver.at('/retired').length, 2);
    const log = (await shop.get(`/webhooks/${endpoint.id}/deliveries`)).body.data;
    assert.deepEqual(log.map((a: any) => [a.eventId, a.attempt, a.statusCode, a.error]), [
      [first.eventId, 2, 200, null],
      [first.eventId, 1, 410, 'the endpoint answered 410'],
    ]);
  });

  test('a redelivery the endpoint accepts is the event\'s last attempt: the schedule does not send it again', async () => {
    const endpoint = await register('/gone-then-back', ['payment.completed'], shop);
    receiver.answer('/gone-then-back', { status: 410 });
    await completePayment();
    await dispatch();
    const [first] = (await shop.get(`/webhooks/${endpoint.id}/deliveries`)).body.data;
    receiver.answer('/gone-then-back', { status: 204 });
    server.clock.advance(1_000);
    const again = await shop.send('POST', `/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(typeof again.body.durationMs, 'number');
    assert.deepEqual(again.body, {
      id: again.body.id,
      eventId: first.eventId,
      type: 'payment.completed',
      attempt: 2,
      statusCode: 204,
      durationMs: again.body.durationMs,
      error: null,
      createdAt: new Date(server.clock()).toISOString(),
    });
    // Past the retry the 410 had scheduled, and long after.
    server.clock.advance(5_000);
    await dispatch();
    server.clock.advance(86_400_000);
    await dispatch();
    assert.deepEqual(receiver.at('/gone-then-back').map((r) => r.headers['webhook-id']), [first.eventId, first.eventId]);
    const log = (await shop.get(`/webhooks/${endpoint.id}/deliveries`)).body.data;
    assert.deepEqual(log, [again.body, first]);
  });

  test('a redelivery the endpoint refuses takes the next attempt number and leaves the schedule as it was', async () => {
    const endpoint = await register('/still-down', ['payment.completed'], shop);
    receiver.answer('/still-down', { status: 500 });
    await completePayment();
    await dispatch();
    const [first] = (await shop.get(`/webhooks/${endpoint.id}/deliveries`)).body.data;
    server.clock.advance(2_000);
    const again = await shop.send('POST', `/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual([again.body.attempt, again.body.statusCode, again.body.error], [2, 500, 'the endpoint answered 500']);
    // The first retry comes 5 s after the first attempt, as scheduled: neither sooner nor later.
    server.clock.advance(2_999);
    await dispatch();
    assert.equal(receiver.at('/still-down').length, 2);
    server.clock.advance(1);
    await dispatch();
    assert.equal(receiver.at('/still-down').length, 3);
    // Then the schedule's second wait (5 min), not a later one: the redelivery took no step of it.
    receiver.answer('/still-down', { status: 204 });
    server.clock.advance(RETRY_SCHEDULE_MS[1]! - 1);
    await dispatch();
    assert.equal(receiver.at('/still-down').length, 3);
    server.clock.advance(1);
    await dispatch();
    assert.equal(receiver.at('/still-down').length, 4);
    const log = (await shop.get(`/webhooks/${endpoint.id}/deliveries`)).body.data;
    assert.deepEqual(log.map((a: any) => [a.attempt, a.statusCode, a.error]), [
      [4, 204, null],
      [3, 500, 'the endpoint answered 500'],
      [2, 500, 'the endpoint answered 500'],
      [1, 500, 'the endpoint answered 500'],
    ]);
    assert.equal(new Set(receiver.at('/still-down').map((r) => r.headers['webhook-id'])).size, 1);
  });

  test('a redelivery while this instance sends the endpoint a backlog waits for the attempt under way, not for the backlog', async () => {
    const endpoint = await register('/backlog', ['payment.completed'], shop);
    await completePayment();
    await dispatch();
    const [first] = (await shop.get(`/webhooks/${endpoint.id}/deliveries`)).body.data;
    // Ten events queued, each answered after 200 ms: a turn of two seconds.
    receiver.answer('/backlog', { status: 204, delayMs: 200 });
    for (let i = 0; i < 10; i++) await completePayment();
    const draining = dispatch();
    for (let i = 0; i < 100 && receiver.at('/backlog').length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(receiver.at('/backlog').length >= 2, 'the turn over the backlog has begun');
    const redelivered = await shop.send('POST', `/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`);
    assert.equal(redelivered.status, 200, JSON.stringify(redelivered.body));
    assert.deepEqual([redelivered.body.eventId, redelivered.body.statusCode], [first.eventId, 204]);
    assert.ok(receiver.at('/backlog').length <= 5, `sent before the backlog was through (${receiver.at('/backlog').length} requests in)`);
    // The rest of the backlog then goes, each event once.
    await draining;
    await dispatch();
    const ids = receiver.at('/backlog').map((r) => r.headers['webhook-id']);
    assert.equal(ids.length, 12);
    assert.equal(new Set(ids).size, 11);
    assert.equal(ids.filter((id) => id === ids[0]).length, 2, 'the first event twice: its delivery and the redelivery');
  });

  test('a redelivery while another instance sends to the endpoint waits one attempt\'s deadline, then is 409 invalid-state and sends nothing', async () => {
    const endpoint = await register('/busy', ['payment.completed'], shop);
    receiver.answer('/busy', { status: 500 });
    await completePayment();
    await dispatch();
    const [first] = (await shop.get(`/webhooks/${endpoint.id}/deliveries`)).body.data;
    receiver.answer('/busy', { status: 204 });
    const webhooks = server.services.uow.stores.webhooks;
    assert.equal(await webhooks.claimEndpoint(endpoint.id, 'another instance', server.clock(), server.clock() + 60_000), true);
    const refused = await shop.send('POST', `/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`);
    assert.equal(refused.status, 409);
    assert.deepEqual(refused.body, {
      error: { code: 'invalid-state', message: 'An event is being sent to this webhook endpoint right now; redeliver again in a few seconds.' },
    });
    assert.equal(receiver.at('/busy').length, 1);
    await webhooks.releaseEndpoint(endpoint.id, 'another instance');
    const accepted = await shop.send('POST', `/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.deepEqual([accepted.body.attempt, accepted.body.statusCode], [2, 204]);
    server.clock.advance(5_000);
    await dispatch();
    assert.equal(receiver.at('/busy').length, 2);
  });

  test('a failed attempt holds the endpoint\'s later events back until its retry; then they go after it, in order', async () => {
    const endpoint = await register('/held', ['payment.transaction-seen', 'payment.confirming', 'payment.completed'], shop);
    receiver.answer('/held', { status: 500 });
    const payment = await newPayment('0.01', BTC, shop);
    await pay(payment, '0.01');
    await dispatch();
    const types = () => verifiedAt('/held', endpoint.secret).map((e) => e.type);
    // payment.confirming is queued too, but waits behind the failed payment.transaction-seen.
    assert.deepEqual(types(), ['payment.transaction-seen']);
    // So does an event that happens meanwhile.
    await mine('bitcoin', payment.confirmsNeeded);
    server.clock.advance(RETRY_SCHEDULE_MS[0]! - 1);
    await dispatch();
    assert.deepEqual(types(), ['payment.transaction-seen']);
    receiver.answer('/held', { status: 204 });
    server.clock.advance(1);
    await dispatch();
    const events = verifiedAt('/held', endpoint.secret);
    assert.deepEqual(events.map((e) => e.type), ['payment.transaction-seen', 'payment.transaction-seen', 'payment.confirming', 'payment.completed']);
    assert.equal(events[1]!.id, events[0]!.id);
    assert.equal(new Set(events.map((e) => e.id)).size, 3);
    assert.deepEqual(events.at(-1)!.data, (await shop.get(`/payment/${payment.id}`)).body);
    const log = (await shop.get(`/webhooks/${endpoint.id}/deliveries`)).body.data;
    assert.deepEqual(log.map((a: any) => [a.type, a.attempt, a.statusCode, a.error]).sort(), [
      ['payment.completed', 1, 204, null],
      ['payment.confirming', 1, 204, null],
      ['payment.transaction-seen', 1, 500, 'the endpoint answered 500'],
      ['payment.transaction-seen', 2, 204, null],
    ]);
  });

  test('an event the endpoint keeps refusing stops holding its later events after its third failure', async () => {
    const endpoint = await register('/one-bad-kind', ['payment.transaction-seen', 'payment.confirming', 'payment.completed'], shop);
    // The merchant's handler fails on one kind of event only.
    receiver.answer('/one-bad-kind', { status: 204, failTypes: ['payment.transaction-seen'] });
    const payment = await newPayment('0.01', BTC, shop);
    await pay(payment, '0.01');
    await mine('bitcoin', payment.confirmsNeeded);
    const types = () => verifiedAt('/one-bad-kind', endpoint.secret).map((e) => e.type);
    await dispatch();
    server.clock.advance(RETRY_SCHEDULE_MS[0]!);
    await dispatch();
    // Through its first failures the later events wait, in order.
    assert.deepEqual(types(), ['payment.transaction-seen', 'payment.transaction-seen']);
    server.clock.advance(RETRY_SCHEDULE_MS[1]!);
    await dispatch();
    // Its third failure lets them go; it keeps its own retries.
    assert.deepEqual(types(), ['payment.transaction-seen', 'payment.transaction-seen', 'payment.transaction-seen', 'payment.confirming', 'payment.completed']);
    server.clock.advance(RETRY_SCHEDULE_MS[2]!);
    await dispatch();
    assert.equal(types().filter((t) => t === 'payment.transaction-seen').length, 4);
    assert.equal(types().length, 6);
  });

  test('redeliver of an unknown attempt is 404 delivery-not-found', async () => {
    const endpoint = await register('/redeliver-404', ['payment.completed'], shop);
    const response = await shop.send('POST', `/webhooks/${endpoint.id}/deliveries/9b2f4a4e-1111-4c2b-9a3e-000000000000/redeliver`);
    assert.equal(response.status, 404);
    assert.equal(response.body.error.code, 'delivery-not-found');
  });

  test('a receiver that answers a huge body or never ends its answer costs one short attempt', async () => {
    const huge = await register('/huge', ['payment.completed'], shop);
    const endless = await register('/endless', ['payment.completed'], shop);
    receiver.answer('/huge', { status: 500, hugeBody: 50 * 1024 * 1024 });
    receiver.answer('/endless', 'hang-after-headers');
    await completePayment();
    const started = Date.now();
    await dispatch();
    assert.ok(Date.now() - started < 3_000, `${Date.now() - started} ms`);
    const [hugeAttempt] = (await shop.get(`/webhooks/${huge.id}/deliveries`)).body.data;
    assert.equal(hugeAttempt.statusCode, 500);
    const [endlessAttempt] = (await shop.get(`/webhooks/${endless.id}/deliveries`)).body.data;
    assert.deepEqual([endlessAttempt.statusCode, endlessAttempt.error], [200, null]);
  });

  test('a redirect is not followed and counts as a failure', async () => {
    const endpoint = await register('/moved', ['payment.completed'], shop);
    receiver.answer('/moved', { status: 301 });
    await completePayment();
    await dispatch();
    const [attempt] = (await shop.get(`/webhooks/${endpoint.id}/deliveries`)).body.data;
    assert.deepEqual([attempt.statusCode, attempt.error], [301, 'the endpoint answered 301 (redirects are not followed)']);
  });
});

describe('fairness between merchants', () => {
  test('endpoints that never answer hold two of the slots; another merchant\'s event goes out without waiting for them', async () => {
    const own = await startTestServer();
    const hanging = await startWebhookReceiver();
    try {
      const register = async (client: ReturnType<typeof merchantApi>, url: string) =>
        assert.equal((await client.post('/webhooks', { url, events: ['payment.completed'] })).status, 200);
      const complete = async (client: ReturnType<typeof merchantApi>) => {
        const payment = (await client.post('/payment', { amount: '0.01', asset: BTC })).body as { addressTo: string };
        assert.equal((await postJson(`${own.api}/dev/transactions`, { address: payment.addressTo, amount: '0.01', asset: BTC, confirmations: 10 })).status, 200);
      };
      const stuck = merchantApi(own, await own.createMerchant('Stuck Shop'));
      for (let i = 0; i < 20; i++) {
        hanging.answer(`/stuck/${i}`, 'hang');
        await register(stuck, `${hanging.url}/stuck/${i}`);
      }
      const prompt = merchantApi(own, await own.createMerchant('Prompt Shop'));
      await register(prompt, `${hanging.url}/prompt`);
      // The stuck merchant's twenty events are queued first.
      await complete(stuck);
      await complete(prompt);

      let stuckAttempts = 0;
      let stuckEnded = 0;
      const dispatcher = createWebhookDispatcher({
        uow: own.services.uow,
        clock: own.clock,
        logger: silentLogger(),
        secrets: own.services.webhookSecrets,
        // The shortest deadline WEBHOOK_TIMEOUT_SECONDS allows.
        send: { timeoutMs: 1_000, allowPrivate: true },
        post: async (url, event, options) => {
          if (!url.includes('/stuck/')) return sendWebhook(url, event, options);
          stuckAttempts += 1;
          try {
            return await sendWebhook(url, event, options);
          } finally {
            stuckEnded += 1;
          }
        },
      });
      const arrived = hanging.arrival('/prompt');
      const stop = dispatcher.start();
      await arrived;
      const endedBeforePrompt = stuckEnded;
      await stop();
      assert.equal(endedBeforePrompt, 0, 'the prompt merchant\'s event waited for none of the stuck endpoints\' deadlines');
      assert.equal(stuckAttempts, 2, 'the stuck merchant held two slots, not all eight');
      assert.equal(hanging.at('/prompt').length, 1);
    } finally {
      await own.close();
      await hanging.close();
    }
  });
});

describe('production address rules', () => {
  let strict: TestServer;
  let strictApi: ReturnType<typeof merchantApi>;
  before(async () => {
    strict = await startTestServer({ config: { webhookAllowPrivate: false } });
    strictApi = merchantApi(strict, await strict.createMerchant('Strict Shop'));
  });
  after(() => strict.close());

  test('plain http, loopback, private, link-local and unresolvable hosts are refused at registration', async () => {
    for (const url of [
      'http://shop.example/hook',
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://10.1.2.3/hook',
      'https://192.168.0.10/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[fd00::1]/hook',
      'https://no-such-host.invalid/hook',
    ]) {
      const response = await strictApi.post('/webhooks', { url });
      assert.equal(response.status, 400, url);
      assert.equal(response.body.error.code, 'validation-failed');
      assert.equal(response.body.error.details[0].path, 'url');
    }
  });

  test('IPv6 transition forms of loopback and private addresses are refused at registration', async () => {
    // Each URL host as the URL parser writes it, which is what the answer names.
    for (const [url, host] of [
      ['https://[::127.0.0.1]/hook', '::7f00:1'], // IPv4-compatible (deprecated)
      ['https://[::ffff:0:127.0.0.1]/hook', '::ffff:0:7f00:1'], // IPv4-translated (SIIT)
      ['https://[2002:7f00:1::]/hook', '2002:7f00:1::'], // 6to4 of 127.0.0.1
      ['https://[2002:c0a8:1::1]/hook', '2002:c0a8:1::1'], // 6to4 of 192.168.0.1
      ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook', '2001:0:4136:e378:8000:63bf:80ff:fffe'], // Teredo of 127.0.0.1
      ['https://[64:ff9b::7f00:1]/hook', '64:ff9b::7f00:1'], // NAT64 (well-known prefix)
      ['https://[64:ff9b:1::a00:1]/hook', '64:ff9b:1::a00:1'], // NAT64 (local-use prefix) of 10.0.0.1
    ] as const) {
      const response = await strictApi.post('/webhooks', { url });
      assert.deepEqual(
        { status: response.status, body: response.body },
        {
          status: 400,
          body: {
            error: {
              code: 'validation-failed',
              message: 'The request has invalid fields: url.',
              details: [{ path: 'url', message: `resolves to ${host}, a loopback, private or link-local address; webhooks go to public addresses only` }],
            },
          },
        },
        url,
      );
    }
  });

  test('an endpoint whose address turned private is refused again at delivery', async () => {
    const merchant = await strict.createMerchant('Rebinding Shop');
    // As if its DNS answered a public address at registration and a loopback one now.
    const id = '0b6f2b7e-2f3c-4d6e-8a1b-1c2d3e4f5a6b';
    await strict.services.uow.stores.webhooks.insertEndpoint({
      id,
      merchantId: merchant.merchant.id,
      url: `https://localhost:${new URL(receiver.url).port}/rebound`,
      events: null,
      secretSealed: createSealed(strict, id),
      createdAt: strict.clock(),
      disabledAt: null,
      disabledReason: null,
    });
    const client = merchantApi(strict, merchant);
    const payment = (await client.post('/payment', { amount: '0.01', asset: BTC, invoice: 'rebinding' })).body;
    await postJson(`${strict.api}/dev/transactions`, { address: payment.addressTo, amount: '0.01', asset: BTC, confirmations: 10 });
    await strict.services.dispatcher.run();
    const log = (await client.get(`/webhooks/${id}/deliveries`)).body.data;
    assert.ok(log.length >= 1);
    for (const attempt of log) {
      assert.equal(attempt.statusCode, null);
      assert.match(attempt.error, /not a public address/);
    }
    assert.equal(receiver.at('/rebound').length, 0);
  });

  test('isPublicAddress tells public from special-purpose addresses', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(isPublicAddress(address), true, address);
    for (const address of ['127.0.0.1', '10.0.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd12::1', '::ffff:10.0.0.1', '224.0.0.1', 'not-an-ip']) {
      assert.equal(isPublicAddress(address), false, address);
    }
    // IPv6 transition forms: whatever IPv4 address they carry, the service does not send to them.
    for (const address of ['::127.0.0.1', '::8.8.8.8', '::ffff:0:127.0.0.1', '::ffff:0:8.8.8.8', '2002:808:808::1', '2002:7f00:1::', '2001::1', '2001:0:4136:e378:8000:63bf:80ff:fffe', '64:ff9b::808:808', '64:ff9b:1::7f00:1']) {
      assert.equal(isPublicAddress(address), false, address);
    }
  });
});

function createSealed(target: TestServer, endpointId: string): string {
  return target.services.webhookSecrets.seal('whsec_dGVzdHRlc3R0ZXN0dGVzdHRlc3R0ZXN0', endpointId);
}

describe('the OpenAPI document of the webhook operations', () => {
  test('lists every status their error paths answer', async () => {
    const doc = (await (await fetch(`${server.api}/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const keys = await server.createMerchant('Docs Shop');
    const client = merchantApi(server, keys);
    const endpoint = (await client.post('/webhooks', { url: `${receiver.url}/docs` })).body;
    const unknown = '0b7f0a57-5c4e-4d9b-8a52-4b2c0f1e9d33';
    const huge = JSON.stringify({ url: `${receiver.url}/${'x'.repeat(70_000)}` });
    const raw = (method: string, path: string, init: RequestInit = {}) => fetch(`${server.api}${path}`, { method, ...init }).then((r) => r.status);
    const checks: Array<[string, string, Promise<number>]> = [
      ['post', '/webhooks', raw('POST', '/webhooks', { headers: { 'API-KEY': keys.apiKey, 'Content-Type': 'application/json' }, body: '{}' })],
      ['post', '/webhooks', raw('POST', '/webhooks', { headers: { 'API-KEY': keys.apiKey, 'Content-Type': 'text/plain' }, body: '{}' })],
      ['post', '/webhooks', raw('POST', '/webhooks', { headers: { 'API-KEY': keys.apiKey, 'Content-Type': 'application/json' }, body: huge })],
      ['post', '/webhooks', client.send('POST', '/webhooks', '{').then((r) => r.status)],
      ['post', '/webhooks', client.post('/webhooks', { url: 'nope' }).then((r) => r.status)],
      ['get', '/webhooks', raw('GET', '/webhooks')],
      ['delete', '/webhooks/{id}', client.send('DELETE', `/webhooks/${unknown}`).then((r) => r.status)],
      ['delete', '/webhooks/{id}', raw('DELETE', `/webhooks/${endpoint.id}`, { headers: { 'API-KEY': keys.apiKey } })],
      ['get', '/webhooks/{id}/deliveries', client.get(`/webhooks/${unknown}/deliveries`).then((r) => r.status)],
      ['get', '/webhooks/{id}/deliveries', client.get(`/webhooks/${endpoint.id}/deliveries?page=-1`).then((r) => r.status)],
      ['post', '/webhooks/{id}/deliveries/{deliveryId}/redeliver', client.send('POST', `/webhooks/${endpoint.id}/deliveries/${unknown}/redeliver`).then((r) => r.status)],
      ['post', '/webhooks/{id}/deliveries/{deliveryId}/redeliver', raw('POST', `/webhooks/${endpoint.id}/deliveries/${unknown}/redeliver`, { headers: { 'API-KEY': keys.apiKey } })],
    ];
    const seen = new Set<string>();
    for (const [method, path, pending] of checks) {
      const status = await pending;
      seen.add(String(status));
      assert.ok(String(status) in doc.paths[path]![method]!.responses, `${method.toUpperCase()} ${path} answered ${status}, which the document does not list`);
    }
    assert.deepEqual([...seen].sort(), ['400', '401', '404', '413', '415']);
  });
});
