/**
 * `npm run cli -- db import-sqlite`: an SQLite installation moved into PostgreSQL reads back the same
 * through the API, with the merchant's old keys, its balance, and no address or tag handed out again.
 * Runs in the PostgreSQL half of the suite (it needs a PostgreSQL to import into).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createApp } from '../../api/app.ts';
import { loadConfig } from '../../api/config.ts';
import type { Database } from '../../api/db/database.ts';
import { openPostgresDatabase } from '../../api/db/postgres-database.ts';
import { openSqliteDatabase } from '../../api/db/sqlite-database.ts';
import { loadServerKey } from '../../api/merchants/server-key.ts';
import { createServices, type Services } from '../../api/services.ts';
import { systemClock } from '../../api/shared/clock.ts';
import { silentLogger } from '../../api/shared/logger.ts';
import { createTestDatabase, type TestDatabase, testClusterUrl } from '../helpers/test-database.ts';
import { merchantApi, postJson, type TestMerchant } from '../helpers/test-server.ts';
import { parseOrThrow } from '../../api/shared/validation.ts';
import { CreateMerchantInput } from '../../api/merchants/merchant.schema.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BTC = { short: 'BTC', network: 'bitcoin' };
const XRP = { short: 'XRP', network: 'ripple' };

/** A running app over one database. */
async function serve(db: Database, dataDir: string, serverKey: Buffer): Promise<{ url: string; services: Services; close(): Promise<void> }> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: url, SIMULATOR: 'on', SIMULATOR_BLOCK_SECONDS: '0', ADDRESS_POOL_SIZE: '0', LOG_LEVEL: 'silent' });
  const services = await createServices({ db, config, clock: systemClock, logger: silentLogger(), serverKey });
  server.on('request', createApp(services));
  return {
    url,
    services,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.close();
      await db.close();
    },
  };
}

