/**
 * Validation stays linear and its answer bounded: a 64 KiB body of thousands of unknown keys gets
 * the first 50 problems and a count of the rest, signed or not. (Its CPU cost is a bench figure.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_DETAILS } from '../../api/shared/errors.ts';
import { sign, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';

/** A JSON object of unknown keys, just under 64 KiB, built once (linearly). */
const UNKNOWN_KEYS = (() => {
  const parts: string[] = [];
  let length = 2;
  for (let i = 0; length + `"k${i}":1,`.length < 64 * 1024 - 40; i++) {
    parts.push(`"k${i}":1`);
    length += `"k${i}":1,`.length;
  }
  return { raw: `{${parts.join(',')}}`, keys: parts.length };
})();
const manyUnknownKeys = () => UNKNOWN_KEYS;

describe('validation of a body with thousands of unknown keys', () => {
  let server: TestServer;
  let shop: TestMerchant;
  before(async () => {
    server = await startTestServer();
    shop = await server.createMerchant();
  });
  after(() => server.close());

  for (const route of ['/payment', '/withdrawal', '/dev/transactions']) {
    test(`${route}: the first ${MAX_DETAILS} problems and how many more, in a small answer`, async () => {
      const { raw, keys } = manyUnknownKeys();
      assert.ok(keys > 5_000);
      const response = await fetch(server.api + route, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'API-KEY': shop.apiKey, 'X-HMAC': sign(raw, shop.secretKey) },
        body: raw,
      });
      const text = await response.text();
      assert.equal(response.status, 400);
      assert.ok(text.length < 16 * 1024, `the answer is ${text.length} bytes`);
      const { error } = JSON.parse(text);
      assert.equal(error.code, 'validation-failed');
      assert.equal(error.details.length, MAX_DETAILS);
      const more = Number(/, and (\d+) more not listed\.$/.exec(error.message)?.[1]);
      assert.ok(more > keys - MAX_DETAILS - 10 && more <= keys, `the message counts the rest: ${error.message.slice(-60)}`);
    });
  }

  test('a field name of 60 KB is shortened in the answer', async () => {
    const raw = JSON.stringify({ ['x'.repeat(60_000)]: 1, amount: '1', asset: { short: 'BTC', network: 'bitcoin' } });
    const response = await fetch(`${server.api}/payment`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'API-KEY': shop.apiKey, 'X-HMAC': sign(raw, shop.secretKey) },
      body: raw,
    });
    const text = await response.text();
    assert.equal(response.status, 400);
    assert.ok(text.length < 2_000, `the answer is ${text.length} bytes`);
    assert.equal(JSON.parse(text).error.details[0].path, `${'x'.repeat(200)}…`);
  });
});
