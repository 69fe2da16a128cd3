/**
 * The authentication matrix: every merchant endpoint × every way a request can be forged. Each
 * cell gets exactly the documented 401 or 404 body, never a record, and changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { databaseDigest } from '../helpers/fuzz-inputs.ts';
import { merchantApi, postJson, sign, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';

const ETH = { short: 'ETH', network: 'ethereum' };
const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

const MISSING_API_KEY = { error: { code: 'missing-api-key', message: 'Send your API key in the API-KEY header.' } };
const INVALID_API_KEY = { error: { code: 'invalid-api-key', message: 'The API key in the API-KEY header is not valid.' } };
const MISSING_SIGNATURE = {
  error: { code: 'missing-signature', message: 'POST and DELETE requests must carry X-HMAC: the hex HMAC-SHA256 of the body bytes as sent (of no bytes when there is no body), keyed with your secret key.' },
};
const INVALID_SIGNATURE = {
  error: {
    code: 'invalid-signature',
    message: 'X-HMAC does not match the body. Sign the exact body bytes as sent (not a re-serialised copy) with HMAC-SHA256 and your secret key, hex-encoded.',
  },
};

let server: TestServer;
let alice: TestMerchant;
let bob: TestMerchant;
let payment: Record<string, unknown>;
let withdrawal: Record<string, unknown>;

before(async () => {
  server = await startTestServer();
  alice = await server.createMerchant('Alice Shop');
  bob = await server.createMerchant('Bob Shop');
  const owner = merchantApi(server, alice);
  payment = (await owner.post('/payment', { amount: '3', asset: ETH, invoice: 'alice-secret-invoice' })).body;
  await postJson(`${server.api}/dev/transactions`, { address: payment.addressTo, amount: '3', asset: ETH, confirmations: 3 });
  withdrawal = (await owner.post('/withdrawal', { amount: '1', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'alice-withdrawal-1' })).body;
  assert.equal(withdrawal.status, 'OPEN');
  // Bob has records of his own, so an empty answer is not mistaken for isolation.
  const bobPayment = (await merchantApi(server, bob).post('/payment', { amount: '2', asset: ETH, invoice: 'bob-invoice' })).body;
  await postJson(`${server.api}/dev/transactions`, { address: bobPayment.addressTo, amount: '2', asset: ETH, confirmations: 3 });
});
after(() => server.close());

/** One merchant endpoint: its method, path and (for POSTs) a body Alice would sign. */
interface Endpoint {
  name: string;
  method: 'GET' | 'POST';
  path: () => string;
  body?: () => string;
  /** What Bob gets when he asks for this with his own valid credentials. */
  asBob: 'foreign-404' | 'own-data';
}

const ENDPOINTS: Endpoint[] = [
  { name: 'POST /payment', method: 'POST', path: () => '/payment', body: () => JSON.stringify({ amount: '1', asset: ETH, invoice: 'forged' }), asBob: 'own-data' },
  { name: 'GET /payment', method: 'GET', path: () => '/payment', asBob: 'own-data' },
  { name: 'GET /payment/:id', method: 'GET', path: () => `/payment/${payment.id}`, asBob: 'foreign-404' },
  {
    name: 'POST /withdrawal',
    method: 'POST',
    path: () => '/withdrawal',
    body: () => JSON.stringify({ amount: '0.5', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'forged-withdrawal' }),
    asBob: 'own-data',
  },
  { name: 'GET /withdrawal', method: 'GET', path: () => '/withdrawal', asBob: 'own-data' },
  { name: 'GET /withdrawal/:id', method: 'GET', path: () => `/withdrawal/${withdrawal.id}`, asBob: 'foreign-404' },
  { name: 'POST /withdrawal/:id/approve', method: 'POST', path: () => `/withdrawal/${withdrawal.id}/approve`, body: () => '{}', asBob: 'foreign-404' },
  { name: 'POST /withdrawal/:id/cancel', method: 'POST', path: () => `/withdrawal/${withdrawal.id}/cancel`, body: () => '{}', asBob: 'foreign-404' },
  { name: 'GET /balance', method: 'GET', path: () => '/balance', asBob: 'own-data' },
];

/** A forgery: the headers it sends for Alice's request, and the answer it must get. */
interface Attack {
  name: string;
  /** Cells where the forgery makes sense; every endpoint when left out. */
  appliesTo?(endpoint: Endpoint): boolean;
  headers(endpoint: Endpoint, body: string): Record<string, string>;
  expected(endpoint: Endpoint): unknown;
  /** Bytes actually sent, when the attack changes them. */
  sentBody?(body: string): string;
}

