/** The payer side of the API: GET /v2/checkout/:id (payer-safe, ETag, CORS) and its server-sent events. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CheckoutOutput } from '../../api/checkout/checkout.schema.ts';
import { merchantApi, postJson, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';

const NOW = Date.parse('2026-11-21T10:15:30.123Z');
const BTC = { short: 'BTC', network: 'bitcoin' };
const XRP = { short: 'XRP', network: 'ripple' };
const CONTRACT_FIELDS = [
  'id', 'status', 'amount', 'amountDue', 'totalReceivedAmount', 'asset', 'addressTo', 'destTag', 'paymentUri', 'confirmsNeeded',
  'timeout', 'expiresAt', 'createdAt', 'invoice', 'checkoutUrl', 'merchant', 'transactions', 'price', 'rate', 'serverTime',
  // Extension: the network is simulated (these tests run on the simulator).
  'testNetwork',
  // Extension (section 17): what is out of the ordinary about the funds received.
  'exception', 'overpaidAmount',
  // Extension: the refunds the shop decided on, so the payer page stops offering one it has made.
  'refund',
];
/** Fails a wait that would otherwise hang; no test logic depends on it. */
const DEADLINE_MS = 5_000;

let server: TestServer;
let shop: TestMerchant;
let api: ReturnType<typeof merchantApi>;

before(async () => {
  server = await startTestServer({ eventTiming: { heartbeatMs: 25, resyncMs: 60_000 } });
  server.clock.set(NOW);
  shop = await server.createMerchant('Checkout Shop');
  api = merchantApi(server, shop);
});
after(() => server.close());

async function createPayment(body: Record<string, unknown> = {}) {
  const response = await api.post('/payment', {
    amount: '0.01',
    asset: BTC,
    invoice: 'order-77',
    checkoutUrl: 'https://shop.example/orders/77',
    customer: { id: 9, name: 'Private Person', email: 'private.person@example.com' },
    ...body,
  });
  assert.equal(response.status, 200);
  return response.body;
}

function view(id: string, headers: Record<string, string> = {}) {
  return fetch(`${server.api}/checkout/${id}`, { headers });
}

/** A checkout response's body. */
async function bodyOf(response: Response): Promise<CheckoutOutput> {
  return (await response.json()) as CheckoutOutput;
}

async function payTo(payment: { addressTo: string; destTag: string | null; asset: { short: string; network: string } }, amount: string, confirmations = 0) {
  const response = await postJson(`${server.api}/dev/transactions`, {
    address: payment.addressTo,
    ...(payment.destTag ? { destTag: payment.destTag } : {}),
    amount,
    asset: { short: payment.asset.short, network: payment.asset.network },
    confirmations,
  });
  assert.equal(response.status, 200);
  return response.body.txnId as string;
}

type StreamItem = { kind: 'event'; event: string; id?: string; data: string } | { kind: 'comment'; text: string } | { kind: 'retry'; ms: number };

/** Reads a server-sent event stream item by item, as a browser's EventSource would parse it. */
async function openStream(id: string, url = `${server.api}/checkout/${id}/events`) {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal, headers: { Accept: 'text/event-stream' } });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let ended = false;

  function parse(block: string): StreamItem {
    const lines = block.split('\n');
    if (lines.every((l) => l.startsWith(':'))) return { kind: 'comment', text: lines.map((l) => l.slice(1).trim()).join('\n') };
    const fields = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trimStart()]));
    if (fields.retry !== undefined && fields.event === undefined) return { kind: 'retry', ms: Number(fields.retry) };
    return { kind: 'event', event: fields.event ?? '', data: fields.data ?? '', ...(fields.id ? { id: fields.id } : {}) };
  }

  async function nextItem(): Promise<StreamItem | undefined> {
    const deadline = Date.now() + DEADLINE_MS;
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        return parse(block);
      }
      if (ended) return undefined;
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no stream data within the deadline')), Math.max(0, deadline - Date.now())).unref()),
      ]);
      if (chunk.done) ended = true;
      else buffer += chunk.value;
    }
  }

  return {
    response,
    /** The next `payment` event's JSON, skipping heartbeats; undefined when the stream ended. */
    async nextPayment(): Promise<{ id?: string; payment: CheckoutOutput } | undefined> {
      for (;;) {
        const item = await nextItem();
        if (item === undefined) return undefined;
        if (item.kind === 'event') {
          assert.equal(item.event, 'payment');
          return { ...(item.id ? { id: item.id } : {}), payment: JSON.parse(item.data) };
        }
      }
    },
    nextItem,
    close: () => controller.abort(),
  };
}

