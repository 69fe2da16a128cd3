/** The error contract (CONTRACT.md section 4): every code with its full body, X-Request-Id everywhere, no leaks, no half-writes. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { merchantApi, postJson, sign, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';

const BTC = { short: 'BTC', network: 'bitcoin' };
const ETH = { short: 'ETH', network: 'ethereum' };
const XRP = { short: 'XRP', network: 'ripple' };
const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const INTERNAL_ERROR = {
  error: { code: 'internal-error', message: 'Something went wrong on our side; nothing was changed. Try again, and quote the X-Request-Id header if it persists.' },
};
const UNSUPPORTED_MEDIA_TYPE = {
  error: { code: 'unsupported-media-type', message: 'Send the body as UTF-8 JSON with the header Content-Type: application/json.' },
};

let server: TestServer;
let shop: TestMerchant;
let api: ReturnType<typeof merchantApi>;

before(async () => {
  server = await startTestServer();
  shop = await server.createMerchant('Errors Shop');
  api = merchantApi(server, shop);
  const funding = await api.post('/payment', { amount: '5', asset: ETH });
  await postJson(`${server.api}/dev/transactions`, { address: funding.body.addressTo, amount: '5', asset: ETH, confirmations: 3 });
});
after(() => server.close());

/** A POST with exact bytes and headers, signed with the shop's secret unless `signature` is given. */
async function rawPost(path: string, body: string | Buffer, headers: Record<string, string> = {}) {
  const response = await fetch(server.api + path, {
    method: 'POST',
    headers: { 'API-KEY': shop.apiKey, 'X-HMAC': sign(body, shop.secretKey), 'Content-Type': 'application/json', ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined };
}

/** Row counts of every table a create writes to, to prove a failed create wrote nothing. */
async function tableCounts() {
  const { db } = server.services;
  const count = async (table: string) => (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;
  const indexes = await db.all('SELECT network, next_index FROM hd_accounts ORDER BY network');
  return {
    payments: await count('payments'),
    addresses: await count('addresses'),
    withdrawals: await count('withdrawals'),
    ledger: await count('ledger_entries'),
    indexes,
  };
}

/**
 * Makes the database refuse every `event` (`INSERT`, `UPDATE OF status`...) on `table` with
 * `message`, by a trigger named `name`; resolves to what removes it again.
 */
async function failEvery(name: string, event: string, table: string, message: string): Promise<() => Promise<void>> {
  const { db } = server.services;
  if (server.store === 'sqlite') {
    await db.run(`CREATE TRIGGER ${name} BEFORE ${event} ON ${table} BEGIN SELECT RAISE(ABORT, '${message}'); END`);
    return async () => {
      await db.run(`DROP TRIGGER ${name}`);
    };
  }
  await db.run(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${message}'; END $$`);
  await db.run(`CREATE TRIGGER ${name} BEFORE ${event} ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`);
  return async () => {
    await db.run(`DROP TRIGGER ${name} ON ${table}`);
    await db.run(`DROP FUNCTION ${name}()`);
  };
}

describe('bodies that cannot be read', () => {
  test('answers a body that is not JSON with 400 invalid-json', async () => {
    const response = await rawPost('/payment', '{"amount": "1",');
    assert.equal(response.status, 400);
    assert.deepEqual(Object.keys(response.body.error), ['code', 'message']);
    assert.equal(response.body.error.code, 'invalid-json');
    assert.match(response.body.error.message, /^The request body is not valid JSON \(.+\)\.$/);
  });

  test('refuses a name given twice in one object with 400 invalid-json naming it, and creates nothing', async () => {
    const before = await tableCounts();
    const twice = (name: string) => ({ error: { code: 'invalid-json', message: `The request body gives the name "${name}" twice in one object; send each name once (readers of JSON differ on which one counts).` } });
    const cases: Array<[string, string, string]> = [
      ['/payment', '{"amount": "1", "asset": {"short": "BTC", "network": "bitcoin"}, "amount": "100"}', 'amount'],
      ['/payment', '{"amount":"1","asset":{"short":"BTC","network":"bitcoin","short":"ETH"}}', 'short'],
      // The same name in two spellings that JSON reads alike.
      ['/payment', '{"amount":"1","asset":{"short":"BTC","network":"bitcoin"},"\\u0061mount":"2"}', 'amount'],
      ['/withdrawal', `{"amount":"0.1","asset":{"short":"ETH","network":"ethereum"},"addressTo":"${ETH_ADDRESS}","addressTo":"0x0000000000000000000000000000000000000001"}`, 'addressTo'],
    ];
    for (const [path, body, name] of cases) {
      const response = await rawPost(path, body);
      assert.equal(response.status, 400, body);
      assert.deepEqual(response.body, twice(name), body);
    }
    assert.deepEqual(await tableCounts(), before);
    // Names repeated in different objects, and colons and quotes inside strings, are no repeat.
    const fine = await rawPost('/payment', '{"amount":"1","asset":{"short":"BTC","network":"bitcoin"},"invoice":"a:\\"b\\": {\\"amount\\": 2}","customer":{"name":"x:y"}}');
    assert.equal(fine.status, 200, JSON.stringify(fine.body));
    assert.equal(fine.body.invoice, 'a:"b": {"amount": 2}');
  });

  test('answers an empty body with 400 invalid-json', async () => {
    const response = await rawPost('/payment', '');
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: { code: 'invalid-json', message: 'The request body is empty; send a JSON object.' } });
  });

  test('answers bytes that are not UTF-8 with 400 invalid-json', async () => {
    const response = await rawPost('/payment', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: { code: 'invalid-json', message: 'The request body is not valid UTF-8.' } });
  });

  test('reads a body that starts with a UTF-8 byte order mark as the JSON after it', async () => {
    const response = await rawPost('/payment', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ amount: '1', asset: BTC }))]));
    assert.equal(response.status, 200, JSON.stringify(response.body));
  });

  test('answers a wrong or missing content type with 415 unsupported-media-type', async () => {
    const body = JSON.stringify({ amount: '1', asset: BTC });
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=iso-8859-1', 'application/json-patch+json']) {
      const response = await rawPost('/payment', body, { 'Content-Type': contentType });
      assert.equal(response.status, 415, contentType);
      assert.deepEqual(response.body, UNSUPPORTED_MEDIA_TYPE, contentType);
    }
    const response = await fetch(`${server.api}/payment`, { method: 'POST', headers: { 'API-KEY': shop.apiKey, 'X-HMAC': sign(body, shop.secretKey) }, body: Buffer.from(body) });
    assert.equal(response.status, 415);
    assert.deepEqual(await response.json(), UNSUPPORTED_MEDIA_TYPE);
  });

  test('accepts the JSON media type in any case and with a UTF-8 charset', async () => {
    const body = JSON.stringify({ amount: '1', asset: BTC });
    for (const contentType of ['Application/JSON', 'application/json; charset=utf-8', 'application/json;charset="UTF-8"']) {
      assert.equal((await rawPost('/payment', body, { 'Content-Type': contentType })).status, 200, contentType);
    }
  });

  test('refuses a compressed body with 415 rather than inflating it', async () => {
    const response = await rawPost('/payment', JSON.stringify({ amount: '1', asset: BTC }), { 'Content-Encoding': 'gzip' });
    assert.equal(response.status, 415);
    assert.deepEqual(response.body, { error: { code: 'unsupported-media-type', message: 'The request body must be UTF-8 JSON.' } });
    // Identity, in any case, or an empty value is no encoding at all.
    for (const encoding of ['identity', 'IDENTITY', '']) {
      assert.equal((await rawPost('/payment', JSON.stringify({ amount: '1', asset: BTC }), { 'Content-Encoding': encoding })).status, 200, `Content-Encoding: "${encoding}"`);
    }
  });

  test('answers a body over 64 KiB with 413 payload-too-large, and reads one of exactly 64 KiB', async () => {
    const frame = JSON.stringify({ amount: '1', asset: BTC, invoice: '' });
    const atLimit = frame.replace('"invoice":""', `"invoice":"${'x'.repeat(64 * 1024 - frame.length)}"`);
    assert.equal(Buffer.byteLength(atLimit), 64 * 1024);
    const read = await rawPost('/payment', atLimit);
    assert.equal(read.status, 400);
    assert.deepEqual(read.body.error.details, [{ path: 'invoice', message: 'must be at most 200 characters' }]);
    const over = await rawPost('/payment', atLimit.replace('"x', '"xx'));
    assert.equal(over.status, 413);
    assert.deepEqual(over.body, { error: { code: 'payload-too-large', message: 'The request body is larger than 64 KiB.' } });
  });

  test('applies the same body rules to the simulator routes', async () => {
    const notJson = await fetch(`${server.api}/dev/blocks`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: 'count=1' });
    assert.equal(notJson.status, 400);
    assert.equal(((await notJson.json()) as { error: { code: string } }).error.code, 'invalid-json');
    const wrongType = await fetch(`${server.api}/dev/blocks`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}' });
    assert.equal(wrongType.status, 415);
    assert.deepEqual(await wrongType.json(), UNSUPPORTED_MEDIA_TYPE);
  });
});

