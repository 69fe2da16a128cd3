/** NODE_ENV=production: no simulator, no demo merchant and no demo store; the product itself runs. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import os from 'node:os';
import { after, before, test } from 'node:test';
import { spawn } from 'node:child_process';
import { ROOT, SERVER_ENTRY } from '../../scripts/compiled-server.ts';
import { loadConfig } from '../../api/config.ts';
import BetterSqlite3 from 'better-sqlite3';
import { freePort, type ServerProcess, startServerProcess, storeEnv } from '../helpers/server-process.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
let server: ServerProcess;

/** Whether something accepts connections on the loopback port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Runs the service with `env` until it exits; its exit code and what it printed. */
async function runToExit(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [SERVER_ENTRY], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr };
}

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

test('says once per network, at start-up and on /health, that nothing serves it', async () => {
  const warnings = server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; network?: string; msg: string })
    .filter((entry) => entry.network !== undefined);
  const refused = 'its assets are refused and absent from GET /v2/assets';
  assert.deepEqual(
    warnings.map(({ level, network, msg }) => ({ level, network, msg })),
    [
      { level: 40, network: 'bitcoin', msg: `bitcoin is not served: no node (BITCOIN_RPC_URL) and the simulator is off; ${refused}` },
      { level: 40, network: 'litecoin', msg: `litecoin is not served: no node (LITECOIN_RPC_URL) and the simulator is off; ${refused}` },
      { level: 40, network: 'ethereum', msg: `ethereum is not served: no node (ETHEREUM_RPC_URL) and the simulator is off; ${refused}` },
      { level: 40, network: 'tron', msg: `tron is not served: it runs only on the simulator, which is off; ${refused}` },
      { level: 40, network: 'ripple', msg: `ripple is not served: it runs only on the simulator, which is off; ${refused}` },
      { level: 40, network: 'monero', msg: `monero is not served: no node (MONERO_WALLET_RPC_URL and MONERO_DAEMON_RPC_URL) and the simulator is off; ${refused}` },
    ],
  );
  const unserved = { source: 'unserved' };
  assert.deepEqual(await (await fetch(`${server.url}/health`)).json(), {
    status: 'ok',
    networks: { bitcoin: unserved, litecoin: unserved, ethereum: unserved, tron: unserved, ripple: unserved, monero: unserved },
    rateSources: Object.fromEntries(['bitstamp', 'coinbase', 'kraken'].map((name) => [name, { status: 'unused', lastSuccessAt: null, error: null }])),
  });
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
    // Nothing left behind (no database, no server key), so the next try starts as new.
    assert.deepEqual(fs.readdirSync(dataDir), []);
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
  const { code, stdout, stderr } = await runToExit({ NODE_ENV: 'production', SIMULATOR: 'off', PORT: String(server.port), DATA_DIR: server.dataDir, ...(await storeEnv(server.dataDir)) });
  assert.equal(code, 1);
  assert.equal(stdout, '', 'nothing claims it is running');
  assert.match(stderr, /^crypto-checkout: cannot listen on port \d+: port \d+ is already in use \(set PORT to a free one\)\n$/);
});

test('a first start on a port in use creates nothing: no DATA_DIR, no demo merchant, no keys printed', async () => {
  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-busy-port-')), 'data');
  try {
    const { code, stdout, stderr } = await runToExit({ NODE_ENV: 'development', SIMULATOR: 'on', PORT: String(server.port), DATA_DIR: dataDir });
    assert.equal(code, 1);
    assert.equal(stdout, '', 'no demo keys shown for a start that did not happen');
    assert.match(stderr, /^crypto-checkout: cannot listen on port \d+: port \d+ is already in use \(set PORT to a free one\)\n$/);
    assert.equal(fs.existsSync(dataDir), false, 'nothing was written');
  } finally {
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
  }
});

