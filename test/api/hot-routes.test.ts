/**
 * The polled GETs (a payment's record, the payer's view) are dispatched straight to their handlers
 * (api/http/hot-routes.ts); every other form of the same paths goes through the router. Both must
 * answer alike: the same status, body and headers, errors included.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import v8 from 'node:v8';
import { createApp } from '../../api/app.ts';
import { merchantApi, sign, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';

const BTC = { short: 'BTC', network: 'bitcoin' };
// Headers that differ between any two answers.
const PER_ANSWER = new Set(['x-request-id', 'date', 'ratelimit', 'content-length', 'keep-alive', 'connection']);

async function answer(url: string, headers: Record<string, string> = {}, sent?: string) {
  const response = await fetch(url, sent === undefined ? { headers } : { method: 'POST', headers, body: sent });
  const body = await response.text();
  const kept = [...response.headers].filter(([name]) => !PER_ANSWER.has(name)).sort(([a], [b]) => a.localeCompare(b));
  return { status: response.status, body, headers: kept, requestId: response.headers.get('x-request-id'), rateLimit: response.headers.get('ratelimit') };
}

describe('GETs dispatched directly answer as the router does', () => {
  let server: TestServer;
  let keys: TestMerchant;
  let id: string;

  before(async () => {
    server = await startTestServer();
    keys = await server.createMerchant('Direct Shop');
    id = (await merchantApi(server, keys).post('/payment', { amount: '0.25', asset: BTC, invoice: 'direct-1' })).body.id;
  });
  after(() => server.close());

  test("a payment's record, an unknown id, a missing and a wrong API key", async () => {
    const cases: Array<[string, Record<string, string>]> = [
      [id, { 'API-KEY': keys.apiKey }],
      [`${id}?fields=ignored`, { 'API-KEY': keys.apiKey }],
      ['00000000-0000-4000-8000-000000000000', { 'API-KEY': keys.apiKey }],
      ['not-a-uuid', { 'API-KEY': keys.apiKey }],
      [id, {}],
      [id, { 'API-KEY': 'wrong' }],
    ];
    for (const [path, headers] of cases) {
      const direct = await answer(`${server.api}/payment/${path}`, headers);
      // A trailing slash is the same route to Express, but not the plain form: the router serves it.
      const [bare, query] = path.split('?');
      const routed = await answer(`${server.api}/payment/${bare}/${query ? `?${query}` : ''}`, headers);
      assert.deepEqual(direct, { ...routed, requestId: direct.requestId, rateLimit: direct.rateLimit }, `GET /v2/payment/${path}`);
      assert.match(direct.requestId ?? '', /^[0-9a-f-]{36}$/);
      if (headers['API-KEY'] === keys.apiKey) assert.match(direct.rateLimit ?? '', /^"merchant";r=\d+;t=\d+$/);
    }
  });

  test('a filtered list, a bad filter and a missing key', async () => {
    const cases: Array<[string, Record<string, string>]> = [
      ['?statuses=OPEN&invoices=direct-1', { 'API-KEY': keys.apiKey }],
      ['?limit=1', { 'API-KEY': keys.apiKey }],
      ['?statuses=PAID', { 'API-KEY': keys.apiKey }],
      ['', { 'API-KEY': keys.apiKey }],
      ['?statuses=OPEN', {}],
    ];
    for (const [query, headers] of cases) {
      const direct = await answer(`${server.api}/payment${query}`, headers);
      const routed = await answer(`${server.api}/payment/${query}`, headers);
      assert.deepEqual(direct, { ...routed, requestId: direct.requestId, rateLimit: direct.rateLimit }, `GET /v2/payment${query}`);
    }
  });

  test('a create: signed, unsigned, wrongly signed, not JSON, invalid, and an idempotent replay', async () => {
    const body = (invoice: string) => JSON.stringify({ amount: '0.1', asset: BTC, invoice });
    const signed = (raw: string, extra: Record<string, string> = {}) => ({ 'API-KEY': keys.apiKey, 'X-HMAC': sign(raw, keys.secretKey), 'Content-Type': 'application/json', ...extra });
    const invalid = JSON.stringify({ amount: '-1', asset: BTC });
    const cases: Array<[string, Record<string, string>, string]> = [
      ['unsigned', { 'API-KEY': keys.apiKey, 'Content-Type': 'application/json' }, body('a')],
      ['wrong signature', { ...signed(body('b')), 'X-HMAC': 'f'.repeat(64) }, body('b')],
      ['not JSON', signed('{'), '{'],
      ['invalid', signed(invalid), invalid],
      ['text/plain', { ...signed(body('c')), 'Content-Type': 'text/plain' }, body('c')],
    ];
    for (const [name, headers, raw] of cases) {
      const direct = await answer(`${server.api}/payment`, headers, raw);
      const routed = await answer(`${server.api}/payment/`, headers, raw);
      assert.deepEqual(direct, { ...routed, requestId: direct.requestId, rateLimit: direct.rateLimit }, name);
      assert.ok(direct.status >= 400, name);
    }
    // Made twice, once each way: the same answer but for the payment's own id, address, times and URLs.
    const made = await answer(`${server.api}/payment`, signed(body('made')), body('made'));
    const madeRouted = await answer(`${server.api}/payment/`, signed(body('made')), body('made'));
    assert.equal(made.status, 200);
    assert.deepEqual(made.headers, madeRouted.headers);
    assert.deepEqual(Object.keys(JSON.parse(made.body)), Object.keys(JSON.parse(madeRouted.body)));
    // An idempotent create replays its first answer in either lane (the key covers the path as sent).
    for (const path of ['/payment', '/payment/']) {
      const raw = body(`idem${path}`);
      const first = await answer(`${server.api}${path}`, signed(raw, { 'Idempotency-Key': `idem${path}` }), raw);
      const replay = await answer(`${server.api}${path}`, signed(raw, { 'Idempotency-Key': `idem${path}` }), raw);
      assert.equal(first.status, 200);
      assert.equal(replay.body, first.body, path);
    }
  });

  test("the payer's view, its 304 and an unknown id", async () => {
    const first = await answer(`${server.api}/checkout/${id}`);
    const etag = first.headers.find(([name]) => name === 'etag')![1];
    const cases: Array<[string, Record<string, string>]> = [
      [id, {}],
      [id, { 'If-None-Match': etag }],
      ['00000000-0000-4000-8000-000000000000', {}],
    ];
    for (const [path, headers] of cases) {
      const direct = await answer(`${server.api}/checkout/${path}`, headers);
      const routed = await answer(`${server.api}/checkout/${path}/`, headers);
      // serverTime moves between two reads.
      const timeless = (body: string) => body.replace(/"serverTime":"[^"]+"/, '');
      assert.deepEqual({ ...direct, body: timeless(direct.body) }, { ...routed, body: timeless(routed.body), requestId: direct.requestId, rateLimit: direct.rateLimit }, `GET /v2/checkout/${path}`);
      assert.match(direct.rateLimit ?? '', /^"public";r=\d+;t=\d+$/);
    }
  });

  test("never enters Express's router for the plain forms, and enters it for every other form", async () => {
    // An app of its own over the same services, with its router's entry counted.
    const app = createApp(server.services);
    const router = (app as unknown as { router: { handle(...args: unknown[]): void } }).router;
    const routerHandle = router.handle.bind(router);
    let entered = 0;
    router.handle = (...args: unknown[]) => {
      entered++;
      routerHandle(...args);
    };
    const listener = http.createServer(app);
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/v2`;
    try {
      const raw = JSON.stringify({ amount: '0.1', asset: BTC, invoice: 'router-count' });
      const signed = { 'API-KEY': keys.apiKey, 'X-HMAC': sign(raw, keys.secretKey), 'Content-Type': 'application/json' };
      const hot: Array<[string, Record<string, string>, string?]> = [
        [`/payment/${id}`, { 'API-KEY': keys.apiKey }],
        ['/payment?statuses=OPEN', { 'API-KEY': keys.apiKey }],
        [`/checkout/${id}`, {}],
        ['/payment/00000000-0000-4000-8000-000000000000', { 'API-KEY': keys.apiKey }],
        [`/payment/${id}`, {}],
        ['/payment', signed, raw],
        ['/payment', { ...signed, 'X-HMAC': 'f'.repeat(64) }, raw],
      ];
      const statuses = [];
      for (const [path, headers, body] of hot) statuses.push((await answer(`${base}${path}`, headers, body)).status);
      assert.deepEqual(statuses, [200, 200, 200, 404, 401, 200, 401]);
      assert.equal(entered, 0, 'the router was entered for a plain form');
      for (const path of [`/payment/${id}/`, `/checkout/${id}/`, '/assets', `/payment/${id.toUpperCase()}x/`]) await answer(`${base}${path}`, { 'API-KEY': keys.apiKey });
      assert.equal(entered, 4);
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });

  test('gives every request of a route one shape, hot or through the router', async () => {
    // V8 gives an object that gains a property after its prototype changed a map of its own; two
    // requests that do never share one, and every property access on them then misses its caches.
    v8.setFlagsFromString('--allow-natives-syntax');
    let sameMap: (a: object, b: object) => boolean = () => false;
    assert.doesNotThrow(() => {
      sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as typeof sameMap;
    }, "V8's %HaveSameMap is not available in this Node");
    const app = createApp(server.services);
    const seen: Array<[http.IncomingMessage, http.ServerResponse]> = [];
    const listener = http.createServer((req, res) => {
      seen.push([req, res]);
      app(req, res);
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/v2`;
    try {
      const raw = () => JSON.stringify({ amount: '0.1', asset: BTC, invoice: `shape-${seen.length}` });
      const signed = (body: string) => ({ 'API-KEY': keys.apiKey, 'X-HMAC': sign(body, keys.secretKey), 'Content-Type': 'application/json' });
      const routes: Array<[string, () => [Record<string, string>, string?], number?]> = [
        [`/payment/${id}`, () => [{ 'API-KEY': keys.apiKey }]],
        [`/checkout/${id}`, () => [{}]],
        ['/payment', () => {
          const body = raw();
          return [signed(body), body];
        }],
        // Through the router: a merchant's balance, the withdrawals list, the assets.
        ['/balance', () => [{ 'API-KEY': keys.apiKey }]],
        ['/withdrawal?limit=5', () => [{ 'API-KEY': keys.apiKey }]],
        ['/assets', () => [{}]],
        // Refused, hot and through the router: a wrong signature, an unknown payment, no key, no route.
        ['/payment', () => {
          const body = raw();
          return [{ ...signed(body), 'X-HMAC': 'f'.repeat(64) }, body];
        }, 401],
        ['/payment/00000000-0000-4000-8000-000000000000', () => [{ 'API-KEY': keys.apiKey }], 404],
        ['/balance', () => [{}], 401],
        ['/no-such-route', () => [{ 'API-KEY': keys.apiKey }], 404],
      ];
      for (const [path, request, status = 200] of routes) {
        const from = seen.length;
        for (let i = 0; i < 2; i++) {
          const [headers, body] = request();
          assert.equal((await answer(`${base}${path}`, headers, body)).status, status, path);
        }
        const pair = seen.slice(from);
        // Compared once both answers are wholly done on the server's side too.
        await Promise.all(pair.map(([, res]) => (res.closed ? undefined : once(res, 'close'))));
        const [[firstReq, firstRes], [secondReq, secondRes]] = pair as [[object, object], [object, object]];
        assert.ok(sameMap(firstReq, secondReq), `the two requests of ${path} (${status}) share a shape`);
        assert.ok(sameMap(firstRes, secondRes), `the two responses of ${path} (${status}) share a shape`);
      }
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });
});