describe('every error code of the contract', () => {
  test('unknown route: 404 not-found, inside and outside /v2, for any method', async () => {
    for (const [method, path] of [
      ['GET', '/v2/nothing'],
      ['POST', '/v2/payments'],
      ['DELETE', '/v2/payment/6f1c2e8a-4b1d-4c55-9a7e-2f5a4c3b2a10/void'],
      ['PUT', '/v2/withdrawals/6f1c2e8a-4b1d-4c55-9a7e-2f5a4c3b2a10'],
      ['GET', '/v3/payment'],
    ]) {
      const response = await fetch(server.url + path!, { method: method!, headers: { 'API-KEY': shop.apiKey } });
      assert.equal(response.status, 404, `${method} ${path}`);
      assert.deepEqual(await response.json(), { error: { code: 'not-found', message: `There is no route ${method} ${path}.` } });
    }
  });

  test('validation-failed lists details with dotted paths', async () => {
    const response = await api.post('/payment', { amount: '1', asset: { short: 7 } });
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, {
      error: {
        code: 'validation-failed',
        message: 'The request has invalid fields: asset.short, asset.network.',
        details: [
          { path: 'asset.short', message: 'must be a string' },
          { path: 'asset.network', message: 'is required' },
        ],
      },
    });
  });

  test('unsupported-asset: 400 for a pair that is not served', async () => {
    const response = await api.post('/payment', { amount: '1', asset: { short: 'DOGE', network: 'dogecoin' } });
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, {
      error: {
        code: 'unsupported-asset',
        message:
          'DOGE on network "dogecoin" is not a served asset; served pairs are BTC/bitcoin, LTC/litecoin, ETH/ethereum, USDT/ethereum, USDC/ethereum, USDT/tron, TRX/tron, XRP/ripple, XMR/monero.',
      },
    });
  });

  test('payment-not-found and withdrawal-not-found: 404 for unknown ids', async () => {
    const id = '6f1c2e8a-4b1d-4c55-9a7e-2f5a4c3b2a10';
    assert.deepEqual((await api.get(`/payment/${id}`)).body, { error: { code: 'payment-not-found', message: `No payment with id "${id}" exists for this merchant.` } });
    assert.deepEqual((await api.get(`/withdrawal/${id}`)).body, {
      error: { code: 'withdrawal-not-found', message: `No withdrawal with id "${id}" exists for this merchant.` },
    });
  });

  test('insufficient-funds: 422, invalid-state: 409, duplicate-invoice: 409', async () => {
    const short = await api.post('/withdrawal', { amount: '6', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'too-much' });
    assert.equal(short.status, 422);
    assert.deepEqual(short.body, { error: { code: 'insufficient-funds', message: 'The available balance is 5.00000000 ETH, less than the 6.00000000 ETH needed.' } });

    const withdrawal = (await api.post('/withdrawal', { amount: '1', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'codes-1' })).body;
    await api.post(`/withdrawal/${withdrawal.id}/cancel`, {});
    const state = await api.post(`/withdrawal/${withdrawal.id}/approve`, {});
    assert.equal(state.status, 409);
    assert.deepEqual(state.body, { error: { code: 'invalid-state', message: 'The withdrawal is CANCELLED; only an OPEN withdrawal can be approved.' } });

    const duplicate = await api.post('/withdrawal', { amount: '1', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'codes-1' });
    assert.equal(duplicate.status, 409);
    assert.deepEqual(duplicate.body, {
      error: { code: 'duplicate-invoice', message: 'A withdrawal with invoice "codes-1" already exists; invoices are unique per merchant.' },
    });
  });

  test('a replayed signed withdrawal request is refused as a duplicate invoice', async () => {
    const raw = JSON.stringify({ amount: '0.1', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'replayed' });
    const first = await rawPost('/withdrawal', raw);
    assert.equal(first.status, 200);
    const replay = await rawPost('/withdrawal', raw);
    assert.equal(replay.status, 409);
    assert.equal(replay.body.error.code, 'duplicate-invoice');
  });
});

