/**
 * Merchant API hardening over HTTP: Idempotency-Key on every POST, rate limits per API key and per
 * client address (TRUST_PROXY decides the address), caps on open event streams, and key rotation
 * with a grace period.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_TTL_MS } from '../../api/idempotency/idempotency.service.ts';
import { openDatabase } from '../../api/db/open-database.ts';
import { COUNTER_READ_MS, createKeyChanges } from '../../api/merchants/key-changes.ts';
import { createMerchantService } from '../../api/merchants/merchant.service.ts';
import { silentLogger } from '../../api/shared/logger.ts';
import { createUnitOfWork } from '../../api/unit-of-work.ts';
import { getJson, postJson, sign, startTestServer, type JsonResponse, type TestMerchant, type TestServer } from '../helpers/test-server.ts';

const BTC = { short: 'BTC', network: 'bitcoin' };
const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

async function toJson(response: Response): Promise<JsonResponse> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** A signed POST with exactly these body bytes and extra headers. */
async function signedPost(server: TestServer, keys: Pick<TestMerchant, 'apiKey' | 'secretKey'>, path: string, raw: string, headers: Record<string, string> = {}): Promise<JsonResponse> {
  return toJson(
    await fetch(server.api + path, {
      method: 'POST',
      headers: { 'API-KEY': keys.apiKey, 'X-HMAC': sign(raw, keys.secretKey), 'Content-Type': 'application/json', ...headers },
      body: raw,
    }),
  );
}

async function paymentCount(server: TestServer, keys: TestMerchant): Promise<number> {
  const list = await toJson(await fetch(`${server.api}/payment?limit=1`, { headers: { 'API-KEY': keys.apiKey } }));
  return list.body.total;
}

