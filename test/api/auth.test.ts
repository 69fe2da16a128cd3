/** Merchant authentication: API-KEY on every merchant endpoint, X-HMAC over the exact body bytes on POSTs, isolation between merchants. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { merchantApi, postJson, sign, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';

const BTC = { short: 'BTC', network: 'bitcoin' };
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

before(async () => {
  server = await startTestServer();
  alice = await server.createMerchant('Alice Shop');
  bob = await server.createMerchant('Bob Shop');
});
after(() => server.close());

/** A raw request: exact headers and exact body bytes. */
async function send(method: string, path: string, headers: Record<string, string>, body?: string | Buffer) {
  const response = await fetch(server.api + path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

function signedPost(path: string, raw: string | Buffer, keys: TestMerchant, signature = sign(raw, keys.secretKey)) {
  return send('POST', path, { 'API-KEY': keys.apiKey, 'X-HMAC': signature, 'Content-Type': 'application/json' }, raw);
}

const paymentBody = JSON.stringify({ amount: '0.01', asset: BTC, invoice: 'auth-1' });

describe('the API key', () => {
  test('is required on every merchant endpoint: 401 missing-api-key', async () => {
    for (const [method, path] of [
      ['GET', '/payment'],
      ['GET', '/payment/6f1c2e8a-4b1d-4c55-9a7e-2f5a4c3b2a10'],
      ['GET', '/withdrawal'],
      ['GET', '/withdrawal/6f1c2e8a-4b1d-4c55-9a7e-2f5a4c3b2a10'],
      ['GET', '/balance'],
      ['POST', '/payment'],
      ['POST', '/withdrawal'],
      ['POST', '/withdrawal/6f1c2e8a-4b1d-4c55-9a7e-2f5a4c3b2a10/approve'],
      ['POST', '/withdrawal/6f1c2e8a-4b1d-4c55-9a7e-2f5a4c3b2a10/cancel'],
    ]) {
      const headers: Record<string, string> = method === 'POST' ? { 'Content-Type': 'application/json', 'X-HMAC': sign(paymentBody, alice.secretKey) } : {};
      const response = await send(method!, path!, headers, method === 'POST' ? paymentBody : undefined);
      assert.equal(response.status, 401, `${method} ${path}`);
      assert.deepEqual(response.body, MISSING_API_KEY, `${method} ${path}`);
    }
  });

  test('treats an empty API-KEY header as missing', async () => {
    const response = await send('GET', '/payment', { 'API-KEY': '' });
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, MISSING_API_KEY);
  });

  test('refuses an unknown key with 401 invalid-api-key', async () => {
    for (const apiKey of ['ak_not-a-real-key', alice.secretKey, `${alice.apiKey}x`, alice.apiKey.toUpperCase()]) {
      const response = await send('GET', '/payment', { 'API-KEY': apiKey });
      assert.equal(response.status, 401);
      assert.deepEqual(response.body, INVALID_API_KEY);
    }
    const post = await signedPost('/payment', paymentBody, { ...alice, apiKey: 'ak_not-a-real-key' });
    assert.equal(post.status, 401);
    assert.deepEqual(post.body, INVALID_API_KEY);
  });

  test('is checked before the body is validated', async () => {
    const response = await send('POST', '/payment', { 'Content-Type': 'application/json' }, '{"amount": 1}');
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, MISSING_API_KEY);
  });

  test('is enough for a GET: an X-HMAC sent on a GET is not checked', async () => {
    const response = await send('GET', '/payment', { 'API-KEY': alice.apiKey, 'X-HMAC': 'definitely-not-a-signature' });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { data: [], page: 1, limit: 20, total: 0 });
  });

  test('is stored only as a hash, and the secret key only sealed', async () => {
    const row = (await server.services.db.get<Record<string, unknown>>('SELECT * FROM merchants WHERE id = ?', [alice.merchant.id]))!;
    assert.equal(row.api_key_hash, createHash('sha256').update(alice.apiKey).digest('hex'));
    const stored = JSON.stringify(row);
    assert.ok(!stored.includes(alice.apiKey), 'the API key is not stored in clear');
    assert.ok(!stored.includes(alice.secretKey), 'the secret key is not stored in clear');
    assert.ok(!stored.includes(alice.secretKey.slice(3)), 'nor the secret key without its prefix');
  });
});

