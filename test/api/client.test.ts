/** The typed merchant client (client/) against the real server: every method, paging, signing and its one error class. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { CheckoutApiError, MerchantClient, signBody, verifyWebhook, WebhookVerificationError, type Payment } from '../../client/index.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { logoUrl, postJson, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BTC = { short: 'BTC', network: 'bitcoin' };
const ETH = { short: 'ETH', network: 'ethereum' };
const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const UNKNOWN_ID = '0b7f0a57-5c4e-4d9b-8a52-4b2c0f1e9d33';

let server: TestServer;
let shop: TestMerchant;
let client: MerchantClient;

/** Every request the client made: URL, method, headers and the exact body bytes. */
interface SentRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
}

/** A client whose requests are recorded on their way to the real server. */
function recordingClient(keys: Pick<TestMerchant, 'apiKey' | 'secretKey'>) {
  const sent: SentRequest[] = [];
  const recorded = new MerchantClient({
    baseUrl: server.url,
    ...keys,
    fetch: async (input, init) => {
      sent.push({
        url: String(input),
        method: init?.method ?? 'GET',
        headers: { ...(init?.headers as Record<string, string>) },
        body: init?.body === undefined ? undefined : (init.body as Uint8Array),
      });
      return fetch(input, init);
    },
  });
  return { client: recorded, sent };
}

/** Rejects with a CheckoutApiError carrying exactly these fields. */
async function rejectsWith(promise: Promise<unknown>, expected: { status: number; code: string; message?: string | RegExp; details?: unknown[] }) {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof CheckoutApiError, `expected a CheckoutApiError, got ${String(err)}`);
    assert.equal(err.name, 'CheckoutApiError');
    assert.equal(err.status, expected.status);
    assert.equal(err.code, expected.code);
    if (typeof expected.message === 'string') assert.equal(err.message, expected.message);
    else if (expected.message) assert.match(err.message, expected.message);
    assert.deepEqual(err.details, expected.details ?? []);
    return true;
  });
}

/** Credits the shop's balance the way a payer would: a payment, paid and confirmed on the simulated chain. */
async function fund(asset: { short: string; network: string }, amount: string, confirmations: number): Promise<Payment> {
  const payment = await client.createPayment({ amount, asset });
  const sent = await postJson(`${server.api}/dev/transactions`, { address: payment.addressTo, amount, asset, confirmations });
  assert.equal(sent.status, 200);
  return client.getPayment(payment.id);
}

