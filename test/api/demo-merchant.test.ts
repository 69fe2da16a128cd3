/**
 * One demo merchant per database, from real service processes (the compiled build): a DATA_DIR
 * that lost its keys file finds the same demo merchant again, a restart at another address leaves
 * one demo webhook endpoint, and two instances with DATA_DIRs of
 * their own on one PostgreSQL database, behind one balancer, share one demo merchant and one demo
 * webhook endpoint whose deliveries either instance's demo store verifies.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { DEMO_MERCHANT_FILE, readDemoMerchant } from '../../api/merchants/demo-merchant.ts';
import { freePort, type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { createTestDatabase, type TestDatabase, testClusterUrl } from '../helpers/test-database.ts';
import { merchantApi, postJson } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

const BTC = { short: 'BTC', network: 'bitcoin' };
const onPostgres = testClusterUrl() !== undefined;

const running: ServerProcess[] = [];
const dataDirs: string[] = [];
after(async () => {
  await Promise.all(running.map((p) => p.stop('SIGKILL')));
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});

function newDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-demo-merchant-'));
  dataDirs.push(dir);
  return dir;
}

async function start(env: Record<string, string>): Promise<ServerProcess> {
  const process = await startServerProcess(env);
  running.push(process);
  return process;
}

/** A round-robin balancer in front of `backends` (those started so far); deliveries to the demo store alternate on their own. */
async function startBalancer(port: number, backends: string[]) {
  const webhookAnswers: Array<{ backend: string; status: number }> = [];
  let next = 0;
  let nextWebhook = 0;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const isWebhook = req.method === 'POST' && req.url === '/demo/webhooks';
    const backend = backends[(isWebhook ? nextWebhook++ : next++) % backends.length]!;
    const headers = Object.entries(req.headers).filter((h): h is [string, string] => typeof h[1] === 'string' && h[0] !== 'host' && h[0] !== 'connection');
    const upstream = await fetch(backend + req.url, { method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
    if (isWebhook) webhookAnswers.push({ backend, status: upstream.status });
    const body = Buffer.from(await upstream.arrayBuffer());
    res.writeHead(upstream.status, { 'Content-Type': upstream.headers.get('content-type') ?? 'application/octet-stream' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    webhookAnswers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What the demo store's webhook route answers an unsigned delivery: 503 until it has registered, then 401. */
async function demoWebhookAnswer(instance: ServerProcess): Promise<number> {
  return (await fetch(`${instance.url}/demo/webhooks`, { method: 'POST', body: '{}' })).status;
}

describe('the demo merchant', () => {
  test('a DATA_DIR that lost demo-merchant.json finds the same demo merchant again', async () => {
    const dataDir = newDataDir();
    const first = await start({ DATA_DIR: dataDir });
    const demo = readDemoMerchant(dataDir)!;
    assert.ok(demo, 'the first start wrote the keys file');
    await first.stop();
    running.splice(running.indexOf(first), 1);

    fs.rmSync(path.join(dataDir, DEMO_MERCHANT_FILE));
    const second = await start({ DATA_DIR: dataDir });
    assert.deepEqual(readDemoMerchant(dataDir), demo);
    assert.doesNotMatch(second.output(), /Demo merchant "Demo Store" created/);
    const balance = await merchantApi({ api: `${second.url}/v2` }, demo).get('/balance');
    assert.equal(balance.status, 200);
  });

  test('a service started again at another address leaves one demo webhook endpoint, at the new one', async () => {
    const dataDir = newDataDir();
    const first = await start({ DATA_DIR: dataDir });
    await until(() => demoWebhookAnswer(first), (status) => status === 401, 'the demo store registered its endpoint');
    const otherPort = await freePort(); // taken while the first still holds its own: another port
    await first.stop();
    running.splice(running.indexOf(first), 1);

    const second = await start({ DATA_DIR: dataDir, PORT: String(otherPort) });
    assert.notEqual(second.url, first.url);
    await until(() => demoWebhookAnswer(second), (status) => status === 401, 'the demo store registered its endpoint');
    const endpoints = (await merchantApi({ api: `${second.url}/v2` }, readDemoMerchant(dataDir)!).get('/webhooks')).body.data.map((e: { url: string }) => e.url);
    assert.deepEqual(endpoints, [`${second.url}/demo/webhooks`]);
  });

  test('two instances with DATA_DIRs of their own on one database share one demo merchant and one webhook endpoint', { skip: onPostgres ? false : 'several instances share a database on PostgreSQL only (TEST_DATABASE_URL)' }, async () => {
    const database = (await createTestDatabase()) as TestDatabase;
    const [portA, portB, balancerPort] = [await freePort(), await freePort(), await freePort()];
    // The demo store calls the API at PUBLIC_URL, the balancer, as soon as its instance starts.
    const backends: string[] = [];
    const balancer = await startBalancer(balancerPort, backends);
    try {
      const shared = { DATABASE_URL: database.url, SERVER_KEY: randomBytes(32).toString('hex'), PUBLIC_URL: balancer.url };
      const [dirA, dirB] = [newDataDir(), newDataDir()];
      // A new database takes its wallet from the first instance; the second brings the same mnemonic.
      const a = await start({ ...shared, DATA_DIR: dirA, PORT: String(portA) });
      backends.push(a.url);
      const b = await start({ ...shared, DATA_DIR: dirB, PORT: String(portB), WALLET_MNEMONIC_FILE: path.join(dirA, 'wallet-mnemonic.txt') });
      backends.push(b.url);
      const demo = readDemoMerchant(dirA)!;
      assert.deepEqual(readDemoMerchant(dirB), demo, 'both DATA_DIRs hold the same keys');
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      try {
        assert.deepEqual((await admin.query('SELECT id, name FROM merchants')).rows, [{ id: demo.merchant.id, name: 'Demo Store' }]);
      } finally {
        await admin.end();
      }

      // Both demo stores registered (and removed any endpoint registered twice): one endpoint is left.
      for (const instance of [a, b]) await until(() => demoWebhookAnswer(instance), (status) => status === 401, 'the demo store registered its endpoint');
      const api = merchantApi({ api: `${balancer.url}/v2` }, demo);
      const endpoints = (await api.get('/webhooks')).body.data.map((e: { url: string }) => e.url);
      assert.deepEqual(endpoints, [`${balancer.url}/demo/webhooks`]);

      // Payments paid through the balancer: their events reach both demo stores, and both verify them.
      for (let i = 0; i < 2; i++) {
        const payment = await api.post('/payment', { amount: '0.001', asset: BTC, invoice: `shared-demo-${i}` });
        assert.equal(payment.status, 200);
        const sent = await postJson(`${balancer.url}/v2/dev/transactions`, { address: payment.body.addressTo, amount: '0.001', asset: BTC, confirmations: 10 });
        assert.equal(sent.status, 200);
      }
      // transaction-seen and completed for each.
      await until(async () => balancer.webhookAnswers.length, (count) => count >= 4, 'every event delivered');
      assert.deepEqual(
        balancer.webhookAnswers.slice(0, 4),
        [a.url, b.url, a.url, b.url].map((backend) => ({ backend, status: 200 })),
      );
    } finally {
      await balancer.close();
      await Promise.all(running.map((p) => p.stop('SIGKILL')));
      running.splice(0, running.length);
      await database.drop();
    }
  });
});
