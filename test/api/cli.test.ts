/** `npm run cli -- merchant create`: one JSON document on stdout, keys that work against a server on the same DATA_DIR, exit 2 on bad flags. */
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
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
import { COUNTER_READ_MS } from '../../api/merchants/key-changes.ts';
import { type Clock, systemClock } from '../../api/shared/clock.ts';
import { silentLogger } from '../../api/shared/logger.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { verifyWebhook } from '../../client/index.ts';
import { merchantApi, postJson as postJsonTo, type TestMerchant } from '../helpers/test-server.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const USAGE = 'Usage:\n  npm run cli -- merchant create --name NAME [--email EMAIL] [--site-url URL] [--logo-url URL] [--json]';

type Run = { code: number; stdout: string; stderr: string };

/**
 * Where the CLI and the server keep their data: a DATA_DIR (SQLite), plus, when the suite runs
 * against PostgreSQL, a database of its own there and the SERVER_KEY every instance then shares.
 */
interface Store {
  dataDir: string;
  database: TestDatabase | undefined;
}

/** A scratch DATA_DIR and, on PostgreSQL, a fresh database. */
async function createStore(prefix: string): Promise<Store> {
  return { dataDir: fs.mkdtempSync(path.join(os.tmpdir(), prefix)), database: await createTestDatabase() };
}

async function removeStore(store: Store): Promise<void> {
  await store.database?.drop();
  fs.rmSync(store.dataDir, { recursive: true, force: true });
}

// One key for every process of a PostgreSQL run, as its operator would configure (SQLite runs keep
// theirs in DATA_DIR/server.key).
const SERVER_KEY = randomBytes(32).toString('hex');

/** The environment an operator sets for a store. */
function storeEnv(store: Store): Record<string, string> {
  return store.database ? { DATA_DIR: store.dataDir, DATABASE_URL: store.database.url, SERVER_KEY } : { DATA_DIR: store.dataDir, DATABASE_URL: '' };
}

