/**
 * The payer side under hostile data: a merchant name, invoice, customer name and return URL full of
 * markup and script, rendered on the hosted page and by the widget on a merchant's own page, in
 * headless Chromium. Nothing may run, nothing may be injected, the text must read as sent; the
 * hosted page's CSP allows no inline script or eval; checkoutUrl takes only http(s).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { launchBrowser } from '../helpers/browser.ts';
import { merchantApi, postJson, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';
import { parseOrThrow } from '../../api/shared/validation.ts';
import { CreateMerchantInput } from '../../api/merchants/merchant.schema.ts';

const NAME = `<img src=x onerror="globalThis.__xss='name'"><script>globalThis.__xss='name-script'</script>"'&amp;<b id="injected-name">Shop</b>`;
const INVOICE = `"><svg id="injected-invoice" onload="globalThis.__xss='invoice'"></svg><script>alert('invoice')</script>`;
const CUSTOMER = `<script>alert('customer')</script><i id="injected-customer">customer</i>`;
const CHECKOUT_URL = `https://shop.example/return?next="><script>alert('url')</script>&x='onmouseover='alert(1)`;
const ETH = { short: 'ETH', network: 'ethereum' };

let server: TestServer;
let shop: TestMerchant;
let browser: Browser;
let merchantSite: http.Server;
let merchantSiteUrl: string;
const payments: { open: string; complete: string } = { open: '', complete: '' };

before(async () => {
  server = await startTestServer();
  // No logo: the page would try to load it from the internet.
  shop = { ...(await server.services.merchants.create(parseOrThrow(CreateMerchantInput, { name: NAME, email: 'owner@shop.example', siteUrl: 'shop.example' }))) } as TestMerchant;
  const api = merchantApi(server, shop);
  const body = { amount: '0.5', asset: ETH, invoice: INVOICE, customer: { name: CUSTOMER, email: 'payer@example.com' }, checkoutUrl: CHECKOUT_URL };
  const open = await api.post('/payment', body);
  assert.equal(open.status, 200, JSON.stringify(open.body));
  assert.equal(open.body.invoice, INVOICE);
  assert.equal(open.body.customer.name, CUSTOMER);
  const complete = await api.post('/payment', body);
  await postJson(`${server.api}/dev/transactions`, { address: complete.body.addressTo, amount: '0.5', asset: ETH, confirmations: 3 });
  assert.equal((await api.get(`/payment/${complete.body.id}`)).body.status, 'COMPLETE');
  payments.open = open.body.id;
  payments.complete = complete.body.id;

  // A merchant's own site, on another origin, embedding the widget the way the README shows.
  merchantSite = http.createServer((req, res) => {
    const id = new URL(req.url ?? '/', 'http://x').searchParams.get('id') ?? '';
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><html><head><title>Checkout</title><script type="module" src="${server.url}/widget/crypto-checkout.js"></script></head>
<body><crypto-checkout payment-id="${id}" api-base="${server.api}"></crypto-checkout></body></html>`);
  });
  await new Promise<void>((resolve) => merchantSite.listen(0, '127.0.0.1', resolve));
  merchantSiteUrl = `http://127.0.0.1:${(merchantSite.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  merchantSite?.closeAllConnections();
  await new Promise<void>((resolve) => merchantSite?.close(() => resolve()));
  await server?.close();
});

/** What a page did that it must not: dialogs and CSP violations, collected from before load. */
async function watchedPage(): Promise<{ page: Page; dialogs: string[]; violations: () => Promise<string[]> }> {
  const page = await browser.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.evaluateOnNewDocument(`
    globalThis.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => globalThis.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
  `);
  return { page, dialogs, violations: async () => (await page.evaluate('globalThis.__violations')) as string[] };
}

/** Waits until the element has rendered a payment in its shadow root. */
async function waitForWidget(page: Page): Promise<void> {
  await page.waitForFunction(`!!document.querySelector('crypto-checkout')?.shadowRoot?.querySelector('.merchant-name')`, { timeout: 15_000 });
}

/** Everything the checks read from the page: light DOM, the element's shadow DOM and globals. */
interface PageProbe {
  xss: unknown;
  injected: number;
  inlineScripts: number;
  handlers: number;
  lightName: string | null;
  lightInvoice: string | null;
  lightReturn: string | null;
  shadowName: string | null;
  shadowInvoice: string | null;
  shadowReturn: string | null;
  shadowReturnText: string | null;
  title: string;
  html: string;
}