describe('Idempotency-Key', () => {
  let server: TestServer;
  let shop: TestMerchant;
  before(async () => {
    server = await startTestServer();
    shop = await server.createMerchant('Idempotent Shop');
  });
  after(() => server.close());

  test('a repeat with the same key and bytes replays the first answer and creates nothing', async () => {
    const raw = JSON.stringify({ amount: '0.01', asset: BTC, invoice: 'idem-1' });
    const before = await paymentCount(server, shop);
    const first = await signedPost(server, shop, '/payment', raw, { 'Idempotency-Key': 'order-1' });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const again = await signedPost(server, shop, '/payment', raw, { 'Idempotency-Key': 'order-1' });
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal(await paymentCount(server, shop), before + 1);
  });

  test('the same key with other bytes is 422 idempotency-key-reused', async () => {
    await signedPost(server, shop, '/payment', JSON.stringify({ amount: '0.01', asset: BTC }), { 'Idempotency-Key': 'order-2' });
    const other = await signedPost(server, shop, '/payment', JSON.stringify({ amount: '0.02', asset: BTC }), { 'Idempotency-Key': 'order-2' });
    assert.equal(other.status, 422);
    assert.deepEqual(other.body, {
      error: {
        code: 'idempotency-key-reused',
        message: 'This Idempotency-Key was already used with a different request (method, path or body bytes). Use a new key for a new request.',
      },
    });
  });

  test('a repeat while the first attempt runs is 409 idempotency-key-in-use', async () => {
    const raw = JSON.stringify({ amount: '0.01', asset: BTC, invoice: 'idem-running' });
    // What another instance holds while it runs the first attempt.
    const hash = createHash('sha256').update('POST /v2/payment\n').update(raw).digest('hex');
    const now = server.clock();
    assert.ok(await server.services.uow.stores.idempotency.claim(shop.merchant.id, 'order-running', hash, now, now + IDEMPOTENCY_LOCK_MS, now + IDEMPOTENCY_TTL_MS));
    const repeat = await signedPost(server, shop, '/payment', raw, { 'Idempotency-Key': 'order-running' });
    assert.equal(repeat.status, 409);
    assert.equal(repeat.body.error.code, 'idempotency-key-in-use');

    // Its process died: once the lock lapses the key runs again, once.
    server.clock.advance(IDEMPOTENCY_LOCK_MS + 1);
    const retried = await signedPost(server, shop, '/payment', raw, { 'Idempotency-Key': 'order-running' });
    assert.equal(retried.status, 200);
    assert.equal(retried.headers.get('idempotent-replayed'), null);
    const replayed = await signedPost(server, shop, '/payment', raw, { 'Idempotency-Key': 'order-running' });
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    assert.equal(replayed.body.id, retried.body.id);
  });

  test('identical requests sent at once create one payment; the others replay it or are told it is in use', async () => {
    const raw = JSON.stringify({ amount: '0.03', asset: BTC, invoice: 'idem-burst' });
    const before = await paymentCount(server, shop);
    const answers = await Promise.all(Array.from({ length: 8 }, () => signedPost(server, shop, '/payment', raw, { 'Idempotency-Key': 'order-burst' })));
    const created = answers.filter((a) => a.status === 200);
    assert.ok(created.length >= 1);
    assert.equal(new Set(created.map((a) => a.body.id)).size, 1, 'every 200 names the same payment');
    for (const answer of answers) if (answer.status !== 200) assert.equal(answer.body.error.code, 'idempotency-key-in-use');
    assert.equal(await paymentCount(server, shop), before + 1);
  });

  test('a first attempt that failed validation is replayed as that failure', async () => {
    const raw = JSON.stringify({ amount: '-1', asset: BTC });
    const first = await signedPost(server, shop, '/payment', raw, { 'Idempotency-Key': 'order-bad' });
    assert.equal(first.status, 400);
    const again = await signedPost(server, shop, '/payment', raw, { 'Idempotency-Key': 'order-bad' });
    assert.equal(again.status, 400);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
  });

  test('keys are per merchant, and an answer is kept 24 hours', async () => {
    const other = await server.createMerchant('Other Shop');
    const raw = JSON.stringify({ amount: '0.01', asset: BTC });
    const mine = await signedPost(server, shop, '/payment', raw, { 'Idempotency-Key': 'shared-key' });
    const theirs = await signedPost(server, other, '/payment', raw, { 'Idempotency-Key': 'shared-key' });
    assert.equal(theirs.status, 200);
    assert.equal(theirs.headers.get('idempotent-replayed'), null);
    assert.notEqual(theirs.body.id, mine.body.id);
    server.clock.advance(IDEMPOTENCY_TTL_MS);
    const later = await signedPost(server, shop, '/payment', raw, { 'Idempotency-Key': 'shared-key' });
    assert.equal(later.headers.get('idempotent-replayed'), null);
    assert.notEqual(later.body.id, mine.body.id);
  });

  test('withdrawal create and approve replay too; a replayed approve does not send twice', async () => {
    const payment = await signedPost(server, shop, '/payment', JSON.stringify({ amount: '0.5', asset: BTC }));
    await postJson(`${server.api}/dev/transactions`, { address: payment.body.addressTo, amount: '0.5', asset: BTC, confirmations: 6 });
    const raw = JSON.stringify({ amount: '0.1', asset: BTC, addressTo: BTC_ADDRESS, invoice: 'idem-payout' });
    const created = await signedPost(server, shop, '/withdrawal', raw, { 'Idempotency-Key': 'payout-1' });
    assert.equal(created.status, 200);
    const replayed = await signedPost(server, shop, '/withdrawal', raw, { 'Idempotency-Key': 'payout-1' });
    assert.equal(replayed.status, 200);
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    const approve = await signedPost(server, shop, `/withdrawal/${created.body.id}/approve`, '{}', { 'Idempotency-Key': 'approve-1' });
    assert.equal(approve.status, 200);
    const approveAgain = await signedPost(server, shop, `/withdrawal/${created.body.id}/approve`, '{}', { 'Idempotency-Key': 'approve-1' });
    assert.equal(approveAgain.status, 200, 'the first answer, not 409 invalid-state');
    assert.deepEqual(approveAgain.body, approve.body);
  });

  test('refuses a malformed key with 400 validation-failed naming the header, and never a 5xx for any key', async () => {
    const raw = JSON.stringify({ amount: '0.01', asset: BTC });
    // node:http sends any header byte HTTP allows (tab, printable ASCII, 0x80-0xFF); fetch refuses some.
    const post = (key: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = http.request(
          `${server.api}/payment`,
          { method: 'POST', headers: { 'API-KEY': shop.apiKey, 'X-HMAC': sign(raw, shop.secretKey), 'Content-Type': 'application/json', 'Idempotency-Key': key } },
          (response) => {
            let body = '';
            response.setEncoding('utf8').on('data', (chunk) => (body += chunk)).on('end', () => resolve({ status: response.statusCode!, body }));
          },
        );
        request.on('error', reject);
        request.end(raw);
      });
    for (const key of ['x'.repeat(256), 'tab\tinside', 'caf\u00e9']) {
      const answer = await post(key);
      assert.equal(answer.status, 400, JSON.stringify(key));
      assert.deepEqual(JSON.parse(answer.body).error.details, [{ path: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }]);
    }
    // Random keys of every length from every byte a header may carry: a clear answer each time.
    for (let i = 0; i < 60; i++) {
      const key = [...randomBytes(1 + ((i * 7) % 300))].map((b) => (b === 9 || (b >= 0x20 && b !== 0x7f) ? String.fromCharCode(b) : 'x')).join('');
      const answer = await post(key.trim() === '' ? 'k' : key);
      assert.ok([200, 400].includes(answer.status), `status ${answer.status} for a random key`);
      if (answer.status === 400) assert.equal(JSON.parse(answer.body).error.code, 'validation-failed');
    }
  });
});