describe('GET /v2/checkout/:id', () => {
  test('answers the payer-safe view: every contract field and nothing private', async () => {
    const payment = await createPayment();
    const response = await view(payment.id);
    assert.equal(response.status, 200);
    const body = await bodyOf(response);
    assert.deepEqual(Object.keys(body).sort(), [...CONTRACT_FIELDS].sort());
    assert.deepEqual(body, {
      id: payment.id,
      status: 'OPEN',
      amount: '0.01000000',
      amountDue: '0.01000000',
      totalReceivedAmount: '0.00000000',
      asset: payment.asset,
      addressTo: payment.addressTo,
      destTag: null,
      paymentUri: payment.paymentUri,
      confirmsNeeded: 2,
      timeout: 3600,
      expiresAt: payment.expiresAt,
      createdAt: '2026-11-21T10:15:30.123Z',
      invoice: 'order-77',
      checkoutUrl: 'https://shop.example/orders/77',
      merchant: { name: 'Checkout Shop', siteUrl: 'shop.example', logoUrl: 'https://shop.example/logo.png' },
      transactions: [],
      exception: null,
      overpaidAmount: null,
      refund: null,
      testNetwork: true,
      price: null,
      rate: null,
      serverTime: '2026-11-21T10:15:30.123Z',
    });
    assert.equal(CheckoutOutput.safeParse(body).success, true);
    const text = JSON.stringify(body);
    for (const secret of [shop.merchant.id, shop.merchant.email!, shop.apiKey, shop.secretKey, 'private.person@example.com', 'Private Person']) {
      assert.ok(!text.includes(secret), `the view must not contain ${secret}`);
    }
  });

  test('lists transactions with only their payer-facing fields', async () => {
    const payment = await createPayment({ amount: '10', asset: XRP });
    const txnId = await payTo(payment, '4', 0);
    const body = await bodyOf(await view(payment.id));
    assert.equal(body.destTag, payment.destTag);
    assert.equal(body.amountDue, '6.000000');
    assert.deepEqual(body.transactions, [{ txnId, receivedAmount: '4.000000', confirmations: 0, date: '2026-11-21T10:15:30.123Z', late: false }]);
  });

  test('is public and CORS-open, with the ETag exposed', async () => {
    const payment = await createPayment();
    const response = await view(payment.id, { Origin: 'https://merchant.example' });
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    assert.match(response.headers.get('access-control-expose-headers') ?? '', /ETag/);
    assert.equal(response.headers.get('cache-control'), 'no-cache');
    const preflight = await fetch(`${server.api}/checkout/${payment.id}`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://merchant.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'if-none-match' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /If-None-Match/);
  });

  test('answers 304 with the same ETag to If-None-Match, in every form a client sends it', async () => {
    const payment = await createPayment();
    const first = await view(payment.id);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await view(payment.id, { 'If-None-Match': ifNoneMatch });
      assert.equal(again.status, 304, ifNoneMatch);
      assert.equal(again.headers.get('etag'), etag);
      assert.equal(await again.text(), '');
    }
    assert.equal((await view(payment.id, { 'If-None-Match': '"something-else"' })).status, 200);
  });

  test('keeps the ETag while only the server time moves, and changes it when the payment changes', async () => {
    const payment = await createPayment();
    const etag = (await view(payment.id)).headers.get('etag')!;
    server.clock.advance(10_000);
    const later = await view(payment.id);
    assert.equal(later.headers.get('etag'), etag);
    assert.equal((await bodyOf(later)).serverTime, '2026-11-21T10:15:40.123Z');
    await payTo(payment, '0.01');
    const changed = await view(payment.id, { 'If-None-Match': etag });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.get('etag'), etag);
    assert.equal((await bodyOf(changed)).status, 'CONFIRMING');
    server.clock.set(NOW);
  });

  test('changes the ETag when the payment expires by time alone, before any sweep', async () => {
    const payment = await createPayment({ timeout: 60 });
    const etag = (await view(payment.id)).headers.get('etag')!;
    server.clock.advance(60_000);
    const expired = await view(payment.id, { 'If-None-Match': etag });
    assert.equal(expired.status, 200);
    assert.equal((await bodyOf(expired)).status, 'EXPIRED');
    server.clock.set(NOW);
  });

  test('answers an unknown or malformed id with 404 payment-not-found, CORS included', async () => {
    for (const id of ['3c9d4f7e-1b2a-4c3d-8e9f-0a1b2c3d4e5f', 'nope']) {
      const response = await view(id);
      assert.equal(response.status, 404);
      assert.equal(response.headers.get('access-control-allow-origin'), '*');
      assert.deepEqual(await response.json(), { error: { code: 'payment-not-found', message: `No payment with id "${id}" exists.` } });
    }
  });
});