const PROBE = `(() => {
  const host = document.querySelector('crypto-checkout');
  const roots = [document, host && host.shadowRoot].filter(Boolean);
  const count = (selector) => roots.reduce((n, root) => n + root.querySelectorAll(selector).length, 0);
  const text = (root, selector) => (root && root.querySelector(selector) ? root.querySelector(selector).textContent : null);
  const attr = (root, selector, name) => (root && root.querySelector(selector) ? root.querySelector(selector).getAttribute(name) : null);
  const shadow = host && host.shadowRoot;
  let handlers = 0;
  for (const root of roots) for (const el of root.querySelectorAll('*')) for (const a of el.getAttributeNames()) if (/^on/i.test(a)) handlers++;
  return {
    xss: globalThis.__xss,
    injected: count('[id^="injected"], img[src="x"], svg[onload]'),
    inlineScripts: count('script:not([src])'),
    handlers,
    lightName: text(document, '.pay-merchant-name'),
    lightInvoice: text(document, '.pay-merchant .pay-small'),
    lightReturn: attr(document, '.pay a.pay-button[href^="http"]', 'href'),
    shadowName: text(shadow, '.merchant-name'),
    shadowInvoice: text(shadow, '.merchant .small'),
    shadowReturn: attr(shadow, '[part~="return-link"]', 'href'),
    shadowReturnText: text(shadow, '[part~="return-link"]'),
    title: document.title,
    html: document.documentElement.outerHTML + (shadow ? shadow.innerHTML : ''),
  };
})()`;

function assertNothingRan(probe: PageProbe, dialogs: string[]): void {
  assert.deepEqual(dialogs, [], 'no alert/confirm/prompt opened');
  assert.equal(probe.xss, undefined, 'no injected handler or script ran');
  assert.equal(probe.injected, 0, 'no element from a payload exists');
  assert.equal(probe.handlers, 0, 'no element carries an on* handler attribute');
  assert.equal(probe.inlineScripts, 0, 'no inline script element exists');
}

function assertCustomerHidden(probe: PageProbe): void {
  // The payer view never holds the customer, in any form.
  assert.ok(!probe.html.includes('injected-customer'), 'the customer name is nowhere on the page, escaped or not');
  assert.ok(!probe.html.includes('payer@example.com'), 'nor the customer e-mail');
}

describe('the hosted payer page (/pay) with hostile merchant data', () => {
  test('shows the merchant name and invoice as literal text, in the served HTML and in the element', async () => {
    const { page, dialogs, violations } = await watchedPage();
    try {
      await page.goto(`${server.url}/pay?id=${payments.open}`, { waitUntil: 'load' });
      const served = (await page.evaluate(PROBE)) as PageProbe;
      assert.equal(served.lightName, NAME);
      assert.equal(served.lightInvoice, `Invoice ${INVOICE}`);
      assert.ok(served.title.endsWith(` · ${NAME}`), served.title);
      await waitForWidget(page);
      const probe = (await page.evaluate(PROBE)) as PageProbe;
      assert.equal(probe.shadowName, NAME);
      assert.equal(probe.shadowInvoice?.replace(/\s+/g, ' ').trim(), `Invoice ${INVOICE}`);
      assertNothingRan(probe, dialogs);
      assertCustomerHidden(probe);
      assert.deepEqual(await violations(), [], 'nothing even tried to break the CSP');
    } finally {
      await page.close();
    }
  });

  test('links back to the merchant only through the parsed https URL, text intact, once the payment is complete', async () => {
    const { page, dialogs, violations } = await watchedPage();
    try {
      await page.goto(`${server.url}/pay?id=${payments.complete}`, { waitUntil: 'load' });
      const served = (await page.evaluate(PROBE)) as PageProbe;
      assert.equal(served.lightReturn, new URL(CHECKOUT_URL).href);
      await page.waitForFunction(`document.querySelector('crypto-checkout')?.shadowRoot?.querySelector('[part~="return-link"]') != null`, { timeout: 15_000 });
      const probe = (await page.evaluate(PROBE)) as PageProbe;
      assert.equal(probe.shadowReturn, new URL(CHECKOUT_URL).href);
      assert.ok(probe.shadowReturn?.startsWith('https://shop.example/'));
      assert.equal(probe.shadowReturnText?.replace(/\s+/g, ' ').trim(), `Return to ${NAME}`);
      assertNothingRan(probe, dialogs);
      assertCustomerHidden(probe);
      assert.deepEqual(await violations(), []);
    } finally {
      await page.close();
    }
  });

  test('does not reflect a hostile id into its 404 page', async () => {
    const response = await fetch(`${server.url}/pay?id=${encodeURIComponent('<script>alert(1)</script>')}`);
    assert.equal(response.status, 404);
    const html = await response.text();
    assert.ok(!html.includes('alert(1)'));
    assert.ok(response.headers.get('content-security-policy'), 'the 404 page carries the CSP too');
  });
});