describe('X-Request-Id', () => {
  test('is on every response, unique, whatever the outcome', async () => {
    const payment = (await api.post('/payment', { amount: '1', asset: BTC })).body;
    const responses = await Promise.all([
      fetch(`${server.url}/health`),
      fetch(`${server.api}/assets`),
      fetch(`${server.api}/openapi.json`),
      fetch(`${server.url}/logos/btc.svg`),
      fetch(`${server.api}/payment`, { headers: { 'API-KEY': shop.apiKey } }),
      fetch(`${server.api}/payment`),
      fetch(`${server.api}/payment/${payment.id}`, { headers: { 'API-KEY': shop.apiKey } }),
      fetch(`${server.api}/nowhere`),
      fetch(`${server.api}/payment`, { method: 'POST', headers: { 'API-KEY': shop.apiKey, 'Content-Type': 'text/plain' }, body: 'x' }),
      fetch(`${server.api}/checkout/${payment.id}`),
      fetch(`${server.api}/checkout/${payment.id}`, { method: 'OPTIONS' }),
      fetch(`${server.api}/dev/blocks`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"count":1}' }),
    ]);
    const etag = responses[9]!.headers.get('etag')!;
    responses.push(await fetch(`${server.api}/checkout/${payment.id}`, { headers: { 'If-None-Match': etag } }));
    assert.equal(responses.at(-1)!.status, 304);
    const ids = responses.map((r) => r.headers.get('x-request-id'));
    for (const [i, id] of ids.entries()) assert.match(id ?? '', REQUEST_ID, `response ${i} (${responses[i]!.url})`);
    assert.equal(new Set(ids).size, ids.length);
    await Promise.all(responses.map((r) => r.arrayBuffer()));
  });
});

