/** `npm run cli -- merchant create`: one JSON document on stdout, keys that work against a server on the same DATA_DIR, exit 2 on bad flags. */
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createApp } from '../../api/app.ts';
import { runCli } from '../../api/cli/cli.ts';
import { loadConfig } from '../../api/config.ts';
import { openDatabase } from '../../api/db/open-database.ts';
import { loadServerKey } from '../../api/merchants/server-key.ts';
import { createServices } from '../../api/services.ts';
import { systemClock } from '../../api/shared/clock.ts';
import { silentLogger } from '../../api/shared/logger.ts';
import { merchantApi, type TestMerchant } from '../helpers/test-server.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const USAGE = 'Usage:\n  npm run cli -- merchant create --name NAME [--email EMAIL] [--site-url URL] [--logo-url URL] [--json]';

type Run = { code: number; stdout: string; stderr: string };

/** Runs a command to completion, whatever its exit code. */
async function run(file: string, args: string[], dataDir: string): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(file, args, { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw err;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** Exactly as an operator types it. */
const npmCli = (args: string[], dataDir: string) => run('npm', ['run', 'cli', '--', ...args], dataDir);

/** The same program in this process (what cli.ts runs after start-up), for the many flag checks. */
function cli(args: string[], dir: string): Run {
  const previous = process.env.DATA_DIR;
  process.env.DATA_DIR = dir;
  let stdout = '';
  let stderr = '';
  try {
    const code = runCli(args, (text) => (stdout += text), (text) => (stderr += text));
    return { code, stdout, stderr };
  } finally {
    process.env.DATA_DIR = previous;
  }
}

/** The service as main.ts builds it on a DATA_DIR (its server key file included), on a loopback port. */
async function startServiceOn(dir: string) {
  const config = loadConfig({ DATA_DIR: dir, SIMULATOR: 'on', SIMULATOR_BLOCK_SECONDS: '0', ADDRESS_POOL_SIZE: '0', LOG_LEVEL: 'silent' });
  const db = openDatabase(path.join(config.dataDir, 'checkout.db'));
  const services = createServices({ db, config, clock: systemClock, logger: silentLogger(), serverKey: loadServerKey(config) });
  const server: http.Server = await new Promise((resolve) => {
    const listening = createApp(services).listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    api: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await services.close();
      db.close();
    },
  };
}

let dataDir: string;

before(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-cli-'));
});
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('merchant create --json', () => {
  let created: TestMerchant;
  let server: Awaited<ReturnType<typeof startServiceOn>> | undefined;
  after(async () => {
    await server?.stop();
  });

  test('prints exactly one JSON document with the merchant and its keys, and nothing else', async () => {
    const result = await npmCli(['merchant', 'create', '--name', 'Acme', '--json'], dataDir);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '');
    assert.ok(result.stdout.endsWith('}\n'));
    assert.equal(result.stdout.trim().split('\n').length, 1);
    created = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(created), ['merchant', 'apiKey', 'secretKey']);
    assert.match(created.merchant.id, UUID_V4);
    assert.deepEqual(created.merchant, { id: created.merchant.id, name: 'Acme', siteUrl: null, logoUrl: null, email: null });
    assert.match(created.apiKey, /^ak_[A-Za-z0-9_-]{32}$/);
    assert.match(created.secretKey, /^sk_[A-Za-z0-9_-]{43}$/);
  });

  test('takes the optional merchant fields', async () => {
    const result = cli(
      ['merchant', 'create', '--name', 'Bolt & Co', '--email', 'ops@bolt.example', '--site-url', 'bolt.example', '--logo-url', 'https://bolt.example/logo.svg', '--json'],
      dataDir,
    );
    assert.equal(result.code, 0, result.stderr);
    const { merchant, apiKey } = JSON.parse(result.stdout);
    assert.deepEqual(merchant, { id: merchant.id, name: 'Bolt & Co', siteUrl: 'bolt.example', logoUrl: 'https://bolt.example/logo.svg', email: 'ops@bolt.example' });
    assert.notEqual(apiKey, created.apiKey);
  });

  test('the printed keys authenticate against a server started on the same DATA_DIR', async () => {
    server = await startServiceOn(dataDir);
    const api = merchantApi(server, created);
    const listed = await api.get('/payment');
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body, { data: [], page: 1, limit: 20, total: 0 });
    const payment = await api.post('/payment', { amount: '0.001', asset: { short: 'BTC', network: 'bitcoin' } });
    assert.equal(payment.status, 200);
    assert.deepEqual(payment.body.merchant, created.merchant);
  });

  test('a merchant created while the server runs can use it at once', async () => {
    assert.ok(server, 'the server of the previous test is running');
    const result = cli(['merchant', 'create', '--name', 'Late Arrival', '--json'], dataDir);
    assert.equal(result.code, 0, result.stderr);
    const late = JSON.parse(result.stdout) as TestMerchant;
    const response = await merchantApi(server, late).post('/payment', { amount: '1', asset: { short: 'XRP', network: 'ripple' } });
    assert.equal(response.status, 200);
    assert.equal(response.body.merchant.name, 'Late Arrival');
  });

  test('the database holds neither key in clear', () => {
    const bytes = fs.readFileSync(path.join(dataDir, 'checkout.db')).toString('latin1');
    assert.ok(!bytes.includes(created.apiKey));
    assert.ok(!bytes.includes(created.secretKey));
  });
});