describe('the widget on a merchant\'s own page, which has no CSP to fall back on', () => {
  test('renders the hostile merchant name and invoice as text and runs none of it', async () => {
    const { page, dialogs } = await watchedPage();
    try {
      await page.goto(`${merchantSiteUrl}/?id=${payments.complete}`, { waitUntil: 'load' });
      await waitForWidget(page);
      await page.waitForFunction(`document.querySelector('crypto-checkout')?.shadowRoot?.querySelector('[part~="return-link"]') != null`, { timeout: 15_000 });
      const probe = (await page.evaluate(PROBE)) as PageProbe;
      assert.equal(probe.shadowName, NAME);
      assert.equal(probe.shadowInvoice?.replace(/\s+/g, ' ').trim(), `Invoice ${INVOICE}`);
      assert.equal(probe.shadowReturn, new URL(CHECKOUT_URL).href);
      assertNothingRan(probe, dialogs);
      assertCustomerHidden(probe);
    } finally {
      await page.close();
    }
  });
});

describe('the hosted page\'s Content-Security-Policy', () => {
  test('allows scripts only as files from its own origin: no unsafe-inline, no unsafe-eval, no wildcard', async () => {
    const response = await fetch(`${server.url}/pay?id=${payments.open}`);
    const csp = response.headers.get('content-security-policy');
    assert.ok(csp, 'the page sends a CSP');
    const directives = new Map(
      csp.split(';').map((part) => {
        const [name = '', ...values] = part.trim().split(/\s+/);
        return [name.toLowerCase(), values] as const;
      }),
    );
    const scriptSrc = directives.get('script-src') ?? directives.get('default-src');
    assert.ok(scriptSrc, 'scripts are governed by script-src or default-src');
    for (const forbidden of ["'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'", "'wasm-unsafe-eval'", '*', 'data:', 'blob:', 'http:', 'https:']) {
      assert.ok(!scriptSrc.includes(forbidden), `script-src must not allow ${forbidden}: ${csp}`);
    }
    assert.deepEqual(directives.get('default-src'), ["'none'"], 'everything not named is refused (objects, frames, fonts...)');
    assert.deepEqual(directives.get('base-uri'), ["'none'"], 'no <base> can redirect the script URLs');
    assert.deepEqual(directives.get('frame-ancestors'), ["'none'"], 'the page cannot be framed (clickjacking)');
    const html = await response.text();
    assert.deepEqual(html.match(/<script\b[^>]*>/g)?.filter((tag) => !/\ssrc="\//.test(tag)) ?? [], [], 'every script is a same-origin file');
    assert.ok(!/<[^>]+\son[a-z]+\s*=/i.test(html), 'no inline event handler attribute');
  });
});

describe('checkoutUrl on create', () => {
  test('refuses every scheme but http and https with 400 validation-failed and creates nothing', async () => {
    const api = merchantApi(server, shop);
    const before = (await api.get('/payment')).body.total;
    for (const checkoutUrl of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'javascript://shop.example/%0aalert(1)',
      'data:text/html,<script>alert(1)</script>',
      'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      'blob:https://shop.example/uuid',
      '//evil.example/return',
    ]) {
      const response = await api.post('/payment', { amount: '1', asset: ETH, checkoutUrl });
      assert.equal(response.status, 400, checkoutUrl);
      assert.deepEqual(
        response.body,
        {
          error: {
            code: 'validation-failed',
            message: 'The request has invalid fields: checkoutUrl.',
            // A control character (the tab in "java\tscript:") is refused as such before the scheme is read.
            details: [{ path: 'checkoutUrl', message: checkoutUrl.includes('\t') ? 'must not contain control characters' : 'must be an absolute http:// or https:// URL' }],
          },
        },
        checkoutUrl,
      );
    }
    assert.equal((await api.get('/payment')).body.total, before);
    for (const checkoutUrl of ['https://shop.example/thanks', 'http://localhost:8080/thanks']) {
      const response = await api.post('/payment', { amount: '1', asset: ETH, checkoutUrl });
      assert.equal(response.status, 200);
      assert.equal(response.body.checkoutUrl, checkoutUrl);
    }
  });
});
