/**
 * A restarted service answers whoever knocks first. Every other suite warms the merchant cache
 * before a payer asks; here the service is stopped and started again on the same store, and the
 * first request after the restart is the payer's: the payer-safe view, the hosted page or the event
 * stream of a payment whose merchant the new process has not looked up yet. On SQLite the checkout
 * used to read that merchant outside its own read transaction, which held the only connection, so
 * the request and every later one waited forever.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { ROOT } from '../../scripts/compiled-server.ts';
import { type ServerProcess, startServerProcess, storeEnv } from '../helpers/server-process.ts';
import { merchantApi, type TestMerchant } from '../helpers/test-server.ts';

/** A request that never answers fails the test instead of hanging it; a healthy answer takes milliseconds. */
const ANSWER_WITHIN_MS = 5_000;

describe('the first request after a restart', () => {
  let dataDir: string;
  let running: ServerProcess | undefined;
  let keys: TestMerchant;
  let paymentId: string;

  /** Stops the running process and starts a new one on the same store: every cache is cold. */
  async function restart(): Promise<ServerProcess> {
    await running?.stop();
    running = await startServerProcess({ DATA_DIR: dataDir });
    return running;
  }

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-restart-'));
    const first = await restart();
    // A merchant made by the operator's CLI (another process), so the service never looked it up at start-up.
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'api/cli/cli.ts', 'merchant', 'create', '--name', 'Restart Shop', '--json'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...(await storeEnv(dataDir)) },
    });
    keys = JSON.parse(stdout) as TestMerchant;
    const created = await merchantApi({ api: `${first.url}/v2` }, keys).post('/payment', { amount: '0.01', asset: { short: 'BTC', network: 'bitcoin' } });
    assert.equal(created.status, 200);
    paymentId = created.body.id;
  });

  after(async () => {
    await running?.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** After the payer's first request, the merchant API still answers (nothing is left waiting). */
  async function assertStillServing(service: ServerProcess): Promise<void> {
    const read = await fetch(`${service.url}/v2/payment/${paymentId}`, { headers: { 'API-KEY': keys.apiKey }, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
    assert.equal(read.status, 200);
    assert.equal(((await read.json()) as { id: string }).id, paymentId);
  }

  test("answers the payer-safe view when it is the first request, with the merchant's name", async () => {
    const service = await restart();
    const response = await fetch(`${service.url}/v2/checkout/${paymentId}`, { signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
    assert.equal(response.status, 200);
    const view = (await response.json()) as { id: string; merchant: { name: string } };
    assert.equal(view.id, paymentId);
    assert.equal(view.merchant.name, 'Restart Shop');
    await assertStillServing(service);
  });

  test('serves the hosted payer page when it is the first request', async () => {
    const service = await restart();
    const response = await fetch(`${service.url}/pay?id=${paymentId}`, { signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
    assert.equal(response.status, 200);
    assert.match(await response.text(), /Restart Shop/);
    await assertStillServing(service);
  });

  test("opens the payment's event stream with its first event when it is the first request", async () => {
    const service = await restart();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), ANSWER_WITHIN_MS);
    try {
      const response = await fetch(`${service.url}/v2/checkout/${paymentId}/events`, { signal: controller.signal });
      assert.equal(response.status, 200);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (!text.includes('\n\n')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
      assert.match(text, new RegExp(`"id":"${paymentId}"`));
      assert.match(text, /"name":"Restart Shop"/);
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
    await assertStillServing(service);
  });
});
