/** NODE_ENV=production: no simulator, no demo merchant and no demo store; the product itself runs. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { after, before, test } from 'node:test';
import { spawn } from 'node:child_process';
import { ROOT, SERVER_ENTRY } from '../../scripts/compiled-server.ts';
import { type ServerProcess, startServerProcess, storeEnv } from '../helpers/server-process.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
let server: ServerProcess;
before(async () => {
  // Production never generates a wallet: the operator brings the mnemonic file.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-production-'));
  fs.writeFileSync(path.join(dataDir, 'wallet-mnemonic.txt'), `${MNEMONIC}\n`, { mode: 0o600 });
  server = await startServerProcess({ NODE_ENV: 'production', SIMULATOR: 'off', DATA_DIR: dataDir });
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

test('serves no asset while no network runs on a node or on the simulator', async () => {
  const assets = (await (await fetch(`${server.url}/v2/assets`)).json()) as { data: unknown[] };
  assert.deepEqual(assets.data, []);
});

test('still serves the API, the payer page and the widget', async () => {
  assert.equal((await fetch(`${server.url}/v2/payment`)).status, 401);
  assert.equal((await fetch(`${server.url}/pay?id=00000000-0000-4000-8000-000000000000`)).status, 404);
  assert.equal((await fetch(`${server.url}/widget/crypto-checkout.js`)).status, 200);
});

test('never generates a wallet: without a mnemonic file a new installation stops, saying where to put one', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-production-'));
  try {
    await assert.rejects(startServerProcess({ NODE_ENV: 'production', SIMULATOR: 'off', DATA_DIR: dataDir }), /NODE_ENV=production never generates one: put a BIP39 mnemonic in .*wallet-mnemonic\.txt \(WALLET_MNEMONIC_FILE\)/);
    assert.equal(fs.existsSync(path.join(dataDir, 'wallet-mnemonic.txt')), false);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('refuses to start with the simulator switched on', async () => {
  await assert.rejects(startServerProcess({ NODE_ENV: 'production', SIMULATOR: 'on' }), /SIMULATOR cannot be on when NODE_ENV=production/);
});

test('keeps DATA_DIR and every file in it to its owner (0700 / 0600)', () => {
  if (server.dataDir && fs.existsSync(path.join(server.dataDir, 'checkout.db'))) {
    assert.equal(fs.statSync(server.dataDir).mode & 0o777, 0o700);
    for (const name of fs.readdirSync(server.dataDir)) {
      assert.equal(fs.statSync(path.join(server.dataDir, name)).mode & 0o077, 0, `${name} is not readable by others`);
    }
  } else {
    // On PostgreSQL DATA_DIR holds no database; it is still the owner's alone.
    assert.equal(fs.statSync(server.dataDir).mode & 0o077, 0);
  }
});

test('the OpenAPI document lists no simulator schema or route', async () => {
  const document = (await (await fetch(`${server.url}/v2/openapi.json`)).json()) as { paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
  assert.deepEqual(Object.keys(document.paths).filter((p) => p.startsWith('/dev')), []);
  assert.equal(document.components.schemas.SimulatedTransaction, undefined);
  assert.equal(document.components.schemas.MineBlocks, undefined);
});

test('an https PUBLIC_URL (TLS at a proxy) adds HSTS', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-production-'));
  fs.writeFileSync(path.join(dataDir, 'wallet-mnemonic.txt'), `${MNEMONIC}\n`, { mode: 0o600 });
  const secure = await startServerProcess({ NODE_ENV: 'production', SIMULATOR: 'off', PUBLIC_URL: 'https://pay.example.com', DATA_DIR: dataDir });
  try {
    assert.equal((await fetch(`${secure.url}/health`)).headers.get('strict-transport-security'), 'max-age=31536000');
  } finally {
    await secure.stop();
  }
  assert.equal((await fetch(`${server.url}/health`)).headers.get('strict-transport-security'), null, 'not on plain http');
});

test('on a port already in use: one line saying so on stderr, a non-zero exit, never "running"', async () => {
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', SIMULATOR: 'off', PORT: String(server.port), DATA_DIR: server.dataDir, LOG_LEVEL: 'silent', ...(await storeEnv(server.dataDir)) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 1);
  assert.equal(stdout, '', 'nothing claims it is running');
  assert.match(stderr, /^crypto-checkout: cannot listen on port \d+: port \d+ is already in use \(set PORT to a free one\)\n$/);
});

test('a first start on a port in use creates nothing: no DATA_DIR, no demo merchant, no keys printed', async () => {
  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-busy-port-')), 'data');
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'development', SIMULATOR: 'on', PORT: String(server.port), DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  try {
    assert.equal(await new Promise<number | null>((resolve) => child.once('exit', resolve)), 1);
    assert.equal(stdout, '', 'no demo keys shown for a start that did not happen');
    assert.match(stderr, /^crypto-checkout: cannot listen on port \d+: port \d+ is already in use \(set PORT to a free one\)\n$/);
    assert.equal(fs.existsSync(dataDir), false, 'nothing was written');
  } finally {
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
  }
});