const ATTACKS: Attack[] = [
  {
    name: 'no API key',
    headers: (_e, body) => ({ 'X-HMAC': sign(body, alice.secretKey) }),
    expected: () => MISSING_API_KEY,
  },
  {
    name: 'an unknown API key',
    headers: (_e, body) => ({ 'API-KEY': `ak_${'x'.repeat(32)}`, 'X-HMAC': sign(body, alice.secretKey) }),
    expected: () => INVALID_API_KEY,
  },
  {
    name: "another merchant's API key on the owner's signed request",
    // A POST then fails its signature check; a GET (which is not signed) answers as Bob.
    headers: (_e, body) => ({ 'API-KEY': bob.apiKey, 'X-HMAC': sign(body, alice.secretKey) }),
    expected: (e) => (e.method === 'POST' ? INVALID_SIGNATURE : e.asBob),
  },
  {
    name: "another merchant's own key and signature",
    // Creating is Bob's right (for himself); acting on Alice's withdrawal is not.
    appliesTo: (e) => e.method === 'POST' && e.asBob === 'foreign-404',
    headers: (_e, body) => ({ 'API-KEY': bob.apiKey, 'X-HMAC': sign(body, bob.secretKey) }),
    expected: (e) => e.asBob,
  },
  {
    name: 'no signature',
    // A GET needs none, so the cell checks that a signature cannot stand in for a missing key.
    headers: (e): Record<string, string> => (e.method === 'POST' ? { 'API-KEY': alice.apiKey } : {}),
    expected: (e) => (e.method === 'POST' ? MISSING_SIGNATURE : MISSING_API_KEY),
  },
  {
    name: 'a signature made with another secret',
    headers: (e, body): Record<string, string> =>
      e.method === 'POST' ? { 'API-KEY': alice.apiKey, 'X-HMAC': sign(body, bob.secretKey) } : { 'X-HMAC': sign(body, bob.secretKey) },
    expected: (e) => (e.method === 'POST' ? INVALID_SIGNATURE : MISSING_API_KEY),
  },
  {
    name: 'a body changed after signing',
    // GETs carry no body; what stands for them is the key alone (see the README's Security section).
    appliesTo: (e) => e.method === 'POST',
    headers: (_e, body) => ({ 'API-KEY': alice.apiKey, 'X-HMAC': sign(body, alice.secretKey) }),
    sentBody: (body) => (body === '{}' ? '{ }' : body.replace(/"(0\.5|1)"/, '"900"')),
    expected: () => INVALID_SIGNATURE,
  },
];

async function send(method: string, path: string, headers: Record<string, string>, body?: string) {
  const response = await fetch(server.api + path, {
    method,
    headers: method === 'POST' ? { 'Content-Type': 'application/json', ...headers } : headers,
    ...(method === 'POST' ? { body } : {}),
  });
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : undefined, cacheControl: response.headers.get('cache-control') };
}

/** Alice's identifiers and strings, none of which may reach anyone but Alice. */
function aliceSecrets(): string[] {
  return [String(payment.addressTo), 'alice-secret-invoice', 'alice-withdrawal-1', alice.merchant.id, alice.apiKey, alice.secretKey];
}