describe('rate limits', () => {
  let server: TestServer;
  let shop: TestMerchant;
  let other: TestMerchant;
  before(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_MERCHANT: '5', RATE_LIMIT_PUBLIC: '3', TRUST_PROXY: 'loopback' } });
    shop = await server.createMerchant('Busy Shop');
    other = await server.createMerchant('Quiet Shop');
  });
  after(() => server.close());

  test('per API key: headers on every answer, then 429 rate-limited with Retry-After; another key is unaffected', async () => {
    server.clock.set(Date.UTC(2026, 10, 24, 12, 0, 10));
    const get = (keys: TestMerchant) => fetch(`${server.api}/balance`, { headers: { 'API-KEY': keys.apiKey } });
    for (let i = 1; i <= 5; i++) {
      const answer = await get(shop);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('cache-control'), 'no-store', 'merchant records are never cached');
      assert.equal(answer.headers.get('ratelimit-policy'), '"merchant";q=5;w=60');
      assert.equal(answer.headers.get('ratelimit'), `"merchant";r=${5 - i};t=50`);
    }
    const limited = await toJson(await get(shop));
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '50');
    assert.deepEqual(limited.body, { error: { code: 'rate-limited', message: 'Too many requests: at most 5 a minute per API key. Try again in 50 s.' } });
    // Signed POSTs count too.
    assert.equal((await signedPost(server, shop, '/payment', JSON.stringify({ amount: '1', asset: BTC }))).status, 429);
    assert.equal((await get(other)).status, 200);
    server.clock.advance(50_000);
    assert.equal((await get(shop)).status, 200, 'a new window');
  });

  test('public routes per client address, which TRUST_PROXY lets X-Forwarded-For name', async () => {
    server.clock.set(Date.UTC(2026, 10, 24, 13, 0, 0));
    const payment = await signedPost(server, other, '/payment', JSON.stringify({ amount: '0.01', asset: BTC }));
    const view = (address: string) => getJson(`${server.api}/checkout/${payment.body.id}`, { 'X-Forwarded-For': address });
    for (let i = 0; i < 3; i++) assert.equal((await view('203.0.113.7')).status, 200);
    const limited = await view('203.0.113.7');
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('ratelimit-policy'), '"public";q=3;w=60');
    assert.equal(limited.body.error.code, 'rate-limited');
    assert.equal((await view('203.0.113.8')).status, 200, 'another payer');
    const page = await fetch(`${server.url}/pay?id=${payment.body.id}`, { headers: { 'X-Forwarded-For': '203.0.113.7' } });
    assert.equal(page.status, 429, 'the hosted page shares the limit');
  });
});

describe('X-Forwarded-For without TRUST_PROXY', () => {
  test('is ignored: every request counts against the connecting address', async () => {
    const server = await startTestServer({ env: { RATE_LIMIT_PUBLIC: '2' } });
    try {
      const shop = await server.createMerchant();
      const payment = await signedPost(server, shop, '/payment', JSON.stringify({ amount: '0.01', asset: BTC }));
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await getJson(`${server.api}/checkout/${payment.body.id}`, { 'X-Forwarded-For': `198.51.100.${i}` })).status);
      assert.deepEqual(statuses, [200, 200, 429]);
    } finally {
      await server.close();
    }
  });
});