/** Runs a command to completion, whatever its exit code. */
async function run(file: string, args: string[], store: Store): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(file, args, { cwd: ROOT, env: { ...process.env, ...storeEnv(store), LOG_LEVEL: 'silent' } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw err;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** Exactly as an operator types it. */
const npmCli = (args: string[], store: Store) => run('npm', ['run', 'cli', '--', ...args], store);

/** The same program in this process (what cli.ts runs after start-up), for the many flag checks. */
async function cli(args: string[], store: Store): Promise<Run> {
  const env = storeEnv(store);
  const previous = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  let stdout = '';
  let stderr = '';
  try {
    const code = await runCli(args, (text) => (stdout += text), (text) => (stderr += text));
    return { code, stdout, stderr };
  } finally {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** The service as main.ts builds it on a store (its server key included), on a loopback port; `clock` may run ahead. */
async function startServiceOn(store: Store, clock: Clock = systemClock) {
  const config = loadConfig({ ...storeEnv(store), SIMULATOR: 'on', SIMULATOR_BLOCK_SECONDS: '0', ADDRESS_POOL_SIZE: '0', LOG_LEVEL: 'silent' });
  const db = await openDatabase(config, silentLogger());
  const services = await createServices({ db, config, clock, logger: silentLogger(), serverKey: loadServerKey(config) });
  const server: http.Server = await new Promise((resolve) => {
    const listening = createApp(services).listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    api: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`,
    dispatcher: services.dispatcher,
    keyChanges: services.keyChanges,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await services.close();
      await db.close();
    },
  };
}

/** Everything the store holds, as text: the SQLite file and its WAL, or every row of every table. */
async function storedText(store: Store): Promise<string> {
  if (!store.database) {
    const file = path.join(store.dataDir, 'checkout.db');
    return [file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f).toString('latin1')).join('');
  }
  const db = await openDatabase({ databaseUrl: store.database.url, dataDir: store.dataDir }, silentLogger());
  try {
    const tables = await db.all<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'");
    assert.ok(tables.some((t) => t.name === 'merchants'));
    let text = '';
    for (const { name } of tables) text += JSON.stringify(await db.all(`SELECT * FROM "${name}"`));
    return text;
  } finally {
    await db.close();
  }
}

/** How many merchants the store holds (0 when the CLI never created its schema). */
async function merchantCount(store: Store): Promise<number> {
  if (!store.database) {
    const file = path.join(store.dataDir, 'checkout.db');
    if (!fs.existsSync(file)) return 0;
    const db = new Database(file, { readonly: true });
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM merchants').get() as { n: number }).n;
    } finally {
      db.close();
    }
  }
  const db = await openDatabase({ databaseUrl: store.database.url, dataDir: store.dataDir }, silentLogger());
  try {
    return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM merchants'))!.n;
  } finally {
    await db.close();
  }
}

let store: Store;

before(async () => {
  store = await createStore('checkout-cli-');
});
after(() => removeStore(store));

describe('merchant create --json', () => {
  let created: TestMerchant;
  let server: Awaited<ReturnType<typeof startServiceOn>> | undefined;
  after(async () => {
    await server?.stop();
  });

  test('prints exactly one JSON document with the merchant and its keys, and nothing else', async () => {
    const result = await npmCli(['merchant', 'create', '--name', 'Acme', '--json'], store);
    assert.equal(result.code, 0, result.stderr);
    // The first command on a SQLite DATA_DIR makes its database, and says so on stderr (a command
    // run with another DATA_DIR than the service's would otherwise work on an empty one unnoticed).
    assert.equal(
      result.stderr,
      store.database
        ? ''
        : `Note: there was no database at ${path.join(store.dataDir, 'checkout.db')}, so this command made a new, empty one. The service's data is where its DATABASE_URL (PostgreSQL) or DATA_DIR points: run the command with the same settings.\n`,
    );
    assert.equal((await npmCli(['merchant', 'list', '--json'], store)).stderr, '', 'said once: the database is there now');
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
    const result = await cli(
      ['merchant', 'create', '--name', 'Bolt & Co', '--email', 'ops@bolt.example', '--site-url', 'bolt.example', '--logo-url', 'https://bolt.example/logo.svg', '--json'],
      store,
    );
    assert.equal(result.code, 0, result.stderr);
    const { merchant, apiKey } = JSON.parse(result.stdout);
    assert.deepEqual(merchant, { id: merchant.id, name: 'Bolt & Co', siteUrl: 'bolt.example', logoUrl: 'https://bolt.example/logo.svg', email: 'ops@bolt.example' });
    assert.notEqual(apiKey, created.apiKey);
  });

  test('the printed keys authenticate against a server started on the same DATA_DIR', async () => {
    server = await startServiceOn(store);
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
    const result = await cli(['merchant', 'create', '--name', 'Late Arrival', '--json'], store);
    assert.equal(result.code, 0, result.stderr);
    const late = JSON.parse(result.stdout) as TestMerchant;
    const response = await merchantApi(server, late).post('/payment', { amount: '1', asset: { short: 'XRP', network: 'ripple' } });
    assert.equal(response.status, 200);
    assert.equal(response.body.merchant.name, 'Late Arrival');
  });

  test('the database holds neither key in clear', async () => {
    const bytes = await storedText(store);
    assert.ok(bytes.includes(created.merchant.id), 'the merchant is there');
    assert.ok(!bytes.includes(created.apiKey));
    assert.ok(!bytes.includes(created.secretKey));
  });
});

describe('merchant create, refused', () => {
  const scratch = () => createStore('checkout-cli-bad-');

  for (const [title, args, message] of [
    ['without --name', ['merchant', 'create', '--json'], '--name is required.'],
    ['with an empty name', ['merchant', 'create', '--name', '', '--json'], '--name must not be empty'],
    ['with an unknown flag', ['merchant', 'create', '--name', 'X', '--nmae', 'Y'], "Unknown option '--nmae'"],
    ['with a flag missing its value', ['merchant', 'create', '--json', '--name'], "Option '--name <value>' argument missing"],
    ['with a bad e-mail', ['merchant', 'create', '--name', 'X', '--email', 'not-an-email', '--json'], '--email must be an e-mail address'],
    ['with a logo URL that is not http(s)', ['merchant', 'create', '--name', 'X', '--logo-url', 'ftp://x.example/l.png'], '--logo-url must be an absolute http:// or https:// URL'],
    ['with a plain-http logo on another site (the payer page would not show it)', ['merchant', 'create', '--name', 'X', '--logo-url', 'http://other.example/logo.png'], '--logo-url must be an https:// URL (or on this service, '],
    [
      'with a bad e-mail and a plain-http logo on another site: both named at once',
      ['merchant', 'create', '--name', 'X', '--email', 'nope', '--logo-url', 'http://other.example/logo.png'],
      '--email must be an e-mail address\n--logo-url must be an https:// URL (or on this service, ',
    ],
    ['with a site address in a javascript: URL', ['merchant', 'create', '--name', 'X', '--site-url', 'javascript:alert(1)'], '--site-url must be a site address such as shop.example.com'],
    ['with a site address in a data: URL', ['merchant', 'create', '--name', 'X', '--site-url', 'data:text/html,x'], '--site-url must be a site address such as shop.example.com'],
    ['with an unknown command', ['merchant', 'delete', '--name', 'X'], 'Unknown command "merchant delete".'],
  ] as const) {
    test(`${title}: exit code 2, a clear message on stderr, nothing on stdout, nothing created`, async () => {
      const bad = await scratch();
      try {
        const result = await cli([...args], bad);
        assert.equal(result.code, 2);
        assert.equal(result.stdout, '');
        assert.ok(result.stderr.startsWith(message), result.stderr);
        assert.equal(await merchantCount(bad), 0);
        // Judged before any store is opened: no database, no server key made in DATA_DIR.
        assert.deepEqual(fs.readdirSync(bad.dataDir), []);
      } finally {
        await removeStore(bad);
      }
    });
  }

  test('a plain-http logo on the service\'s own address is judged by the PUBLIC_URL the CLI is given, and says so when none is', async () => {
    const bad = await scratch();
    const saved = { PUBLIC_URL: process.env.PUBLIC_URL, PORT: process.env.PORT };
    try {
      delete process.env.PUBLIC_URL;
      delete process.env.PORT;
      const args = ['merchant', 'create', '--name', 'Own logo', '--logo-url', 'http://localhost:47311/demo/assets/logo.svg', '--json'];
      const unset = await cli(args, bad);
      assert.equal(unset.code, 2);
      assert.equal(
        unset.stderr,
        "--logo-url must be an https:// URL (or on this service, http://localhost:3000): the payer's page shows images only from those\n" +
          "(This service's address is read from PUBLIC_URL or PORT, as the service reads it; neither is set for this command.)\n",
      );
      // A logo on another site: the service's address would not help, so no hint about it.
      const elsewhere = await cli(['merchant', 'create', '--name', 'Far logo', '--logo-url', 'http://other.example/logo.png'], bad);
      assert.equal(elsewhere.stderr, "--logo-url must be an https:// URL (or on this service, http://localhost:3000): the payer's page shows images only from those\n");
      process.env.PUBLIC_URL = 'http://localhost:47311';
      const given = await cli(args, bad);
      assert.equal(given.code, 0, given.stderr);
      assert.equal(JSON.parse(given.stdout).merchant.logoUrl, 'http://localhost:47311/demo/assets/logo.svg');
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await removeStore(bad);
    }
  });

  test('through npm too: exit code 2 and the usage on stderr', async () => {
    const result = await npmCli(['merchant', 'create'], store);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.ok(result.stderr.includes(`--name is required.\n${USAGE}`), result.stderr);
  });

  test('with no command: exit code 2 and the usage on stderr, not stdout', async () => {
    const result = await run(process.execPath, ['--import', 'tsx', 'api/cli/cli.ts'], store);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.ok(result.stderr.startsWith(USAGE));
  });

  test('help prints the usage on stdout and succeeds', async () => {
    const result = await cli(['--help'], store);
    assert.equal(result.code, 0);
    assert.ok(result.stdout.startsWith(USAGE));
  });

  test("a command's help (--help, -h or help after it) prints its usage on stdout and succeeds", async () => {
    const user = [
      'Usage:',
      '  npm run cli -- user create --merchant MERCHANT_ID --email EMAIL --role owner|viewer [--json]',
      '  npm run cli -- user list --merchant MERCHANT_ID [--json]',
      '  npm run cli -- user reset-password --email EMAIL [--json]',
      '  npm run cli -- user delete --email EMAIL [--json]',
      '',
      'user create: a dashboard user of a merchant (owner: everything; viewer: reads only), with a generated',
      'password printed once. user reset-password: a new generated password, printed once; every session of',
      'theirs ends and their failed sign-ins are forgotten. user delete: removes the user and ends their sessions.',
      '',
    ].join('\n');
    for (const args of [['user', '--help'], ['user', '-h'], ['user', 'help']]) assert.deepEqual(await cli(args, store), { code: 0, stdout: user, stderr: '' }, args.join(' '));
    // With an action, its own usage line; nothing runs, whatever else is on the line.
    const create = await cli(['user', 'create', '--merchant', 'x', '--help'], store);
    assert.deepEqual([create.code, create.stderr], [0, '']);
    assert.ok(create.stdout.startsWith('Usage:\n  npm run cli -- user create --merchant MERCHANT_ID --email EMAIL --role owner|viewer [--json]\n\nuser create:'), create.stdout);
    const merchant = await cli(['merchant', '--help'], store);
    assert.ok(merchant.code === 0 && merchant.stdout.startsWith(`${USAGE}\n  npm run cli -- merchant rotate-keys`) && merchant.stdout.includes('\nmerchant list: every merchant'), merchant.stdout);
    // A command that does not exist is still said to be unknown.
    const unknown = await cli(['nothing', '--help'], store);
    assert.deepEqual([unknown.code, unknown.stdout, unknown.stderr.split('\n')[0]], [2, '', 'Unknown command "nothing --help".']);
  });
});

describe('merchant rotate-keys and merchant list, through a real process', () => {
  let rotatingStore: Store;
  let server: Awaited<ReturnType<typeof startServiceOn>> | undefined;
  before(async () => {
    rotatingStore = await createStore('checkout-cli-rotate-');
  });
  after(async () => {
    await server?.stop();
    await removeStore(rotatingStore);
  });

  test('rotate-keys prints the new pair once; both pairs work until the grace period ends; list shows when', async () => {
    const created: TestMerchant = JSON.parse((await npmCli(['merchant', 'create', '--name', 'Rotor', '--email', 'ops@rotor.example', '--json'], rotatingStore)).stdout);
    server = await startServiceOn(rotatingStore);
    const rotated = await npmCli(['merchant', 'rotate-keys', '--id', created.merchant.id, '--grace-seconds', '3600', '--json'], rotatingStore);
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.equal(rotated.stdout.trim().split('\n').length, 1);
    const keys = JSON.parse(rotated.stdout);
    assert.deepEqual(Object.keys(keys), ['apiKey', 'secretKey', 'previousKeysValidUntil']);
    assert.match(keys.apiKey, /^ak_[A-Za-z0-9_-]{32}$/);
    assert.notEqual(keys.apiKey, created.apiKey);
    const until = Date.parse(keys.previousKeysValidUntil);
    assert.ok(Math.abs(until - (Date.now() + 3_600_000)) < 60_000, keys.previousKeysValidUntil);

    for (const pair of [created, keys]) {
      const api = merchantApi({ api: server.api }, pair);
      assert.equal((await api.post('/payment', { amount: '0.01', asset: { short: 'BTC', network: 'bitcoin' } })).status, 200);
    }

    const listed = await npmCli(['merchant', 'list', '--json'], rotatingStore);
    assert.equal(listed.code, 0, listed.stderr);
    const { data } = JSON.parse(listed.stdout);
    const row = data.find((m: { id: string }) => m.id === created.merchant.id);
    assert.deepEqual(Object.keys(row).sort(), ['createdAt', 'email', 'id', 'logoUrl', 'name', 'previousKeysValidUntil', 'siteUrl']);
    assert.equal(row.previousKeysValidUntil, keys.previousKeysValidUntil);
    assert.doesNotMatch(listed.stdout, /ak_|sk_/, 'no keys in the list');
  });

  test('rotate-keys --grace-seconds 0 cuts the old key off on a running instance within a second', async () => {
    const leaked: TestMerchant = JSON.parse((await npmCli(['merchant', 'create', '--name', 'Leaky', '--json'], rotatingStore)).stdout);
    let ahead = 0;
    const running = await startServiceOn(rotatingStore, () => Date.now() + ahead);
    try {
      const api = merchantApi({ api: running.api }, leaked);
      assert.equal((await api.get('/balance')).status, 200); // remembered by the instance as the current key
      const noticed = running.keyChanges.next();
      const rotated = await npmCli(['merchant', 'rotate-keys', '--id', leaked.merchant.id, '--grace-seconds', '0', '--json'], rotatingStore);
      assert.equal(rotated.code, 0, rotated.stderr);
      // PostgreSQL's NOTIFY reaches the instance by itself (waited for on the instance, not on a clock);
      // SQLite's change counter is read again once the instance's clock is a second on.
      if (rotatingStore.database) await noticed;
      ahead += COUNTER_READ_MS;
      const refused = await api.get('/balance');
      assert.equal(refused.status, 401);
      assert.deepEqual(refused.body, { error: { code: 'invalid-api-key', message: 'The API key in the API-KEY header is not valid.' } });
      assert.equal((await merchantApi({ api: running.api }, JSON.parse(rotated.stdout)).get('/balance')).status, 200);
    } finally {
      await running.stop();
    }
  });

  test('rotate-keys refuses an unknown id, a missing id and a bad grace period with a clear line', async () => {
    const unknown = await cli(['merchant', 'rotate-keys', '--id', '0b7f0a57-5c4e-4d9b-8a52-4b2c0f1e9d33'], rotatingStore);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, 'No merchant with id "0b7f0a57-5c4e-4d9b-8a52-4b2c0f1e9d33".\n');
    const missing = await cli(['merchant', 'rotate-keys'], rotatingStore);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^--id is required/);
    const bad = await cli(['merchant', 'rotate-keys', '--id', 'x', '--grace-seconds', '1.5'], rotatingStore);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--grace-seconds must be a whole number of seconds from 0/);
    // A negative period is named as one, not taken for a flag.
    const negative = await cli(['merchant', 'rotate-keys', '--id', 'x', '--grace-seconds', '-1'], rotatingStore);
    assert.equal(negative.code, 2);
    assert.equal(negative.stderr, '--grace-seconds must be a whole number of seconds from 0 to 7776000 (90 days), got "-1".\n');
    // A mistyped flag shows how this command is called, not every command's usage.
    const typo = await cli(['merchant', 'rotate-keys', '--id', 'x', '--grace', '5'], rotatingStore);
    assert.equal(typo.code, 2);
    assert.equal(typo.stderr, "Unknown option '--grace'\nUsage:\n  npm run cli -- merchant rotate-keys --id MERCHANT_ID [--grace-seconds N] [--json]\n");
  });
});

