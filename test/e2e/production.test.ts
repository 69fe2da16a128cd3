/** NODE_ENV=production: no simulator, no demo merchant and no demo store; the product itself runs. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';

let server: ServerProcess;
before(async () => {
  server = await startServerProcess({ NODE_ENV: 'production', SIMULATOR: 'off' });
});
after(() => server.stop());

test('creates no demo merchant and prints no keys', () => {
  assert.equal(fs.existsSync(path.join(server.dataDir, 'demo-merchant.json')), false);
  assert.doesNotMatch(server.output(), /Secret key/);
});

test('serves neither the demo store nor the simulator routes', async () => {
  for (const [method, route] of [['GET', '/demo'], ['POST', '/v2/dev/blocks'], ['POST', '/v2/dev/transactions']] as const) {
    const response = await fetch(server.url + route, { method, headers: { 'Content-Type': 'application/json' }, body: method === 'POST' ? '{}' : null });
    assert.equal(response.status, 404, route);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'not-found', route);
  }
});

test('still serves the API, the payer page and the widget', async () => {
  assert.equal((await fetch(`${server.url}/v2/payment`)).status, 401);
  assert.equal((await fetch(`${server.url}/pay?id=00000000-0000-4000-8000-000000000000`)).status, 404);
  assert.equal((await fetch(`${server.url}/widget/crypto-checkout.js`)).status, 200);
});

test('refuses to start with the simulator switched on', async () => {
  await assert.rejects(startServerProcess({ NODE_ENV: 'production', SIMULATOR: 'on' }), /SIMULATOR cannot be on when NODE_ENV=production/);
});
