/**
 * Payer pages in one tab, end to end: pages left for the back/forward cache must not hold their
 * event streams, or after six of them (HTTP/1.1's connections per host) the next page never loads.
 * The real service, the built page, headless Chromium.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { DIST_DIR } from '../../api/app.ts';
import { type DemoMerchant, readDemoMerchant } from '../../api/merchants/demo-merchant.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';

/** The few browser APIs the probes touch (this program is type-checked without the DOM library). */
interface ProbeWindow {
  document: { querySelector(selector: string): { shadowRoot: { querySelector(selector: string): { textContent: string | null } | null } | null } | null };
  addEventListener(type: 'pageshow', listener: (event: { persisted: boolean }) => void): void;
  restoredFromCache?: number;
}

// More pages than HTTP/1.1 gives one host connections (six), and than Chromium keeps cached.
const NAVIGATIONS = 8;

let server: ServerProcess;
let browser: Browser;
let merchant: DemoMerchant;

async function createPayment(): Promise<{ id: string; addressTo: string; paymentRedirectUrl: string }> {
  const raw = JSON.stringify({ amount: '0.01', asset: { short: 'BTC', network: 'bitcoin' } });
  const response = await fetch(`${server.url}/v2/payment`, {
    method: 'POST',
    headers: { 'API-KEY': merchant.apiKey, 'X-HMAC': createHmac('sha256', merchant.secretKey).update(raw).digest('hex'), 'Content-Type': 'application/json' },
    body: raw,
  });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as { id: string; addressTo: string; paymentRedirectUrl: string };
}

/** Waits until the element's status title reads `title` (its live view, not the server-rendered one). */
async function waitForStatus(page: Page, title: string): Promise<void> {
  await page.waitForFunction(
    (expected) => (globalThis as unknown as ProbeWindow).document.querySelector('crypto-checkout')?.shadowRoot?.querySelector('.status-title')?.textContent?.trim() === expected,
    { timeout: 10_000 },
    title,
  );
}

describe('payer pages in one tab', () => {
  before(async () => {
    assert.ok(fs.existsSync(path.join(DIST_DIR, 'widget', 'crypto-checkout.js')), 'dist/widget/crypto-checkout.js is missing: run `npm run build` first');
    server = await startServerProcess();
    browser = await launchBrowser();
    const keys = readDemoMerchant(server.dataDir);
    assert.ok(keys, `no demo-merchant.json in ${server.dataDir}`);
    merchant = keys;
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  it(`loads each of ${NAVIGATIONS} payer pages opened one after another, and a page restored by Back follows its payment live`, async () => {
    const payments = [];
    for (let i = 0; i < NAVIGATIONS; i++) payments.push(await createPayment());
    const page = await browser.newPage();
    await page.evaluateOnNewDocument(() => {
      const w = globalThis as unknown as ProbeWindow;
      w.restoredFromCache = 0;
      w.addEventListener('pageshow', (event) => {
        if (event.persisted) w.restoredFromCache! += 1;
      });
    });
    for (const [i, payment] of payments.entries()) {
      await page.goto(payment.paymentRedirectUrl, { waitUntil: 'domcontentloaded', timeout: 10_000 }).catch((err: Error) => {
        throw new Error(`payer page ${i + 1} of ${NAVIGATIONS} did not load: ${err.message}`);
      });
      await waitForStatus(page, 'Waiting for payment');
    }

    // Back to the seventh page, from the cache; its stream reopens, so a payment made now shows live.
    await page.goBack({ waitUntil: 'domcontentloaded', timeout: 10_000 });
    assert.equal(await page.evaluate(() => (globalThis as unknown as ProbeWindow).restoredFromCache), 1, 'the page came back from the back/forward cache');
    const seventh = payments[NAVIGATIONS - 2]!;
    const paid = await fetch(`${server.url}/v2/dev/transactions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ address: seventh.addressTo, amount: '0.01', asset: { short: 'BTC', network: 'bitcoin' }, confirmations: 2 }),
    });
    assert.equal(paid.status, 200, await paid.clone().text());
    await waitForStatus(page, 'Payment complete');
    await page.close();
  });
});