describe('webhook add / list / delete', () => {
  test('adds an endpoint whose secret signs what the service then sends; lists and deletes it', async () => {
    const merchant = JSON.parse((await cli(['merchant', 'create', '--name', 'Hooked', '--json'], store)).stdout) as TestMerchant;
    const receiver = await startWebhookReceiver();
    const server = await startServiceOn(store);
    try {
      const added = await npmCli(['webhook', 'add', '--merchant', merchant.merchant.id, '--url', `${receiver.url}/cli`, '--events', 'payment.completed', '--json'], store);
      assert.equal(added.code, 0, added.stderr);
      assert.equal(added.stdout.trim().split('\n').length, 1);
      const created = JSON.parse(added.stdout);
      assert.deepEqual(Object.keys(created).sort(), ['createdAt', 'disabled', 'disabledReason', 'events', 'id', 'secret', 'url']);
      assert.deepEqual(created.events, ['payment.completed']);
      const listed = JSON.parse((await cli(['webhook', 'list', '--merchant', merchant.merchant.id, '--json'], store)).stdout);
      assert.deepEqual(listed.data.map((w: { id: string }) => w.id), [created.id]);
      assert.equal(JSON.stringify(listed).includes('whsec_'), false);
      // The service on the same store signs with that secret.
      const api = merchantApi(server, merchant);
      const payment = (await api.post('/payment', { amount: '0.001', asset: { short: 'BTC', network: 'bitcoin' } })).body;
      await postJsonTo(`${server.api}/dev/transactions`, { address: payment.addressTo, amount: '0.001', asset: { short: 'BTC', network: 'bitcoin' }, confirmations: 10 });
      await server.dispatcher.run();
      const [request] = receiver.at('/cli');
      assert.ok(request, 'the event arrived');
      assert.equal(verifyWebhook(request.body, request.headers as Record<string, string>, created.secret).type, 'payment.completed');
      const deleted = await cli(['webhook', 'delete', '--merchant', merchant.merchant.id, '--id', created.id], store);
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.deepEqual(JSON.parse((await cli(['webhook', 'list', '--merchant', merchant.merchant.id, '--json'], store)).stdout).data, []);
    } finally {
      await server.stop();
      await receiver.close();
    }
  });

  test('bad flags exit 2 naming the flag; an unknown merchant or endpoint exits 1', async () => {
    const merchant = JSON.parse((await cli(['merchant', 'create', '--name', 'Flags', '--json'], store)).stdout) as TestMerchant;
    const id = merchant.merchant.id;
    for (const [args, pattern] of [
      [['webhook', 'add', '--url', 'https://shop.example/h'], /--merchant is required/],
      [['webhook', 'add', '--merchant', id], /--url is required/],
      [['webhook', 'add', '--merchant', id, '--url', 'ftp://shop.example'], /--url must be an http\(s\) URL/],
      [['webhook', 'add', '--merchant', id, '--url', 'https://shop.example/h', '--events', 'payment.paid'], /--events must be one of/],
      // Both at once, as the API names every bad field of a body.
      [['webhook', 'add', '--merchant', id, '--url', 'ftp://shop.example', '--events', 'payment.paid'], /^--url must be an http\(s\) URL\n--events must be one of/],
      [['webhook', 'add', '--merchant', id, '--url', 'https://shop.example/h', '--secret', 'x'], /Unknown option '--secret'/],
      [['webhook', 'rename', '--merchant', id], /Unknown command "webhook rename"/],
    ] as const) {
      const result = await cli([...args], store);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, pattern);
    }
    const unknownMerchant = await cli(['webhook', 'list', '--merchant', '0b7f0a57-5c4e-4d9b-8a52-4b2c0f1e9d33'], store);
    assert.equal(unknownMerchant.code, 1);
    assert.match(unknownMerchant.stderr, /No merchant with id/);
    const unknownEndpoint = await cli(['webhook', 'delete', '--merchant', id, '--id', '0b7f0a57-5c4e-4d9b-8a52-4b2c0f1e9d33'], store);
    assert.equal(unknownEndpoint.code, 1);
    assert.match(unknownEndpoint.stderr, /No webhook endpoint/);
  });
});