/** `npm run cli -- db import-sqlite …` as an operator runs it. */
async function importCli(file: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('npm', ['run', 'cli', '--', 'db', 'import-sqlite', '--file', file, '--json'], { cwd: ROOT, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('db import-sqlite', { skip: testClusterUrl() ? false : 'runs in the PostgreSQL half of the suite (TEST_DATABASE_URL)' }, () => {
  let dataDir: string;
  let target: TestDatabase;
  let keys: TestMerchant;
  let serverKeyHex: string;
  const before_: Record<string, unknown> = {};

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-import-'));
    // An SQLite installation with history: a paid payment, an open XRP one, a reserved withdrawal.
    const serverKey = loadServerKey({ dataDir, serverKeyHex: undefined });
    serverKeyHex = serverKey.toString('hex');
    const sqlite = await serve(openSqliteDatabase(path.join(dataDir, 'checkout.db')), dataDir, serverKey);
    try {
      keys = await sqlite.services.merchants.create(parseOrThrow(CreateMerchantInput, { name: 'Moving Shop', email: 'ops@moving.example' }));
      const api = merchantApi({ api: `${sqlite.url}/v2` }, keys);
      const paid = (await api.post('/payment', { amount: '0.01', asset: BTC, invoice: 'old-1' })).body;
      assert.equal((await postJson(`${sqlite.url}/v2/dev/transactions`, { address: paid.addressTo, amount: '0.01', asset: BTC, confirmations: 2 })).status, 200);
      const tagged = (await api.post('/payment', { amount: '3', asset: XRP, invoice: 'old-2' })).body;
      const withdrawal = (await api.post('/withdrawal', { amount: '0.004', asset: BTC, addressTo: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', invoice: 'payout-1' })).body;
      assert.equal(withdrawal.status, 'OPEN');
      before_.paid = (await api.get(`/payment/${paid.id}`)).body;
      before_.tagged = (await api.get(`/payment/${tagged.id}`)).body;
      before_.withdrawal = (await api.get(`/withdrawal/${withdrawal.id}`)).body;
      before_.balance = (await api.get('/balance')).body;
    } finally {
      await sqlite.close();
    }
    target = (await createTestDatabase())!;
  });

  after(async () => {
    await target?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('refuses a SERVER_KEY that does not open the installation\'s merchant keys, and copies nothing', async () => {
    const run = await importCli(path.join(dataDir, 'checkout.db'), { DATABASE_URL: target.url, SERVER_KEY: randomBytes(32).toString('hex') });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /SERVER_KEY does not open the merchant keys/);
    assert.equal(run.stdout, '');
  });

  test('copies everything, prints the counts, and the API answers as before with the old keys', async () => {
    const run = await importCli(path.join(dataDir, 'checkout.db'), { DATABASE_URL: target.url, SERVER_KEY: serverKeyHex });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { merchants: 1, payments: 2, transactions: 1, addresses: 2, withdrawals: 1, ledgerEntries: 2 });

    const moved = await serve(await openPostgresDatabase(target.url, silentLogger()), dataDir, Buffer.from(serverKeyHex, 'hex'));
    try {
      const api = merchantApi({ api: `${moved.url}/v2` }, keys);
      const paid = before_.paid as { id: string; paymentRedirectUrl: string };
      const read = await api.get(`/payment/${paid.id}`);
      assert.equal(read.status, 200);
      // Only PUBLIC_URL-derived fields may differ (this server listens elsewhere).
      const sameOrigin = (body: unknown) => JSON.parse(JSON.stringify(body).replaceAll(/http:\/\/127\.0\.0\.1:\d+/g, 'ORIGIN'));
      assert.deepEqual(sameOrigin(read.body), sameOrigin(before_.paid));
      assert.deepEqual(sameOrigin((await api.get(`/payment/${(before_.tagged as { id: string }).id}`)).body), sameOrigin(before_.tagged));
      assert.deepEqual(sameOrigin((await api.get(`/withdrawal/${(before_.withdrawal as { id: string }).id}`)).body), sameOrigin(before_.withdrawal));
      assert.deepEqual(sameOrigin((await api.get('/balance')).body), sameOrigin(before_.balance));
      // Totals of status-filtered lists come from the per-status counters, rebuilt by the import.
      const statusTotal = async (statuses: string) => (await api.get(`/payment?statuses=${statuses}&limit=1`)).body.total as number;
      const imported = [before_.paid, before_.tagged] as Array<{ status: string }>;
      for (const status of new Set(imported.map((p) => p.status))) assert.equal(await statusTotal(status), imported.filter((p) => p.status === status).length, status);
      assert.equal(await statusTotal('OPEN,CONFIRMING,COMPLETE,EXPIRED'), 2);

      // New records carry on after the imported ones: a new tag, new ids from the sequences.
      const next = await api.post('/payment', { amount: '2', asset: XRP });
      assert.equal(next.status, 200);
      assert.ok(Number(next.body.destTag) > Number((before_.tagged as { destTag: string }).destTag), `tag ${next.body.destTag} after an imported one`);
      const btc = await api.post('/payment', { amount: '0.001', asset: BTC });
      assert.notEqual(btc.body.addressTo, (before_.paid as { addressTo: string }).addressTo);
      const cancelled = await api.post(`/withdrawal/${(before_.withdrawal as { id: string }).id}/cancel`, {});
      assert.equal(cancelled.body.status, 'CANCELLED');
      // The counting triggers are back on after the import.
      assert.equal(await statusTotal('OPEN,CONFIRMING,COMPLETE,EXPIRED'), 4);
      const balance = (await api.get('/balance')).body.data[0];
      assert.deepEqual([balance.available, balance.reserved], ['0.01000000', '0.00000000']);
    } finally {
      await moved.close();
    }
  });

  test('refuses a database that already holds data', async () => {
    const run = await importCli(path.join(dataDir, 'checkout.db'), { DATABASE_URL: target.url, SERVER_KEY: serverKeyHex });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /already holds data/);
  });
});
