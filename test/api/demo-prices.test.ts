/**
 * The demo store shows what it will charge: with a rate source answering, each coin's amount at the
 * service's current rate (the order is converted at it and locked); offline, at its fixed demo
 * rates, and it says which. Real service processes (the compiled build), a loopback rate source.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { readDemoMerchant } from '../../api/merchants/demo-merchant.ts';
import { rateEnv, type SourceServer, startSourceServer } from '../helpers/rate-source-servers.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { merchantApi } from '../helpers/test-server.ts';

const running: ServerProcess[] = [];
const sources: SourceServer[] = [];
const dataDirs: string[] = [];
after(async () => {
  await Promise.all(running.map((p) => p.stop('SIGKILL')));
  await Promise.all(sources.map((s) => s.close()));
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});

async function start(env: Record<string, string>): Promise<{ service: ServerProcess; dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-demo-prices-'));
  dataDirs.push(dataDir);
  const service = await startServerProcess({ DATA_DIR: dataDir, ...env });
  running.push(service);
  return { service, dataDir };
}

const mugOption = (page: string) => /<option value="BTC:bitcoin">([^<]*) BTC \(Bitcoin\)<\/option>/.exec(page.slice(page.indexOf('Enamel camp mug')))?.[1];

async function buyMug(service: ServerProcess, dataDir: string) {
  const placed = await fetch(`${service.url}/demo/orders`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ product: 'MUG', asset: 'BTC:bitcoin' }).toString(),
    redirect: 'manual',
  });
  assert.equal(placed.status, 303);
  const id = placed.headers.get('Location')!.split('/').pop()!;
  const demo = readDemoMerchant(dataDir)!;
  return (await merchantApi({ api: `${service.url}/v2` }, demo).get(`/payment/${id}`)).body as { amount: string; price: unknown };
}

describe('the demo store\'s prices', () => {
  test('are the current rate\'s when a source answers, and the order is charged that', async () => {
    const coinbase = await startSourceServer('coinbase', { 'BTC/USD': '64000' });
    sources.push(coinbase);
    const { service, dataDir } = await start(rateEnv([coinbase]));
    const page = await (await fetch(`${service.url}/demo`)).text();
    // $18.00 / 64,000 = 0.00028125 BTC.
    assert.equal(mugOption(page), '≈ 0.00028125');
    assert.match(page, /converted at the market rate when you buy, and locked for your order/);
    const payment = await buyMug(service, dataDir);
    assert.deepEqual([payment.amount, payment.price], ['0.00028125', { amount: '18.00', currency: 'USD' }]);
  });

  test('are its fixed demo rates when no source answers, and it says so', async () => {
    const { service, dataDir } = await start({ RATE_SOURCES: 'coinbase', RATE_SOURCE_COINBASE_URL: 'http://127.0.0.1:9' });
    const page = await (await fetch(`${service.url}/demo`)).text();
    assert.equal(mugOption(page), '0.00018');
    assert.match(page, /No rate source answers right now, so they are converted at fixed demo rates/);
    const payment = await buyMug(service, dataDir);
    assert.deepEqual([payment.amount, payment.price], ['0.00018000', null]);
  });
});