describe('open event streams', () => {
  test('are capped per client address and in all: 429 with Retry-After past a cap, room again once one closes', async () => {
    const server = await startTestServer({ env: { SSE_MAX_STREAMS: '3', SSE_MAX_STREAMS_PER_CLIENT: '2', TRUST_PROXY: '1' } });
    const streams: AbortController[] = [];
    try {
      const shop = await server.createMerchant();
      const payment = await signedPost(server, shop, '/payment', JSON.stringify({ amount: '0.01', asset: BTC }));
      const open = async (address: string) => {
        const controller = new AbortController();
        const response = await fetch(`${server.api}/checkout/${payment.body.id}/events`, { headers: { 'X-Forwarded-For': address }, signal: controller.signal });
        if (response.status === 200) streams.push(controller);
        return response;
      };
      assert.equal((await open('192.0.2.1')).status, 200);
      assert.equal((await open('192.0.2.1')).status, 200);
      const perClient = await open('192.0.2.1');
      assert.equal(perClient.status, 429);
      assert.equal(perClient.headers.get('retry-after'), '30');
      assert.equal(((await perClient.json()) as { error: { code: string } }).error.code, 'rate-limited');
      assert.equal((await open('192.0.2.2')).status, 200);
      assert.equal((await open('192.0.2.3')).status, 429, 'the instance holds its most');
      streams.shift()!.abort();
      let reopened = 0;
      for (let i = 0; i < 50 && reopened !== 200; i++) {
        await new Promise((r) => setTimeout(r, 20));
        reopened = (await open('192.0.2.3')).status;
      }
      assert.equal(reopened, 200, 'a closed stream frees its place');
    } finally {
      for (const stream of streams) stream.abort();
      await server.close();
    }
  });

  test('opened all at once from one address, exactly the per-client cap open and the rest 429', async () => {
    const server = await startTestServer({ env: { SSE_MAX_STREAMS_PER_CLIENT: '20' } });
    const streams: AbortController[] = [];
    try {
      const shop = await server.createMerchant();
      // Streams of payments not yet watched: each first reads its payment, so all are in flight together.
      const payments: string[] = [];
      for (let i = 0; i < 60; i++) payments.push((await signedPost(server, shop, '/payment', JSON.stringify({ amount: '0.01', asset: BTC }))).body.id);
      const answers = await Promise.all(
        Array.from({ length: 120 }, async (_, i) => {
          const controller = new AbortController();
          const response = await fetch(`${server.api}/checkout/${payments[i % payments.length]}/events`, { signal: controller.signal });
          if (response.status === 200) streams.push(controller);
          return { status: response.status, body: response.status === 200 ? undefined : await response.json() };
        }),
      );
      assert.equal(answers.filter((a) => a.status === 200).length, 20);
      const refused = answers.filter((a) => a.status !== 200);
      assert.equal(refused.length, 100);
      for (const answer of refused) {
        assert.deepEqual(answer, {
          status: 429,
          body: { error: { code: 'rate-limited', message: 'Too many live payment streams are open (your address holds the most allowed). Poll GET /v2/checkout/:id with If-None-Match instead, or try again in 30 s.' } },
        });
      }
    } finally {
      for (const stream of streams) stream.abort();
      await server.close();
    }
  });
});