describe('unexpected failures', () => {
  test('answer 500 internal-error without stack, SQL or message, and write nothing', async () => {
    const restore = await failEvery('fail_payments', 'INSERT', 'payments', 'SQLITE boom in INSERT INTO payments');
    try {
      const before = await tableCounts();
      for (const asset of [BTC, XRP]) {
        const response = await rawPost('/payment', JSON.stringify({ amount: '1', asset, invoice: 'doomed' }));
        assert.equal(response.status, 500);
        assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
        assert.match(response.headers.get('x-request-id') ?? '', REQUEST_ID);
        assert.deepEqual(response.body, INTERNAL_ERROR);
        assert.doesNotMatch(response.text, /SQL|INSERT|boom|\.ts|at /);
      }
      assert.deepEqual(await tableCounts(), before, 'no payment, no claimed address, no used derivation index or tag');
    } finally {
      await restore();
    }
  });

  test('a withdrawal whose ledger posting fails leaves neither the withdrawal nor a reservation', async () => {
    const restore = await failEvery('fail_ledger', 'INSERT', 'ledger_entries', 'ledger down');
    try {
      const before = await tableCounts();
      const balance = (await api.get('/balance')).body;
      const response = await api.post('/withdrawal', { amount: '0.2', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'ledger-down' });
      assert.equal(response.status, 500);
      assert.deepEqual(response.body, INTERNAL_ERROR);
      assert.deepEqual(await tableCounts(), before);
      assert.deepEqual((await api.get('/balance')).body, balance);
    } finally {
      await restore();
    }
    const retried = await api.post('/withdrawal', { amount: '0.2', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'ledger-down' });
    assert.equal(retried.status, 200, 'the invoice was not used up by the failed attempt');
  });

  test('a failing approve answers 500 and leaves the withdrawal OPEN', async () => {
    const withdrawal = (await api.post('/withdrawal', { amount: '0.1', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'approve-fails' })).body;
    const restore = await failEvery('fail_approve', 'UPDATE OF status', 'withdrawals', 'no');
    try {
      const response = await api.post(`/withdrawal/${withdrawal.id}/approve`, {});
      assert.equal(response.status, 500);
      assert.deepEqual(response.body, INTERNAL_ERROR);
    } finally {
      await restore();
    }
    assert.deepEqual((await api.get(`/withdrawal/${withdrawal.id}`)).body, withdrawal);
  });
});

