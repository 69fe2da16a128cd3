/**
 * The hosted payer page end to end: the real service as `npm start` runs it, a payment created
 * with a signed request, /pay in headless Chromium (with and without JavaScript), a simulated
 * transaction and blocks, and the page reaching COMPLETE live, without a reload.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { DIST_DIR } from '../../api/app.ts';
import { type DemoMerchant, readDemoMerchant } from '../../api/merchants/demo-merchant.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';

// {styles} is the hash of the page's one inline style sheet (the built pay.css, inlined so that it
// does not hold up the first paint).
const EXPECTED_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' {styles}; img-src 'self' {origin} data: https:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const PAY_CSS = fs.readFileSync(path.join(DIST_DIR, 'hosted', 'pay.css'), 'utf8');
const STYLES_HASH = `'sha256-${createHash('sha256').update(PAY_CSS, 'utf8').digest('base64')}'`;

/** The few browser APIs the page probes touch (this program is type-checked without the DOM library). */
interface ProbeNode {
  textContent: string | null;
  shadowRoot: { adoptedStyleSheets: unknown[]; querySelector(selector: string): ProbeNode | null } | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { left: number; right: number };
  hidden?: boolean;
}
interface ProbeWindow {
  document: {
    title: string;
    body: { innerText: string };
    documentElement: { scrollWidth: number; clientWidth: number };
    querySelector(selector: string): ProbeNode | null;
    addEventListener(type: 'securitypolicyviolation', listener: (event: { violatedDirective: string; blockedURI: string }) => void): void;
  };
  getComputedStyle(node: ProbeNode): { display: string };
  samePage?: boolean;
  cspViolations?: string[];
}

let server: ServerProcess;
let browser: Browser;
let merchant: DemoMerchant;

interface CreatedPayment {
  id: string;
  addressTo: string;
  destTag: string | null;
  paymentRedirectUrl: string;
  asset: { short: string; network: string };
}

async function createPayment(body: Record<string, unknown>): Promise<CreatedPayment> {
  const raw = JSON.stringify(body);
  const response = await fetch(`${server.url}/v2/payment`, {
    method: 'POST',
    headers: { 'API-KEY': merchant.apiKey, 'X-HMAC': createHmac('sha256', merchant.secretKey).update(raw).digest('hex'), 'Content-Type': 'application/json' },
    body: raw,
  });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as CreatedPayment;
}

async function dev(route: 'transactions' | 'blocks', body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${server.url}/v2/dev/${route}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(response.status, 200, await response.clone().text());
}

/** Text inside the element's shadow root (empty until it has rendered a payment). */
function shadowText(page: Page, selector: string): Promise<string> {
  return page.evaluate((sel) => {
    const found = (globalThis as unknown as ProbeWindow).document.querySelector('crypto-checkout')?.shadowRoot?.querySelector(sel);
    return (found?.textContent ?? '').replace(/\s+/g, ' ').trim();
  }, selector);
}

async function waitForShadowText(page: Page, selector: string, words: string): Promise<void> {
  await page.waitForFunction(
    (sel, expected) => ((globalThis as unknown as ProbeWindow).document.querySelector('crypto-checkout')?.shadowRoot?.querySelector(sel)?.textContent ?? '').replace(/\s+/g, ' ').includes(expected),
    { timeout: 15_000 },
    selector,
    words,
  );
}

/** A page that records CSP violations and script errors from the first byte. */
async function watchedPage(width: number): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  await page.setViewport({ width, height: 800 });
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${(err as Error).message}`));
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) problems.push(`console: ${message.text()}`);
  });
  await page.evaluateOnNewDocument(() => {
    const w = globalThis as unknown as ProbeWindow;
    w.cspViolations = [];
    w.document.addEventListener('securitypolicyviolation', (event) => w.cspViolations!.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  return { page, problems };
}

const AXE_SOURCE = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/** axe-core's violations on the page as "rule: targets" lines (DevTools evaluation is not subject to the page's CSP). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`,
  ) as Promise<string[]>;
}