describe('key rotation', () => {
  let server: TestServer;
  let shop: TestMerchant;
  before(async () => {
    server = await startTestServer();
    shop = await server.createMerchant('Rotating Shop');
  });
  after(() => server.close());

  const balance = async (apiKey: string) => toJson(await fetch(`${server.api}/balance`, { headers: { 'API-KEY': apiKey } }));

  test('the old pair works until its grace period ends, the new pair at once; then the old is 401 invalid-api-key', async () => {
    const rotated = (await server.services.merchants.rotateKeys(shop.merchant.id, 60))!;
    assert.match(rotated.apiKey, /^ak_/);
    assert.equal(rotated.previousKeysValidUntil, server.clock() + 60_000);
    assert.equal((await balance(shop.apiKey)).status, 200);
    assert.equal((await balance(rotated.apiKey)).status, 200);
    // The old secret still signs for the old key, the new for the new; crossed pairs fail.
    const raw = JSON.stringify({ amount: '0.01', asset: BTC });
    assert.equal((await signedPost(server, shop, '/payment', raw)).status, 200);
    assert.equal((await signedPost(server, rotated, '/payment', raw)).status, 200);
    assert.equal((await signedPost(server, { apiKey: rotated.apiKey, secretKey: shop.secretKey }, '/payment', raw)).body.error.code, 'invalid-signature');

    server.clock.advance(60_000);
    const expired = await balance(shop.apiKey);
    assert.equal(expired.status, 401);
    assert.deepEqual(expired.body, { error: { code: 'invalid-api-key', message: 'The API key in the API-KEY header is not valid.' } });
    assert.equal((await balance(rotated.apiKey)).status, 200);
    const listed = (await server.services.merchants.list()).find((m) => m.id === shop.merchant.id)!;
    assert.equal(listed.previousKeysValidUntil, null, 'nothing left in its grace period');
    shop = { ...shop, ...rotated };
  });

  test('a second rotation ends every earlier pair no later than its own grace: rotating twice with no grace cuts off a leaked key', async () => {
    const leaked = shop;
    const first = (await server.services.merchants.rotateKeys(shop.merchant.id, 86_400))!;
    assert.equal((await balance(leaked.apiKey)).status, 200, 'in its day of grace');
    const second = (await server.services.merchants.rotateKeys(shop.merchant.id, 0))!;
    assert.equal((await balance(leaked.apiKey)).status, 401, 'the first pair ended with the second rotation');
    assert.equal((await balance(first.apiKey)).status, 401);
    assert.equal((await balance(second.apiKey)).status, 200);
    const listed = (await server.services.merchants.list()).find((m) => m.id === shop.merchant.id)!;
    assert.equal(listed.previousKeysValidUntil, null, 'merchant list shows no pair in a grace period');

    // A longer grace on a later rotation never lengthens an earlier pair's.
    const third = (await server.services.merchants.rotateKeys(shop.merchant.id, 60))!;
    const fourth = (await server.services.merchants.rotateKeys(shop.merchant.id, 3_600))!;
    server.clock.advance(60_000);
    assert.equal((await balance(second.apiKey)).status, 401, 'ended after its own 60 s');
    assert.equal((await balance(third.apiKey)).status, 200, 'in its hour');
    assert.equal((await balance(fourth.apiKey)).status, 200);
    shop = { ...shop, ...fourth };
  });

  test('a rotation by another process is noticed within a second, and its grace ends on the exact clock tick', async () => {
    assert.equal((await balance(shop.apiKey)).status, 200); // remembered by this instance as the current key
    // Another process on the same store (the CLI, another instance): a connection of its own.
    const elsewhere = await openDatabase(server.services.config, silentLogger());
    try {
      const noticed = server.services.keyChanges.next();
      const other = createMerchantService({ uow: createUnitOfWork(elsewhere), serverKey: Buffer.alloc(32), clock: server.clock, keyChanges: createKeyChanges(elsewhere, server.clock) });
      const rotated = (await other.rotateKeys(shop.merchant.id, 5))!;
      // PostgreSQL's NOTIFY reaches the instance by itself; SQLite's change counter is read within a second.
      if (server.store === 'postgres') await noticed;
      server.clock.advance(COUNTER_READ_MS);
      assert.equal((await balance(shop.apiKey)).status, 200, 'in its grace');
      await noticed;
      server.clock.advance(rotated.previousKeysValidUntil - 1 - server.clock());
      assert.equal((await balance(shop.apiKey)).status, 200, 'its last millisecond');
      server.clock.advance(1);
      const ended = await balance(shop.apiKey);
      assert.equal(ended.status, 401, 'the tick its grace ends');
      assert.deepEqual(ended.body, { error: { code: 'invalid-api-key', message: 'The API key in the API-KEY header is not valid.' } });
      assert.equal((await balance(rotated.apiKey)).status, 200);
    } finally {
      await elsewhere.close();
    }
  });
});