describe('the X-HMAC signature', () => {
  test('accepts the lowercase hex HMAC-SHA256 of the exact body bytes', async () => {
    const response = await signedPost('/payment', paymentBody, alice);
    assert.equal(response.status, 200);
    assert.equal(response.body.merchant.id, alice.merchant.id);
  });

  test('accepts the same signature in uppercase hex', async () => {
    const response = await signedPost('/payment', paymentBody, alice, sign(paymentBody, alice.secretKey).toUpperCase());
    assert.equal(response.status, 200);
  });

  test('covers the bytes as sent, whitespace and non-ASCII characters included', async () => {
    const raw = Buffer.from('{\n  "amount" : "0.02",\n  "asset": {"short": "BTC", "network": "bitcoin"},\n  "invoice": "Café №5 ☕"\n}\n', 'utf8');
    const response = await signedPost('/payment', raw, alice);
    assert.equal(response.status, 200);
    assert.equal(response.body.invoice, 'Café №5 ☕');
  });

  test('is required on a POST: 401 missing-signature', async () => {
    for (const path of ['/payment', '/withdrawal', '/withdrawal/6f1c2e8a-4b1d-4c55-9a7e-2f5a4c3b2a10/approve']) {
      const response = await send('POST', path, { 'API-KEY': alice.apiKey, 'Content-Type': 'application/json' }, paymentBody);
      assert.equal(response.status, 401, path);
      assert.deepEqual(response.body, MISSING_SIGNATURE, path);
    }
    const blank = await send('POST', '/payment', { 'API-KEY': alice.apiKey, 'X-HMAC': '   ', 'Content-Type': 'application/json' }, paymentBody);
    assert.deepEqual(blank.body, MISSING_SIGNATURE);
  });

  test('refuses a body signed with another secret', async () => {
    const response = await signedPost('/payment', paymentBody, alice, sign(paymentBody, bob.secretKey));
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, INVALID_SIGNATURE);
  });

  test('refuses a body changed after signing', async () => {
    const signature = sign(paymentBody, alice.secretKey);
    const tampered = paymentBody.replace('"0.01"', '"0.02"');
    const response = await signedPost('/payment', tampered, alice, signature);
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, INVALID_SIGNATURE);
  });

  test('refuses a signature of a re-serialised copy of the body', async () => {
    const raw = '{ "amount": "0.01", "asset": { "short": "BTC", "network": "bitcoin" } }';
    const response = await signedPost('/payment', raw, alice, sign(JSON.stringify(JSON.parse(raw)), alice.secretKey));
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, INVALID_SIGNATURE);
  });

  test('refuses signatures that are not 64 hex digits', async () => {
    const good = sign(paymentBody, alice.secretKey);
    for (const signature of [good.slice(0, 63), `${good}00`, `sha256=${good}`, Buffer.from(good, 'hex').toString('base64'), 'zz'.repeat(32)]) {
      const response = await signedPost('/payment', paymentBody, alice, signature);
      assert.equal(response.status, 401, signature);
      assert.deepEqual(response.body, INVALID_SIGNATURE, signature);
    }
  });

  test('creates nothing when the signature is refused', async () => {
    const before = (await merchantApi(server, alice).get('/payment')).body.total;
    await signedPost('/payment', paymentBody, alice, sign(paymentBody, bob.secretKey));
    assert.equal((await merchantApi(server, alice).get('/payment')).body.total, before);
  });
});

describe('isolation between merchants', () => {
  test('answers another merchant\'s payment id with exactly the unknown-id 404', async () => {
    const payment = (await merchantApi(server, alice).post('/payment', { amount: '1', asset: BTC })).body;
    const foreign = await merchantApi(server, bob).get(`/payment/${payment.id}`);
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body, { error: { code: 'payment-not-found', message: `No payment with id "${payment.id}" exists for this merchant.` } });
    const unknownId = payment.id.replace(/^.{8}/, '00000000');
    const unknown = await merchantApi(server, bob).get(`/payment/${unknownId}`);
    assert.deepEqual(foreign.body, { error: { ...unknown.body.error, message: unknown.body.error.message.replace(unknownId, payment.id) } });
  });

  test('answers another merchant\'s withdrawal with 404 on read, approve and cancel, and leaves it untouched', async () => {
    const owner = merchantApi(server, alice);
    const created = await owner.post('/payment', { amount: '1', asset: ETH });
    await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, amount: '1', asset: ETH, confirmations: 3 });
    const withdrawal = (await owner.post('/withdrawal', { amount: '0.5', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'isolation-1' })).body;
    const intruder = merchantApi(server, bob);
    const expected = { error: { code: 'withdrawal-not-found', message: `No withdrawal with id "${withdrawal.id}" exists for this merchant.` } };
    for (const response of [
      await intruder.get(`/withdrawal/${withdrawal.id}`),
      await intruder.post(`/withdrawal/${withdrawal.id}/approve`, {}),
      await intruder.post(`/withdrawal/${withdrawal.id}/cancel`, {}),
    ]) {
      assert.equal(response.status, 404);
      assert.deepEqual(response.body, expected);
    }
    assert.deepEqual((await owner.get(`/withdrawal/${withdrawal.id}`)).body, withdrawal);
    assert.deepEqual((await intruder.get('/balance')).body, { data: [] });
  });
});