describe('hosted payer page /pay', () => {
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

  it('serves the payment in the HTML itself, escaped, under a strict Content-Security-Policy', async () => {
    const payment = await createPayment({
      amount: '0.01',
      asset: { short: 'BTC', network: 'bitcoin' },
      invoice: '<script>alert("x")</script> & co',
      checkoutUrl: 'https://shop.example/thanks?a=1&b=2',
    });
    const response = await fetch(payment.paymentRedirectUrl);
    const html = await response.text();

    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(response.headers.get('content-security-policy'), EXPECTED_CSP.replace('{origin}', server.url).replace('{styles}', STYLES_HASH));
    // The built style sheet, inline and byte for byte what the CSP hash allows; no other style element.
    assert.deepEqual(html.match(/<style>[\s\S]*?<\/style>/g), [`<style>${PAY_CSS}</style>`]);
    assert.ok(!html.includes('rel="stylesheet"'));
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.ok(html.includes(`<crypto-checkout payment-id="${payment.id}" lang="en">`));
    assert.ok(html.includes('Waiting for payment'));
    // The simulated network is said before the amount a real wallet could otherwise pay.
    assert.ok(html.includes('</div>\n<p class="pay-test-network">Test network: no real funds move</p>\n<dl class="pay-facts">'));
    assert.ok(html.includes('<strong dir="ltr">0.01 BTC</strong>'));
    assert.ok(html.includes(`<code dir="ltr">${payment.addressTo}</code>`));
    assert.ok(html.includes('Invoice <bdi dir="ltr">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co</bdi>'));
    assert.ok(!html.includes('alert("x")'), 'the invoice reached the page unescaped');
    assert.match(html, /<figure class="pay-qr"><svg role="img" aria-label="QR code to pay 0\.01 BTC from a wallet app" viewBox="0 0 41 41"/);
    assert.ok(html.includes(`href="bitcoin:${payment.addressTo}?amount=0.01"`));
    assert.ok(html.includes('<noscript><meta http-equiv="refresh" content="30"></noscript>'));
    // Only the two external module scripts; no inline script or style attribute for the CSP to refuse.
    const scripts = html.match(/<script[^>]*>/g) ?? [];
    assert.equal(scripts[0], '<script type="module" src="/widget/crypto-checkout.js">');
    assert.match(scripts[1] ?? '', /^<script type="module" src="\/hosted\/pay\.[A-Za-z0-9_-]{8,}\.js">$/);
    assert.equal(scripts.length, 2);
    assert.ok(!/\sstyle=/.test(html));
    // The return link appears only once the payment is complete.
    assert.ok(!html.includes('shop.example/thanks'));
  });

  it('shows the XRP destination tag as required', async () => {
    const payment = await createPayment({ amount: '25', asset: { short: 'XRP', network: 'ripple' } });
    const html = await (await fetch(payment.paymentRedirectUrl)).text();
    assert.ok(payment.destTag);
    assert.ok(html.includes(`<dt>Destination tag (required)</dt><dd><code dir="ltr">${payment.destTag}</code>`));
    assert.ok(html.includes(`href="ripple:${payment.addressTo}?dt=${payment.destTag}&amp;amount=25"`));
  });

  it('answers unknown, malformed, repeated and missing ids with a friendly 404 page', async () => {
    for (const query of ['?id=5b0e8a52-0f5e-4d0e-9a53-3f6f1f2b9c11', '?id=not-a-payment', '?id=%3Cscript%3E', '?id=a&id=b', '']) {
      const response = await fetch(`${server.url}/pay${query}`);
      const html = await response.text();
      assert.equal(response.status, 404, query);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      assert.ok(response.headers.get('content-security-policy')?.startsWith("default-src 'none'"));
      assert.ok(html.includes('<h1>Payment not found</h1>'), query);
      assert.ok(!html.includes('<script'), query);
    }
  });

  it('works with JavaScript off, on a 320 px wide screen, even with a long unbroken invoice', async () => {
    const invoice = `INV7${'0'.repeat(60)}`;
    const payment = await createPayment({ amount: '25', asset: { short: 'XRP', network: 'ripple' }, invoice });
    const page = await browser.newPage();
    await page.setJavaScriptEnabled(false);
    await page.setViewport({ width: 320, height: 640 });
    await page.goto(payment.paymentRedirectUrl);
    const shown = await page.evaluate(() => (globalThis as unknown as ProbeWindow).document.body.innerText);
    const overflow = await page.evaluate(() => {
      const { documentElement } = (globalThis as unknown as ProbeWindow).document;
      return documentElement.scrollWidth - documentElement.clientWidth;
    });
    await page.close();

    assert.match(shown, /Waiting for payment/);
    assert.match(shown, /Test network: no real funds move/);
    assert.match(shown, /Amount to pay\s+25 XRP/);
    assert.ok(shown.includes(payment.addressTo));
    assert.match(shown, new RegExp(`Destination tag \\(required\\)\\s+${payment.destTag}`));
    assert.match(shown, /This page reloads every 30 seconds/);
    assert.ok(shown.replace(/\s+/g, '').includes(invoice), 'the invoice is shown whole, wrapped');
    assert.equal(overflow, 0);
  });

  it('passes axe as served (scripts blocked) and after the element takes over, in light and dark', async () => {
    const payment = await createPayment({ amount: '25', asset: { short: 'XRP', network: 'ripple' }, invoice: 'INV-8' });
    await dev('transactions', { address: payment.addressTo, destTag: payment.destTag, amount: '10', asset: payment.asset });
    for (const scheme of ['light', 'dark'] as const) {
      const served = await browser.newPage();
      await served.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
      await served.setRequestInterception(true);
      served.on('request', (request) => void (request.resourceType() === 'script' ? request.abort() : request.continue()));
      await served.goto(payment.paymentRedirectUrl);
      assert.deepEqual(await axeViolations(served), [], `server-rendered page, ${scheme}`);
      await served.close();

      const live = await browser.newPage();
      await live.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
      await live.goto(payment.paymentRedirectUrl);
      await waitForShadowText(live, '[part~="status"]', 'Partly paid');
      assert.deepEqual(await axeViolations(live), [], `page with <crypto-checkout>, ${scheme}`);
      await live.close();
    }
  });

  it('hands over to <crypto-checkout>, which follows the payment to COMPLETE without a reload', async () => {
    const payment = await createPayment({ amount: '0.01', asset: { short: 'BTC', network: 'bitcoin' }, checkoutUrl: 'https://shop.example/thanks' });
    const serverHtml = await (await fetch(payment.paymentRedirectUrl)).text();
    const { page, problems } = await watchedPage(320);
    await page.goto(payment.paymentRedirectUrl);
    await waitForShadowText(page, '[part~="amount"]', '0.01 BTC');

    // Lit's constructed stylesheets apply under style-src 'self' (they are not inline styles).
    const styled = await page.evaluate(() => {
      const w = globalThis as unknown as ProbeWindow;
      const root = w.document.querySelector('crypto-checkout')!.shadowRoot!;
      return { sheets: root.adoptedStyleSheets.length, display: w.getComputedStyle(root.querySelector('[part~="base"]')!).display };
    });
    assert.deepEqual(styled, { sheets: 1, display: 'grid' });
    // The element draws the same QR the server put in the HTML.
    const shadowQr = await page.evaluate(
      () => (globalThis as unknown as ProbeWindow).document.querySelector('crypto-checkout')!.shadowRoot!.querySelector('[part~="qr-code"] path')!.getAttribute('d'),
    );
    assert.ok(shadowQr && serverHtml.includes(`d="${shadowQr}"`));
    const overflow = await page.evaluate(() => {
      const w = globalThis as unknown as ProbeWindow;
      w.samePage = true;
      return w.document.documentElement.scrollWidth - w.document.documentElement.clientWidth;
    });
    assert.equal(overflow, 0);

    await dev('transactions', { address: payment.addressTo, amount: '0.01', asset: payment.asset });
    await waitForShadowText(page, '[part~="status"]', 'Payment received');
    assert.match(await shadowText(page, '[part~="transactions"]'), /0\.01 BTC 0 of 2 confirmations/);

    const receiptShown = () => page.evaluate(() => (globalThis as unknown as ProbeWindow).document.querySelector('[data-link="receipt"]')?.hidden === false);
    assert.equal(await receiptShown(), false, 'no receipt before the payment completes');
    await dev('blocks', { network: 'bitcoin', count: 2 });
    await waitForShadowText(page, '[part~="status"]', 'Payment complete');
    // The receipt link under the element appears with the news, not only after a reload.
    await page.waitForFunction(() => (globalThis as unknown as ProbeWindow).document.querySelector('[data-link="receipt"]')?.hidden === false, { timeout: 5_000 });
    const done = await page.evaluate(() => {
      const w = globalThis as unknown as ProbeWindow;
      return {
        samePage: w.samePage === true,
        title: w.document.title,
        back: w.document.querySelector('crypto-checkout')!.shadowRoot!.querySelector('[part~="return-link"]')?.getAttribute('href'),
        receipt: w.document.querySelector('[data-link="receipt"] a')?.getAttribute('href'),
        refund: w.document.querySelector('[data-link="refund"]')?.hidden,
        // The links sit under the card, no wider than it and centred with it.
        linksUnderCard: (() => {
          const card = w.document.querySelector('crypto-checkout')!.getBoundingClientRect();
          const links = w.document.querySelector('.pay-links')!.getBoundingClientRect();
          return Math.abs(links.left - card.left) < 1 && Math.abs(links.right - card.right) < 1;
        })(),
        violations: w.cspViolations,
      };
    });
    await page.close();

    assert.deepEqual(done, {
      samePage: true,
      title: 'Payment complete · Demo Store',
      back: 'https://shop.example/thanks',
      receipt: `/receipt?id=${payment.id}&lang=en`,
      refund: true,
      linksUnderCard: true,
      violations: [],
    });
    assert.deepEqual(problems, []);

    // A fresh load of the finished payment shows the way back without JavaScript, and no refresh.
    const finished = await (await fetch(payment.paymentRedirectUrl)).text();
    assert.ok(finished.includes('<a class="pay-button" href="https://shop.example/thanks">Return to Demo Store</a>'));
    assert.ok(!finished.includes('http-equiv="refresh"'));
  });
});