describe('merchant create, refused', () => {
  const scratch = () => fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-cli-bad-'));

  for (const [title, args, message] of [
    ['without --name', ['merchant', 'create', '--json'], '--name is required.'],
    ['with an empty name', ['merchant', 'create', '--name', '', '--json'], '--name must not be empty'],
    ['with an unknown flag', ['merchant', 'create', '--name', 'X', '--nmae', 'Y'], "Unknown option '--nmae'"],
    ['with a flag missing its value', ['merchant', 'create', '--json', '--name'], "Option '--name <value>' argument missing"],
    ['with a bad e-mail', ['merchant', 'create', '--name', 'X', '--email', 'not-an-email', '--json'], '--email must be an e-mail address'],
    ['with a logo URL that is not http(s)', ['merchant', 'create', '--name', 'X', '--logo-url', 'ftp://x.example/l.png'], '--logo-url must be an absolute http:// or https:// URL'],
    ['with a site address in a javascript: URL', ['merchant', 'create', '--name', 'X', '--site-url', 'javascript:alert(1)'], '--site-url must be a site address such as shop.example.com'],
    ['with a site address in a data: URL', ['merchant', 'create', '--name', 'X', '--site-url', 'data:text/html,x'], '--site-url must be a site address such as shop.example.com'],
    ['with an unknown command', ['merchant', 'delete', '--name', 'X'], 'Unknown command "merchant delete".'],
  ] as const) {
    test(`${title}: exit code 2, a clear message on stderr, nothing on stdout, nothing created`, async () => {
      const dir = scratch();
      try {
        const result = cli([...args], dir);
        assert.equal(result.code, 2);
        assert.equal(result.stdout, '');
        assert.ok(result.stderr.startsWith(message), result.stderr);
        const file = path.join(dir, 'checkout.db');
        if (fs.existsSync(file)) {
          const db = new Database(file, { readonly: true });
          assert.deepEqual(db.prepare('SELECT COUNT(*) AS n FROM merchants').get(), { n: 0 });
          db.close();
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  test('through npm too: exit code 2 and the usage on stderr', async () => {
    const result = await npmCli(['merchant', 'create'], dataDir);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.ok(result.stderr.includes(`--name is required.\n${USAGE}`), result.stderr);
  });

  test('with no command: exit code 2 and the usage on stderr, not stdout', async () => {
    const result = await run(process.execPath, ['--import', 'tsx', 'api/cli/cli.ts'], dataDir);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.ok(result.stderr.startsWith(USAGE));
  });

  test('help prints the usage on stdout and succeeds', () => {
    const result = cli(['--help'], dataDir);
    assert.equal(result.code, 0);
    assert.ok(result.stdout.startsWith(USAGE));
  });
});