/** A server on loopback that answers every request with `handler`. */
async function fakeServer(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const fake = http.createServer(handler);
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`,
    close: () => {
      fake.closeAllConnections();
      return new Promise((resolve) => fake.close(() => resolve()));
    },
  };
}

before(async () => {
  server = await startTestServer();
  shop = await server.createMerchant('Client Shop');
  client = new MerchantClient({ baseUrl: server.url, apiKey: shop.apiKey, secretKey: shop.secretKey });
});
after(() => server.close());

describe('payments', () => {
  test('createPayment returns the full OPEN record, getPayment the same record', async () => {
    const created = await client.createPayment({ amount: '0.015', asset: BTC, invoice: 'client-create', customer: { id: 7, email: 'payer@example.com' } });
    assert.equal(created.status, 'OPEN');
    assert.equal(created.amount, '0.01500000');
    assert.equal(created.amountDue, '0.01500000');
    assert.equal(created.totalReceivedAmount, '0.00000000');
    assert.deepEqual(created.asset, { short: 'BTC', network: 'bitcoin', name: 'Bitcoin', logoUrl: logoUrl(server, 'btc'), decimals: 8 });
    assert.deepEqual(created.customer, { id: 7, email: 'payer@example.com' });
    assert.equal(created.invoice, 'client-create');
    assert.equal(created.paymentRedirectUrl, `${server.url}/pay?id=${created.id}`);
    assert.deepEqual(created.transactions, []);
    assert.deepEqual(await client.getPayment(created.id), created);
  });

  test('listPayments returns one page with the envelope and applies the filters', async () => {
    const first = await client.createPayment({ amount: '1', asset: ETH, invoice: 'client-list-a' });
    server.clock.advance(1_000);
    const second = await client.createPayment({ amount: '2', asset: ETH, invoice: 'client-list-b' });
    const page = await client.listPayments({ invoices: ['client-list-a', 'client-list-b'], statuses: ['OPEN'], limit: 1 });
    assert.deepEqual(page, { data: [second], page: 1, limit: 1, total: 2 });
    const byId = await client.listPayments({ ids: [first.id] });
    assert.deepEqual(byId, { data: [first], page: 1, limit: 20, total: 1 });
  });

  test('payments() walks every page from page 1, newest first, each record once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      server.clock.advance(1_000);
      ids.unshift((await client.createPayment({ amount: '1', asset: ETH, invoice: `client-pager-${i}` })).id);
    }
    const { client: recorded, sent } = recordingClient(shop);
    const seen: string[] = [];
    for await (const payment of recorded.payments({ invoices: ids.map((_, i) => `client-pager-${i}`), limit: 3 })) seen.push(payment.id);
    assert.deepEqual(seen, ids);
    assert.deepEqual(
      sent.map((request) => new URL(request.url).searchParams.get('page')),
      ['1', '2', '3'],
    );
  });

  test('payments() can stop early without fetching further pages', async () => {
    const { client: recorded, sent } = recordingClient(shop);
    for await (const payment of recorded.payments({ limit: 2 })) {
      assert.equal(typeof payment.id, 'string');
      break;
    }
    assert.equal(sent.length, 1);
  });

  test('payments() ends on an empty list after one request', async () => {
    const { client: recorded, sent } = recordingClient(shop);
    const seen = [];
    for await (const payment of recorded.payments({ invoices: ['no-such-invoice'] })) seen.push(payment);
    assert.deepEqual(seen, []);
    assert.equal(sent.length, 1);
  });

  test('follows a payment to COMPLETE as the simulated chain confirms it', async () => {
    const paid = await fund(BTC, '0.25', 2);
    assert.equal(paid.status, 'COMPLETE');
    assert.equal(paid.totalReceivedAmount, '0.25000000');
    assert.equal(paid.transactions.length, 1);
    assert.equal(paid.transactions[0]!.confirmations, 2);
    assert.equal((await client.listPayments({ txnIds: [paid.transactions[0]!.txnId] })).data[0]!.id, paid.id);
  });
});

describe('withdrawals and balance', () => {
  before(async () => {
    await fund(BTC, '1', 2);
  });

  test('getBalance lists what confirmed payments credited', async () => {
    const balances = await client.getBalance();
    const btc = balances.find((row) => row.asset.short === 'BTC');
    assert.ok(btc);
    assert.equal(btc.asset.network, 'bitcoin');
    assert.match(btc.available, /^[0-9]+\.[0-9]{8}$/);
    assert.equal(btc.reserved, '0.00000000');
  });

  test('createWithdrawal reserves the amount; getWithdrawal and listWithdrawals return it', async () => {
    const before = (await client.getBalance()).find((row) => row.asset.short === 'BTC')!;
    const withdrawal = await client.createWithdrawal({ amount: '0.1', asset: BTC, addressTo: BTC_ADDRESS, invoice: 'client-w-1' });
    assert.equal(withdrawal.status, 'OPEN');
    assert.equal(withdrawal.amount, '0.10000000');
    assert.equal(withdrawal.addressTo, BTC_ADDRESS);
    assert.equal(withdrawal.txnId, null);
    assert.deepEqual(await client.getWithdrawal(withdrawal.id), withdrawal);
    assert.deepEqual(await client.listWithdrawals({ invoices: ['client-w-1'] }), { data: [withdrawal], page: 0, limit: 20, total: 1 });
    const afterCreate = (await client.getBalance()).find((row) => row.asset.short === 'BTC')!;
    assert.equal(afterCreate.reserved, '0.10000000');
    assert.equal(Math.round((Number(before.available) - Number(afterCreate.available)) * 1e8), 10_000_000);
  });

  test('approveWithdrawal sends the payout; cancelWithdrawal releases an OPEN one', async () => {
    const toApprove = await client.createWithdrawal({ amount: '0.05', asset: BTC, addressTo: BTC_ADDRESS, invoice: 'client-w-approve' });
    const approved = await client.approveWithdrawal(toApprove.id);
    assert.equal(approved.status, 'APPROVED');
    assert.equal(approved.id, toApprove.id);
    assert.notEqual(approved.txnId, null);
    assert.notEqual(approved.addressFrom, null);

    const toCancel = await client.createWithdrawal({ amount: '0.05', asset: BTC, addressTo: BTC_ADDRESS, invoice: 'client-w-cancel' });
    const cancelled = await client.cancelWithdrawal(toCancel.id);
    assert.deepEqual({ ...cancelled, updatedAt: toCancel.updatedAt }, { ...toCancel, status: 'CANCELLED' });
  });

  test('withdrawals() walks every page from page 0', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      server.clock.advance(1_000);
      ids.unshift((await client.createWithdrawal({ amount: '0.001', asset: BTC, addressTo: BTC_ADDRESS, invoice: `client-w-pager-${i}` })).id);
    }
    const { client: recorded, sent } = recordingClient(shop);
    const seen: string[] = [];
    for await (const withdrawal of recorded.withdrawals({ invoices: ids.map((_, i) => `client-w-pager-${i}`), statuses: ['OPEN'], limit: 2 })) {
      seen.push(withdrawal.id);
    }
    assert.deepEqual(seen, ids);
    assert.deepEqual(
      sent.map((request) => new URL(request.url).searchParams.get('page')),
      ['0', '1', '2'],
    );
  });
});

describe('assets', () => {
  test('assets() lists the served assets with confirmations and fees, without sending the API key', async () => {
    const { client: recorded, sent } = recordingClient(shop);
    const assets = await recorded.assets();
    const bitcoin = assets.find((asset) => asset.short === 'BTC' && asset.network === 'bitcoin');
    assert.deepEqual(bitcoin, {
      short: 'BTC',
      network: 'bitcoin',
      name: 'Bitcoin',
      logoUrl: logoUrl(server, 'btc'),
      decimals: 8,
      confirmsNeeded: 2,
      withdrawalFee: '0.00002000',
      minWithdrawal: '0.00002546',
    });
    assert.ok(assets.some((asset) => asset.short === 'XRP' && asset.network === 'ripple'));
    assert.equal(sent[0]!.headers['API-KEY'], undefined);
  });
});

describe('signing', () => {
  test('signs exactly the bytes it sends, unicode included, and the server accepts them', async () => {
    const { client: recorded, sent } = recordingClient(shop);
    const invoice = 'Café ☕ 東京 🚀 "quoted" \\ back/slash';
    const payment = await recorded.createPayment({ amount: '0.5', asset: ETH, invoice, customer: { name: 'Zoë Ñúñez' } });
    assert.equal(payment.invoice, invoice);
    assert.deepEqual(payment.customer, { name: 'Zoë Ñúñez' });

    const request = sent[0]!;
    assert.equal(request.method, 'POST');
    assert.ok(request.body instanceof Uint8Array);
    const text = new TextDecoder().decode(request.body);
    assert.equal(text, JSON.stringify({ amount: '0.5', asset: ETH, invoice, customer: { name: 'Zoë Ñúñez' } }));
    // Non-ASCII travels as UTF-8, not as \u escapes, so the bytes differ from the UTF-16 length.
    assert.ok(request.body.length > text.length);
    assert.equal(request.headers['X-HMAC'], createHmac('sha256', shop.secretKey).update(request.body).digest('hex'));
    assert.equal(request.headers['API-KEY'], shop.apiKey);
    assert.equal(request.headers['Content-Type'], 'application/json');
  });

  test('signs the approve and cancel actions over the body {}', async () => {
    const { client: recorded, sent } = recordingClient(shop);
    await rejectsWith(recorded.cancelWithdrawal(UNKNOWN_ID), { status: 404, code: 'withdrawal-not-found' });
    assert.equal(new TextDecoder().decode(sent[0]!.body), '{}');
    assert.equal(sent[0]!.headers['X-HMAC'], signBody('{}', shop.secretKey));
  });

  test('sends no signature on GETs', async () => {
    const { client: recorded, sent } = recordingClient(shop);
    await recorded.listPayments({ limit: 1 });
    assert.equal(sent[0]!.headers['X-HMAC'], undefined);
    assert.equal(sent[0]!.body, undefined);
  });

  test('signBody is the hex HMAC-SHA256 of the bytes, the same for a string and its UTF-8 bytes', () => {
    const body = '{"invoice":"東京"}';
    const expected = createHmac('sha256', 'secret').update(Buffer.from(body, 'utf8')).digest('hex');
    assert.equal(signBody(body, 'secret'), expected);
    assert.equal(signBody(new TextEncoder().encode(body), 'secret'), expected);
    assert.match(expected, /^[0-9a-f]{64}$/);
  });
});

describe('errors', () => {
  test('400 validation-failed carries every bad field in details', async () => {
    await rejectsWith(client.createPayment({ amount: 'abc', asset: { short: '', network: 'bitcoin' } }), {
      status: 400,
      code: 'validation-failed',
      message: 'The request has invalid fields: amount, asset.short.',
      details: [
        { path: 'amount', message: 'must be digits with an optional decimal point, like "10.50" (no sign, exponent or spaces)' },
        { path: 'asset.short', message: 'must not be empty' },
      ],
    });
  });

  test('400 unsupported-asset and 400 on an out-of-range page', async () => {
    await rejectsWith(client.createPayment({ amount: '1', asset: { short: 'DOGE', network: 'dogecoin' } }), { status: 400, code: 'unsupported-asset' });
    await rejectsWith(client.listPayments({ page: 0 }), { status: 400, code: 'validation-failed', details: [{ path: 'page', message: 'must be from 1 to 999999999' }] });
  });

  test('401 invalid-api-key and 401 invalid-signature', async () => {
    const wrongKey = new MerchantClient({ baseUrl: server.url, apiKey: 'not-a-key', secretKey: shop.secretKey });
    await rejectsWith(wrongKey.getBalance(), { status: 401, code: 'invalid-api-key', message: 'The API key in the API-KEY header is not valid.' });
    const wrongSecret = new MerchantClient({ baseUrl: server.url, apiKey: shop.apiKey, secretKey: 'another-secret' });
    await rejectsWith(wrongSecret.createPayment({ amount: '1', asset: BTC }), { status: 401, code: 'invalid-signature', message: /Sign the exact body bytes/ });
  });

  test('404 payment-not-found and withdrawal-not-found, for unknown, foreign and empty ids', async () => {
    await rejectsWith(client.getPayment(UNKNOWN_ID), { status: 404, code: 'payment-not-found', message: `No payment with id "${UNKNOWN_ID}" exists for this merchant.` });
    await rejectsWith(client.getWithdrawal(UNKNOWN_ID), { status: 404, code: 'withdrawal-not-found' });
    await rejectsWith(client.approveWithdrawal(UNKNOWN_ID), { status: 404, code: 'withdrawal-not-found' });
    const other = await server.createMerchant('Other Shop');
    const foreign = await new MerchantClient({ baseUrl: server.url, ...other }).createPayment({ amount: '1', asset: BTC });
    await rejectsWith(client.getPayment(foreign.id), { status: 404, code: 'payment-not-found' });
    await rejectsWith(client.getPayment(''), { status: 404, code: 'payment-not-found', message: 'There is no payment with an empty id.' });
    await rejectsWith(client.getPayment('../balance'), { status: 404, code: 'payment-not-found' });
  });

  test('409 invalid-state and 409 duplicate-invoice', async () => {
    await fund(BTC, '0.1', 2);
    const withdrawal = await client.createWithdrawal({ amount: '0.01', asset: BTC, addressTo: BTC_ADDRESS, invoice: 'client-409' });
    await client.cancelWithdrawal(withdrawal.id);
    await rejectsWith(client.approveWithdrawal(withdrawal.id), {
      status: 409,
      code: 'invalid-state',
      message: 'The withdrawal is CANCELLED; only an OPEN withdrawal can be approved.',
    });
    await rejectsWith(client.createWithdrawal({ amount: '0.01', asset: BTC, addressTo: BTC_ADDRESS, invoice: 'client-409' }), { status: 409, code: 'duplicate-invoice' });
  });

  test('422 insufficient-funds', async () => {
    await rejectsWith(client.createWithdrawal({ amount: '1000', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'client-422' }), {
      status: 422,
      code: 'insufficient-funds',
    });
  });

  test('carries the X-Request-Id of the answer', async () => {
    const err = await client.getPayment(UNKNOWN_ID).catch((e: unknown) => e);
    assert.ok(err instanceof CheckoutApiError);
    assert.match(err.requestId ?? '', /.+/);
  });

  test('network-error (status 0) when nothing listens', async () => {
    const closed = await fakeServer(() => {});
    await closed.close();
    const unreachable = new MerchantClient({ baseUrl: closed.url, apiKey: 'k', secretKey: 's' });
    await rejectsWith(unreachable.getBalance(), { status: 0, code: 'network-error', message: new RegExp(`^GET ${closed.url}/v2/balance failed before an answer arrived: `) });
  });

  test('timeout (status 0) when the answer does not come in time', async () => {
    const silent = await fakeServer(() => {});
    try {
      const waiting = new MerchantClient({ baseUrl: silent.url, apiKey: 'k', secretKey: 's', timeout: 200 });
      await rejectsWith(waiting.createPayment({ amount: '1', asset: BTC }), { status: 0, code: 'timeout', message: `POST ${silent.url}/v2/payment got no complete answer within 200 ms.` });
    } finally {
      await silent.close();
    }
  });

  test('invalid-response with the HTTP status for an answer that is not the API\'s JSON', async () => {
    const proxy = await fakeServer((req, res) => {
      if (req.url === '/v2/balance') {
        res.writeHead(502, { 'Content-Type': 'text/html' }).end('<html><body>Bad gateway</body></html>');
      } else if (req.url === '/v2/assets') {
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"data": [');
      } else if (req.url?.startsWith('/v2/payment')) {
        res.writeHead(500, { 'Content-Type': 'application/json' }).end('{"message": "oops"}');
      } else {
        res.writeHead(301, { Location: 'https://elsewhere.example/v2/withdrawal' }).end();
      }
    });
    try {
      const confused = new MerchantClient({ baseUrl: proxy.url, apiKey: 'k', secretKey: 's' });
      await rejectsWith(confused.getBalance(), {
        status: 502,
        code: 'invalid-response',
        message: `GET ${proxy.url}/v2/balance answered 502 with a body that is not JSON (text/html): "<html><body>Bad gateway</body></html>".`,
      });
      await rejectsWith(confused.assets(), { status: 200, code: 'invalid-response', message: /answered 200 with a body that is not JSON/ });
      await rejectsWith(confused.listPayments(), { status: 500, code: 'invalid-response', message: /answered 500 with JSON that is not an error of this API/ });
      await rejectsWith(confused.listWithdrawals(), { status: 301, code: 'invalid-response', message: /redirect to https:\/\/elsewhere\.example\/v2\/withdrawal/ });
    } finally {
      await proxy.close();
    }
  });

  test('invalid-response for a success that is not a record or list of this API (a baseUrl pointing elsewhere)', async () => {
    const elsewhere = await fakeServer((req, res) => {
      if (req.url === '/v2/balance' || req.url?.startsWith('/v2/payment/')) res.writeHead(204).end();
      else if (req.method === 'DELETE') res.writeHead(204).end();
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"unexpected":true}');
    });
    try {
      const confused = new MerchantClient({ baseUrl: elsewhere.url, apiKey: 'k', secretKey: 's' });
      await rejectsWith(confused.getBalance(), { status: 204, code: 'invalid-response', message: `GET ${elsewhere.url}/v2/balance answered 204 with no body, where a record or a list was expected.` });
      await rejectsWith(confused.getPayment('6f1c1b7e-0c1f-4a55-9d8e-2b8f9f1e2a3b'), { status: 204, code: 'invalid-response', message: /answered 204 with no body/ });
      await rejectsWith(confused.assets(), { status: 200, code: 'invalid-response', message: /answered 200 with JSON that is not a record or list of this API: "\{\\"unexpected\\":true\}"/ });
      await rejectsWith(confused.createPayment({ amount: '1', asset: BTC }), { status: 200, code: 'invalid-response', message: /not a record or list of this API/ });
      assert.equal(await confused.deleteWebhook('6f1c1b7e-0c1f-4a55-9d8e-2b8f9f1e2a3b'), undefined, 'a DELETE answers no body');
    } finally {
      await elsewhere.close();
    }
  });
});

describe('idempotency and retries', () => {
  test('each POST carries its own fresh Idempotency-Key; a caller may name one', async () => {
    const { client: recorded, sent } = recordingClient(shop);
    await recorded.createPayment({ amount: '0.01', asset: BTC });
    await recorded.createPayment({ amount: '0.01', asset: BTC });
    const named = await recorded.createPayment({ amount: '0.01', asset: BTC }, { idempotencyKey: 'order-4711' });
    const keys = sent.map((r) => r.headers['Idempotency-Key']);
    assert.match(keys[0]!, /^[0-9a-f-]{36}$/);
    assert.notEqual(keys[0], keys[1]);
    assert.equal(keys[2], 'order-4711');
    assert.equal((await recorded.createPayment({ amount: '0.01', asset: BTC }, { idempotencyKey: 'order-4711' })).id, named.id, 'the service replays it');
  });

  test('a lost answer is retried with the same key: the service acts once and the caller gets the record', async () => {
    const sent: string[] = [];
    let dropped = false;
    const flaky = new MerchantClient({
      baseUrl: server.url,
      ...shop,
      retries: 2,
      fetch: async (input, init) => {
        sent.push((init!.headers as Record<string, string>)['Idempotency-Key']!);
        const answer = await fetch(input, init);
        if (!dropped) {
          // The service stored the payment, but the answer never reached us.
          dropped = true;
          throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
        }
        return answer;
      },
    });
    const invoice = `retry-${Date.now()}`;
    const payment = await flaky.createPayment({ amount: '0.02', asset: BTC, invoice });
    assert.equal(sent.length, 2);
    assert.equal(sent[0], sent[1], 'the retry reuses the key');
    assert.equal((await client.listPayments({ invoices: [invoice] })).total, 1, 'created once');
    assert.equal(payment.invoice, invoice);
  });

  test('retries are off by default, and a 4xx is never retried', async () => {
    let calls = 0;
    const counting = (retries: number | undefined) =>
      new MerchantClient({
        baseUrl: server.url,
        ...shop,
        ...(retries === undefined ? {} : { retries }),
        fetch: async (input, init) => {
          calls++;
          return fetch(input, init);
        },
      });
    await rejectsWith(counting(undefined).getPayment(UNKNOWN_ID), { status: 404, code: 'payment-not-found', message: /No payment/ });
    await assert.rejects(counting(3).createPayment({ amount: '-1', asset: BTC }), (err: unknown) => err instanceof CheckoutApiError && err.code === 'validation-failed');
    assert.equal(calls, 2);
    const down = await fakeServer((_req, res) => res.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '0' }).end('{"error":{"code":"database-unavailable","message":"down"}}'));
    try {
      let attempts = 0;
      const retrying = new MerchantClient({ baseUrl: down.url, ...shop, retries: 2, fetch: async (i, init) => (attempts++, fetch(i, init)) });
      await rejectsWith(retrying.getBalance(), { status: 503, code: 'database-unavailable', message: 'down' });
      assert.equal(attempts, 3, 'one call and two retries');
    } finally {
      await down.close();
    }
  });
});

describe('webhooks', () => {
  test('createWebhook, listWebhooks, listDeliveries, redeliver and deleteWebhook, each event verified by verifyWebhook', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const created = await client.createWebhook({ url: `${receiver.url}/client-hooks`, events: ['payment.completed'] });
      assert.match(created.secret, /^whsec_/);
      assert.deepEqual(created.events, ['payment.completed']);
      const listed = await client.listWebhooks();
      assert.ok(listed.some((w) => w.id === created.id && !('secret' in w)));
      const payment = await client.createPayment({ amount: '0.01', asset: BTC });
      await postJson(`${server.api}/dev/transactions`, { address: payment.addressTo, amount: '0.01', asset: BTC, confirmations: 10 });
      await server.services.dispatcher.run();
      const [request] = receiver.at('/client-hooks');
      assert.ok(request);
      const event = verifyWebhook(request.body, request.headers as Record<string, string>, created.secret);
      assert.equal(event.type, 'payment.completed');
      assert.equal(event.data.id, payment.id);
      const deliveries = await client.listDeliveries(created.id, { limit: 5 });
      assert.equal(deliveries.total, 1);
      assert.equal(deliveries.data[0]!.statusCode, 200);
      const again = await client.redeliver(created.id, deliveries.data[0]!.id);
      assert.equal(again.attempt, 2);
      assert.equal(again.eventId, request.headers['webhook-id']);
      assert.equal(receiver.at('/client-hooks').length, 2);
      assert.equal(await client.deleteWebhook(created.id), undefined);
      await assert.rejects(client.deleteWebhook(created.id), (err: CheckoutApiError) => err.status === 404 && err.code === 'webhook-not-found');
      await assert.rejects(client.redeliver(created.id, ''), (err: CheckoutApiError) => err.code === 'webhook-not-found' || err.code === 'delivery-not-found');
    } finally {
      await receiver.close();
    }
  });

  test('verifyWebhook agrees with the standardwebhooks package and names each way a request fails', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = JSON.stringify({ type: 'payment.completed', timestamp: '2026-11-24T10:00:00.000Z', data: { id: 'x' } });
    const now = Date.now();
    const timestamp = new Date(Math.floor(now / 1000) * 1000);
    const signature = new Webhook(secret).sign('msg_1', timestamp, body);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp.getTime() / 1000), 'webhook-signature': signature };
    assert.equal(verifyWebhook(body, headers, secret).type, 'payment.completed');
    assert.equal(verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret, { now }).type, 'payment.completed');
    // Several signatures during a secret rotation: one match is enough.
    assert.equal(verifyWebhook(body, { ...headers, 'webhook-signature': `v1,AAAA ${signature}` }, secret).type, 'payment.completed');
    const fails = (fn: () => unknown, pattern: RegExp) => assert.throws(fn, (err: Error) => err instanceof WebhookVerificationError && pattern.test(err.message));
    fails(() => verifyWebhook(`${body} `, headers, secret), /does not match/);
    fails(() => verifyWebhook(body, headers, 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), /does not match/);
    fails(() => verifyWebhook(body, { ...headers, 'webhook-id': 'msg_2' }, secret), /does not match/);
    fails(() => verifyWebhook(body, headers, secret, { now: now + 600_000 }), /more than 300 s/);
    fails(() => verifyWebhook(body, { 'webhook-id': 'msg_1' }, secret), /missing/);
    fails(() => verifyWebhook(body, headers, 'not-a-secret'), /whsec_/);
  });
});

describe('construction', () => {
  test('accepts the base URL with or without /v2 and trailing slashes', async () => {
    for (const baseUrl of [server.url, `${server.url}/`, `${server.url}/v2`, `${server.url}/v2/`]) {
      const each = new MerchantClient({ baseUrl, apiKey: shop.apiKey, secretKey: shop.secretKey });
      assert.ok(Array.isArray(await each.getBalance()), baseUrl);
    }
  });

  test('refuses a missing key, a non-http URL or a bad timeout with a TypeError', () => {
    const keys = { apiKey: 'k', secretKey: 's' };
    assert.throws(() => new MerchantClient({ baseUrl: 'pay.example.com', ...keys }), { name: 'TypeError', message: 'baseUrl must be an absolute http(s) URL, got "pay.example.com"' });
    assert.throws(() => new MerchantClient({ baseUrl: 'ftp://pay.example.com', ...keys }), { name: 'TypeError', message: /must start with http:\/\/ or https:\/\// });
    assert.throws(() => new MerchantClient({ baseUrl: server.url, apiKey: '', secretKey: 's' }), { name: 'TypeError', message: 'apiKey is required' });
    assert.throws(() => new MerchantClient({ baseUrl: server.url, apiKey: 'k', secretKey: '' }), { name: 'TypeError', message: 'secretKey is required' });
    assert.throws(() => new MerchantClient({ baseUrl: server.url, ...keys, timeout: 0 }), { name: 'TypeError', message: /timeout must be a positive whole number/ });
  });
});

describe('the package export', () => {
  test('crypto-checkout/client loads the compiled client in plain Node (after npm run build)', async (t) => {
    if (!fs.existsSync(path.join(ROOT, 'dist', 'client', 'client', 'index.js'))) {
      t.skip('dist/client is not built; `npm run build` (which npm test runs first) compiles it');
      return;
    }
    assert.ok(fs.existsSync(path.join(ROOT, 'dist', 'client', 'client', 'index.d.ts')));
    const script = `
      const { MerchantClient, CheckoutApiError, signBody } = await import('crypto-checkout/client');
      const client = new MerchantClient({ baseUrl: process.env.BASE, apiKey: process.env.API_KEY, secretKey: process.env.SECRET });
      const payment = await client.createPayment({ amount: '0.01', asset: { short: 'BTC', network: 'bitcoin' }, invoice: 'built-export' });
      const err = await client.getPayment('${UNKNOWN_ID}').catch((e) => e);
      console.log(JSON.stringify({ status: payment.status, isError: err instanceof CheckoutApiError, code: err.code, sig: signBody('{}', 'k') }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { ...process.env, BASE: server.url, API_KEY: shop.apiKey, SECRET: shop.secretKey, NODE_OPTIONS: '' },
    });
    assert.deepEqual(JSON.parse(stdout), { status: 'OPEN', isError: true, code: 'payment-not-found', sig: signBody('{}', 'k') });
  });
});