for (const endpoint of ENDPOINTS) {
  describe(endpoint.name, () => {
    for (const attack of ATTACKS.filter((a) => a.appliesTo?.(endpoint) ?? true)) {
      const expectation = attack.expected(endpoint);
      const answer =
        expectation === 'foreign-404'
          ? '404, exactly as for an unknown id'
          : expectation === 'own-data'
            ? "200 with Bob's own data only"
            : `401 ${(expectation as typeof MISSING_API_KEY).error.code}`;
      test(`with ${attack.name}: ${answer}`, async () => {
        const db = server.services.db;
        const before = await databaseDigest(db);
        const signed = endpoint.body?.() ?? '';
        const sent = attack.sentBody?.(signed) ?? signed;
        if (attack.sentBody) assert.notEqual(sent, signed, 'the attack really changes the body');
        const response = await send(endpoint.method, endpoint.path(), attack.headers(endpoint, signed), endpoint.method === 'POST' ? sent : undefined);

        if (expectation === 'foreign-404') {
          const kind = endpoint.path().startsWith('/payment') ? 'payment' : 'withdrawal';
          const id = kind === 'payment' ? payment.id : withdrawal.id;
          assert.equal(response.status, 404);
          assert.deepEqual(response.body, { error: { code: `${kind}-not-found`, message: `No ${kind} with id "${id}" exists for this merchant.` } });
          // The same request for an id that never existed answers the same bytes, id aside.
          const unknownId = String(id).replace(/^.{8}/, '00000000');
          const unknown = await send(endpoint.method, endpoint.path().replace(String(id), unknownId), attack.headers(endpoint, signed), sent);
          assert.equal(unknown.text.replace(unknownId, String(id)), response.text);
        } else if (expectation === 'own-data') {
          assert.equal(response.status, 200);
          if (endpoint.name === 'GET /balance') {
            assert.deepEqual(response.body.data.map((b: { available: string }) => b.available), ['2.00000000']);
          } else {
            assert.ok(response.body.data.length > 0 || endpoint.name === 'GET /withdrawal', 'Bob sees his own records');
            for (const record of response.body.data) assert.equal(record.merchant.id, bob.merchant.id);
          }
        } else {
          assert.equal(response.status, 401);
          assert.deepEqual(response.body, expectation);
        }
        // Whatever the answer, no cache keeps it: a merchant route's refusals included.
        assert.equal(response.cacheControl, 'no-store');
        for (const secret of aliceSecrets()) {
          if (expectation !== 'foreign-404' || (secret !== payment.id && secret !== withdrawal.id)) {
            assert.ok(!response.text.includes(secret), `the answer holds nothing of Alice's (${secret})`);
          }
        }
        assert.equal(await databaseDigest(db), before, 'a forged request changes nothing');
      });
    }
  });
}

describe("Alice's records after every forgery", () => {
  test('are exactly as they were: the withdrawal still OPEN, the balance untouched', async () => {
    const owner = merchantApi(server, alice);
    assert.deepEqual((await owner.get(`/withdrawal/${withdrawal.id}`)).body, withdrawal);
    assert.deepEqual((await owner.get(`/payment/${payment.id}`)).body.invoice, 'alice-secret-invoice');
    const balance = (await owner.get('/balance')).body.data;
    assert.deepEqual(
      balance.map((b: { available: string; reserved: string }) => [b.available, b.reserved]),
      [['2.00000000', '1.00000000']],
    );
  });
});

describe('replaying a captured signed request', () => {
  test('of a withdrawal create is 409 duplicate-invoice and reserves nothing more', async () => {
    const raw = JSON.stringify({ amount: '0.25', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'replay-target' });
    const headers = { 'API-KEY': alice.apiKey, 'X-HMAC': sign(raw, alice.secretKey) };
    const first = await send('POST', '/withdrawal', headers, raw);
    assert.equal(first.status, 200);
    const before = await databaseDigest(server.services.db);
    for (let i = 0; i < 3; i++) {
      const replay = await send('POST', '/withdrawal', headers, raw);
      assert.equal(replay.status, 409);
      assert.deepEqual(replay.body, {
        error: { code: 'duplicate-invoice', message: 'A withdrawal with invoice "replay-target" already exists; invoices are unique per merchant.' },
      });
    }
    assert.equal(await databaseDigest(server.services.db), before);
    const cancel = JSON.stringify({});
    assert.equal((await send('POST', `/withdrawal/${first.body.id}/cancel`, { 'API-KEY': alice.apiKey, 'X-HMAC': sign(cancel, alice.secretKey) }, cancel)).status, 200);
  });

  test('of an approve or cancel is 409 invalid-state once the withdrawal has moved on', async () => {
    const created = (await merchantApi(server, alice).post('/withdrawal', { amount: '0.25', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'replay-cancel' })).body;
    const raw = '{}';
    const headers = { 'API-KEY': alice.apiKey, 'X-HMAC': sign(raw, alice.secretKey) };
    assert.equal((await send('POST', `/withdrawal/${created.id}/cancel`, headers, raw)).status, 200);
    const before = await databaseDigest(server.services.db);
    for (const action of ['cancel', 'approve']) {
      const replay = await send('POST', `/withdrawal/${created.id}/${action}`, headers, raw);
      assert.equal(replay.status, 409);
      assert.deepEqual(replay.body, {
        error: { code: 'invalid-state', message: `The withdrawal is CANCELLED; only an OPEN withdrawal can be ${action === 'cancel' ? 'cancelled' : 'approved'}.` },
      });
    }
    assert.equal(await databaseDigest(server.services.db), before);
  });
});