describe('wallet', () => {
  let store: Store;
  before(async () => {
    store = await createStore('checkout-cli-wallet-');
  });
  after(() => removeStore(store));

  test('create-mnemonic writes a new 24-word wallet file, mode 0600, and never overwrites one', async () => {
    const file = path.join(store.dataDir, 'offline', 'wallet-mnemonic.txt');
    const created = await npmCli(['wallet', 'create-mnemonic', '--file', file], store);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /Wrote a new wallet mnemonic to .*wallet-mnemonic\.txt \(mode 0600\)/);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const words = fs.readFileSync(file, 'utf8').trim().split('\n').at(-1)!.split(' ');
    assert.equal(words.length, 24);
    const before = fs.readFileSync(file, 'utf8');
    const again = await cli(['wallet', 'create-mnemonic', '--file', file], store);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists already; a wallet file is never overwritten/);
    assert.equal(fs.readFileSync(file, 'utf8'), before);
  });

  test('the payout wallet needs a network on a node: clear errors otherwise', async () => {
    for (const [args, code, pattern] of [
      [['wallet'], 2, /--network is required/],
      [['wallet', '--network', 'tron'], 2, /tron is not one of them/],
      [['wallet', '--network', 'ethereum'], 1, /ethereum does not run on a node here: set ETHEREUM_RPC_URL/],
      [['wallet', '--network', 'litecoin', '--jsn'], 2, /Unknown option '--jsn'/],
      [['wallet', '--network', 'litecoin', '--json'], 1, /litecoin does not run on a node here: set LITECOIN_RPC_URL/],
    ] as const) {
      const result = await cli([...args], store);
      assert.equal(result.code, code, args.join(' '));
      assert.match(result.stderr, pattern);
      assert.equal(result.stdout, '');
    }
  });
});