test('HOST: listens on that address alone; a malformed one, or one this machine lacks, stops start-up with one line naming HOST', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-host-'));
  fs.writeFileSync(path.join(dataDir, 'wallet-mnemonic.txt'), `${MNEMONIC}\n`, { mode: 0o600 });
  try {
    const bad = await runToExit({ NODE_ENV: 'production', SIMULATOR: 'off', PORT: '0', DATA_DIR: dataDir, HOST: 'not a host!' });
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, 'crypto-checkout: HOST must be an address or host name to listen on (127.0.0.1, ::1, localhost, 0.0.0.0), got "not a host!"\n');
    // 192.0.2.0/24 is reserved for documentation: no machine has it, and nothing is sent to it.
    const absent = await runToExit({ NODE_ENV: 'production', SIMULATOR: 'off', PORT: '0', DATA_DIR: dataDir, HOST: '192.0.2.1' });
    assert.equal(absent.code, 1);
    assert.match(absent.stderr, /^crypto-checkout: cannot listen on 192\.0\.2\.1 port 0: HOST 192\.0\.2\.1 is not an address of this machine\n$/);

    const loopbackOnly = await startServerProcess({ NODE_ENV: 'production', SIMULATOR: 'off', DATA_DIR: dataDir, HOST: '127.0.0.1' });
    try {
      assert.equal((await fetch(`http://127.0.0.1:${loopbackOnly.port}/health`)).status, 200);
      // Another loopback address reaches a server listening on every interface, not this one.
      await assert.rejects(fetch(`http://127.0.0.2:${loopbackOnly.port}/health`), /fetch failed/);
      assert.equal((await fetch(`http://127.0.0.2:${server.port}/health`)).status, 200, 'the default listens on every interface');
    } finally {
      await loopbackOnly.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a request that arrives while the service is still starting is held and answered, not refused', { skip: process.env.TEST_DATABASE_URL ? 'holds a SQLite lock' : false }, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-starting-'));
  fs.writeFileSync(path.join(dataDir, 'wallet-mnemonic.txt'), `${MNEMONIC}\n`, { mode: 0o600 });
  await (await startServerProcess({ NODE_ENV: 'production', SIMULATOR: 'off', DATA_DIR: dataDir })).stop();
  // Another process holds the database's write lock: the start waits on it (as on another
  // instance's migrations), after the port is taken.
  const lock = new BetterSqlite3(path.join(dataDir, 'checkout.db'));
  lock.exec('BEGIN IMMEDIATE');
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', SIMULATOR: 'off', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
  try {
    // The port accepts connections before the start is done.
    for (let tries = 0; !(await accepts(port)); tries++) {
      if (tries > 300) assert.fail('the service never took its port');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    let settled = false;
    const answer = fetch(`http://127.0.0.1:${port}/health`).finally(() => (settled = true));
    answer.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(settled, false, 'held while the service waits on the database');
    lock.exec('COMMIT');
    assert.equal((await answer).status, 200);
  } finally {
    if (lock.inTransaction) lock.exec('ROLLBACK');
    lock.close();
    child.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a PUBLIC_URL with a path stops start-up with one line: the pages and links live at the root of the host', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-public-url-'));
  try {
    const { code, stdout, stderr } = await runToExit({ NODE_ENV: 'development', SIMULATOR: 'on', PORT: '0', DATA_DIR: dataDir, PUBLIC_URL: 'http://localhost:47319/checkout' });
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.equal(
      stderr,
      'crypto-checkout: PUBLIC_URL must be an origin with no path (the service answers at the root of its own host, such as https://pay.example.com), got "http://localhost:47319/checkout"\n',
    );
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  // A trailing slash is no path.
  assert.equal(loadConfig({ PUBLIC_URL: 'https://pay.example.com/' }).publicUrl, 'https://pay.example.com');
  assert.equal(loadConfig({ PUBLIC_URL: 'https://pay.example.com//' }).publicUrl, 'https://pay.example.com');
});

test('a DATA_DIR that cannot be a directory stops start-up with one line naming DATA_DIR', async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-data-file-')), 'not-a-directory');
  fs.writeFileSync(file, '');
  try {
    const { code, stdout, stderr } = await runToExit({ NODE_ENV: 'development', SIMULATOR: 'on', PORT: '0', DATA_DIR: file });
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(stderr, /^crypto-checkout: DATA_DIR \S+not-a-directory cannot be used as the data directory: EEXIST[^\n]*\n$/);
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
});