describe('GET /v2/checkout/:id/events', () => {
  test('sends the view at once, again on each change, and closes after COMPLETE', async () => {
    const payment = await createPayment();
    const stream = await openStream(payment.id);
    assert.equal(stream.response.status, 200);
    assert.match(stream.response.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(stream.response.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(await stream.nextItem(), { kind: 'retry', ms: 3000 });

    const first = (await stream.nextPayment())!;
    const snapshot = await view(payment.id);
    assert.deepEqual(first.payment, await bodyOf(snapshot));
    assert.equal(first.id, snapshot.headers.get('etag'));

    await payTo(payment, '0.01');
    const confirming = (await stream.nextPayment())!;
    assert.equal(confirming.payment.status, 'CONFIRMING');
    assert.equal(confirming.payment.transactions.length, 1);
    assert.notEqual(confirming.id, first.id);
    assert.equal(CheckoutOutput.safeParse(confirming.payment).success, true);

    await postJson(`${server.api}/dev/blocks`, { network: 'bitcoin', count: 1 });
    const oneConfirmation = (await stream.nextPayment())!;
    assert.equal(oneConfirmation.payment.status, 'CONFIRMING');
    assert.equal(oneConfirmation.payment.transactions[0]!.confirmations, 1);

    await postJson(`${server.api}/dev/blocks`, { network: 'bitcoin', count: 1 });
    const complete = (await stream.nextPayment())!;
    assert.equal(complete.payment.status, 'COMPLETE');
    assert.equal(await stream.nextPayment(), undefined, 'the stream ends after a terminal status');
    assert.equal(server.services.events.listenerCount(), 0);
  });

  test('many streams on one payment: a change is read once and reaches every stream with the same bytes', async () => {
    const payment = await createPayment();
    const streams = [];
    // Under the 20 streams one address may hold (all come from loopback here).
    for (let i = 0; i < 15; i++) {
      const stream = await openStream(payment.id);
      await stream.nextPayment();
      streams.push(stream);
    }
    assert.equal(server.services.events.listenerCount(), 1, 'one subscription for all of them');
    const checkout = server.services.checkout;
    const read = checkout.snapshot;
    let reads = 0;
    checkout.snapshot = (id: string) => {
      reads++;
      return read(id);
    };
    try {
      await payTo(payment, '0.004');
      const events = await Promise.all(streams.map((stream) => stream.nextPayment()));
      assert.equal(reads, 1, 'read and rendered once, not once per stream');
      for (const event of events) assert.deepEqual(event, events[0]);
      assert.equal(events[0]!.payment.totalReceivedAmount, '0.00400000');
    } finally {
      checkout.snapshot = read;
      for (const stream of streams) stream.close();
    }
    const deadline = Date.now() + DEADLINE_MS;
    while (server.services.events.listenerCount() > 0 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(server.services.events.listenerCount(), 0, 'the last stream to close stops the following');
  });

  test('sends heartbeats while nothing changes', async () => {
    const payment = await createPayment();
    const stream = await openStream(payment.id);
    await stream.nextItem();
    await stream.nextPayment();
    assert.deepEqual(await stream.nextItem(), { kind: 'comment', text: 'keep-alive' });
    stream.close();
  });

  test('sends EXPIRED after a sweep, then late funds for half an hour, and closes', async () => {
    const payment = await createPayment({ timeout: 60 });
    const stream = await openStream(payment.id);
    assert.equal((await stream.nextPayment())!.payment.status, 'OPEN');
    server.clock.advance(60_000);
    assert.ok((await server.services.expirySweep.run()) >= 1);
    const expired = (await stream.nextPayment())!;
    assert.equal(expired.payment.status, 'EXPIRED');
    assert.equal(expired.payment.serverTime, '2026-11-21T10:16:30.123Z');
    // Funds sent at the last moment, seen after it: the payer still watching sees them, late.
    await payTo(payment, '0.004');
    const late = (await stream.nextPayment())!;
    assert.equal(late.payment.status, 'EXPIRED');
    assert.deepEqual(late.payment.transactions.map((t: { late: boolean }) => t.late), [true]);
    // Half an hour past the expiry the stream ends with the next change it sends.
    server.clock.advance(30 * 60_000);
    await payTo(payment, '0.001');
    assert.equal((await stream.nextPayment())!.payment.transactions.length, 2);
    assert.equal(await stream.nextPayment(), undefined);
    // Opened after that, it sends the payment once and closes.
    const later = await openStream(payment.id);
    assert.equal((await later.nextPayment())!.payment.status, 'EXPIRED');
    assert.equal(await later.nextPayment(), undefined);
    server.clock.set(NOW);
  });

  test('sends one event and closes for a payment that is already terminal', async () => {
    const payment = await createPayment();
    await payTo(payment, '0.01', 2);
    const stream = await openStream(payment.id);
    assert.equal((await stream.nextPayment())!.payment.status, 'COMPLETE');
    assert.equal(await stream.nextPayment(), undefined);
  });

  test('stops listening when the payer goes away', async () => {
    const payment = await createPayment();
    const stream = await openStream(payment.id);
    await stream.nextPayment();
    assert.equal(server.services.events.listenerCount(), 1);
    stream.close();
    const deadline = Date.now() + DEADLINE_MS;
    while (server.services.events.listenerCount() > 0 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(server.services.events.listenerCount(), 0);
  });

  test('answers an unknown id with a JSON 404 instead of a stream', async () => {
    const response = await fetch(`${server.api}/checkout/3c9d4f7e-1b2a-4c3d-8e9f-0a1b2c3d4e5f/events`);
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), {
      error: { code: 'payment-not-found', message: 'No payment with id "3c9d4f7e-1b2a-4c3d-8e9f-0a1b2c3d4e5f" exists.' },
    });
  });
});

describe('the event stream without notifications', () => {
  let resyncing: TestServer;
  before(async () => {
    resyncing = await startTestServer({ eventTiming: { heartbeatMs: 60_000, resyncMs: 20 } });
    resyncing.clock.set(NOW);
  });
  after(() => resyncing.close());

  test('notices by resync that a payment passed its expiry, and reports it EXPIRED without a sweep', async () => {
    const client = merchantApi(resyncing, await resyncing.createMerchant('Resync Shop'));
    const payment = (await client.post('/payment', { amount: '1', asset: BTC, timeout: 60 })).body;
    const stream = await openStream(payment.id, `${resyncing.api}/checkout/${payment.id}/events`);
    assert.equal((await stream.nextPayment())!.payment.status, 'OPEN');
    resyncing.clock.advance(60_000);
    const expired = (await stream.nextPayment())!;
    assert.equal(expired.payment.status, 'EXPIRED');
    const stored = await resyncing.services.db.get('SELECT status FROM payments WHERE id = ?', [payment.id]);
    assert.deepEqual(stored, { status: 'OPEN' }, 'no sweep ran');
    // Followed for late funds half an hour past the expiry; a resync then ends the stream.
    resyncing.clock.advance(30 * 60_000);
    assert.equal(await stream.nextPayment(), undefined);
  });
});
