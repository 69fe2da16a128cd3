/**
 * The refund claim page end to end: the real service as `npm start` runs it, an overpaid payment
 * refunded with a signed request, the claim link in headless Chromium: a wrong address, then the
 * right one, the refund followed to COMPLETE on the same page (its follow script, no reload);
 * axe on each state, in light and dark; no CSP violation.
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

const ETH = { short: 'ETH', network: 'ethereum' };
const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const AXE_SOURCE = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

interface ProbeWindow {
  document: { body: { innerText: string }; addEventListener(type: 'securitypolicyviolation', listener: (event: { violatedDirective: string }) => void): void };
  cspViolations?: string[];
}

let server: ServerProcess;
let browser: Browser;
let merchant: DemoMerchant;

async function signedPost(pathName: string, body: unknown) {
  const raw = JSON.stringify(body);
  const response = await fetch(`${server.url}/v2${pathName}`, {
    method: 'POST',
    headers: { 'API-KEY': merchant.apiKey, 'X-HMAC': createHmac('sha256', merchant.secretKey).update(raw).digest('hex'), 'Content-Type': 'application/json' },
    body: raw,
  });
  assert.equal(response.status, 200, await response.clone().text());
  return response.json() as Promise<Record<string, any>>;
}

async function dev(route: 'transactions' | 'blocks', body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${server.url}/v2/dev/${route}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(response.status, 200, await response.clone().text());
}

async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`,
  ) as Promise<string[]>;
}

async function axeInBothSchemes(page: Page, state: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
    assert.deepEqual(await axeViolations(page), [], `${state}, ${scheme}`);
  }
}

const bodyText = (page: Page) => page.evaluate(() => (globalThis as unknown as ProbeWindow).document.body.innerText);

describe('the refund claim page', () => {
  before(async () => {
    assert.ok(fs.existsSync(path.join(DIST_DIR, 'hosted', 'pay.css')), 'dist/hosted/pay.css is missing: run `npm run build` first');
    server = await startServerProcess();
    browser = await launchBrowser();
    merchant = readDemoMerchant(server.dataDir)!;
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  it('refuses a wrong address, takes the right one, and follows the refund to COMPLETE, accessible throughout', async () => {
    const payment = await signedPost('/payment', { amount: '1', asset: ETH });
    await dev('transactions', { address: payment.addressTo, amount: '1.5', asset: ETH, confirmations: 50 });
    const refund = await signedPost(`/payment/${payment.id}/refund`, {});
    const page = await browser.newPage();
    await page.evaluateOnNewDocument(() => {
      const w = globalThis as unknown as ProbeWindow;
      w.cspViolations = [];
      w.document.addEventListener('securitypolicyviolation', (event) => w.cspViolations!.push(event.violatedDirective));
    });
    await page.goto(refund.claimUrl as string);
    assert.match(await bodyText(page), /Waiting for your address/);
    await axeInBothSchemes(page, 'awaiting an address');

    await page.type('#pay-address', BTC_ADDRESS);
    await Promise.all([page.waitForNavigation(), page.click('button.pay-button')]);
    assert.match(await bodyText(page), /This is not a valid Ethereum address\./);
    await axeInBothSchemes(page, 'a wrong address');

    await page.$eval('#pay-address', (input) => ((input as unknown as { value: string }).value = ''));
    await page.type('#pay-address', ETH_ADDRESS);
    await Promise.all([page.waitForNavigation(), page.click('button.pay-button')]);
    assert.match(await bodyText(page), /Approved: being sent/);
    await axeInBothSchemes(page, 'approved');

    await dev('blocks', { network: 'ethereum', count: 50 });
    // The follow script reads the page again every 10 s while the refund moves; this waits for that.
    await page.waitForSelector('[data-refund-status="COMPLETE"]', { timeout: 20_000 });
    assert.match(await bodyText(page), /\bSent\n/);
    assert.doesNotMatch(await bodyText(page), /This page updates every/);
    await axeInBothSchemes(page, 'complete');
    assert.deepEqual(await page.evaluate(() => (globalThis as unknown as ProbeWindow).cspViolations), []);
    await page.close();
  });
});