describe('failed creates leave no row behind', () => {
  test('a refused payment claims no address and uses no index or tag', async () => {
    const before = await tableCounts();
    await api.post('/payment', { amount: '0', asset: BTC });
    await api.post('/payment', { amount: '1', asset: XRP, checkoutUrl: 'nope' });
    await api.post('/payment', { amount: '1', asset: { short: 'BTC', network: 'nope' } });
    await rawPost('/payment', JSON.stringify({ amount: '1', asset: BTC }), { 'X-HMAC': sign('{}', shop.secretKey) });
    assert.deepEqual(await tableCounts(), before);
  });

  test('a refused withdrawal writes neither a withdrawal nor a ledger row', async () => {
    const before = await tableCounts();
    await api.post('/withdrawal', { amount: '1000', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'refused-1' });
    await api.post('/withdrawal', { amount: '1', asset: ETH, addressTo: ETH_ADDRESS.toLowerCase().replace('0x5', '0x6').replace('e7', 'E7'), invoice: 'refused-2' });
    await api.post('/withdrawal', { amount: '1', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'codes-1' });
    assert.deepEqual(await tableCounts(), before);
  });
});

describe('405 method-not-allowed', () => {
  test('a known path asked with another method answers 405 with Allow, an unknown path still 404', async () => {
    const server405 = await startTestServer();
    try {
      const id = '6f1c2e8a-4b1d-4c55-9a7e-2f5a4c3b2a10';
      for (const [method, path, allow] of [
        ['DELETE', `/v2/payment/${id}`, 'GET, HEAD'],
        ['PUT', '/v2/payment', 'POST, GET, HEAD'],
        ['GET', `/v2/withdrawal/${id}/approve`, 'POST'],
        ['PATCH', `/v2/webhooks/${id}`, 'DELETE'],
        ['POST', '/v2/assets', 'GET, HEAD'],
        ['DELETE', `/v2/checkout/${id}/events`, 'GET, HEAD'],
      ] as const) {
        const response = await fetch(`${server405.api}${path.slice(3)}`, { method });
        assert.equal(response.status, 405, `${method} ${path}`);
        assert.equal(response.headers.get('allow'), allow, `${method} ${path}`);
        assert.equal(response.headers.get('cache-control'), 'no-store', 'an error answer is never cached');
        const body = (await response.json()) as { error: { code: string; message: string } };
        assert.equal(body.error.code, 'method-not-allowed');
        assert.equal(body.error.message, `${path} does not take ${method}; it takes ${allow}.`);
      }
      const unknown = await fetch(`${server405.api}/payments`, { method: 'DELETE' });
      assert.equal(unknown.status, 404);
    } finally {
      await server405.close();
    }
  });
});
