/**
 * The demo store end to end: the real service as `npm start` runs it (demo merchant provisioned on
 * an empty DATA_DIR), /demo in headless Chromium, a product bought with the embedded widget, the
 * payer simulated from the store's backend, and the order marked paid from the server-side record.
 * Needs `npm run build` (the widget bundle); `npm test` runs it first.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { DIST_DIR } from '../../api/app.ts';
import { type DemoMerchant, readDemoMerchant } from '../../api/merchants/demo-merchant.ts';
import { MerchantClient, type Payment } from '../../client/index.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { startAnvil } from '../helpers/anvil.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';
// The store's accent colour (#0f6b5c in demo/public/store.css), as computed styles report it.
const STORE_ACCENT = 'rgb(15, 107, 92)';

let server: ServerProcess;
let browser: Browser;
let merchant: DemoMerchant;
let client: MerchantClient;

/** A fresh page that records console errors and CSP violations. */
async function openPage(): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err instanceof Error ? err.message : String(err)}`));
  await page.setViewport({ width: 1280, height: 900 });
  return { page, problems };
}

/** Text of the first element matching a selector, whitespace collapsed. */
async function textOf(page: Page, selector: string): Promise<string> {
  const text = await page.$eval(selector, (node) => node.textContent ?? '');
  return text.replace(/\s+/g, ' ').trim();
}

const AXE_SOURCE = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/** Runs axe (WCAG 2.2 A/AA and best practices, shadow DOM included) on the page; fails on any violation. */
async function expectAccessible(page: Page, state: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } })
      .then((result) => result.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`,
  )) as string[];
  assert.deepEqual(violations, [], `axe violations on ${state}`);
}

/** Buys the mug in an asset from the shop page; returns the payment id from the order page's URL. */
async function buyMug(page: Page, asset: string): Promise<string> {
  await page.goto(`${server.url}/demo`);
  await page.select('#asset-mug', asset);
  await Promise.all([page.waitForNavigation(), page.click('#product-mug ~ form button[type="submit"]')]);
  const match = new RegExp(`/demo/orders/(${UUID})$`).exec(page.url());
  assert.ok(match, `the store should redirect to the order page, got ${page.url()}`);
  return match[1]!;
}

before(async () => {
  assert.ok(
    fs.existsSync(path.join(DIST_DIR, 'widget', 'crypto-checkout.js')),
    'dist/widget/crypto-checkout.js is missing: run `npm run build` first (npm test does)',
  );
  server = await startServerProcess();
  const demo = readDemoMerchant(server.dataDir);
  assert.ok(demo, 'npm start on an empty DATA_DIR writes demo-merchant.json');
  merchant = demo;
  client = new MerchantClient({ baseUrl: server.url, apiKey: merchant.apiKey, secretKey: merchant.secretKey });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
});

describe('the demo store in Chromium', () => {
  test('a shopper pays with the embedded widget, the payer is simulated, and the store shows the order paid', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${server.url}/demo`);
    await expectAccessible(page, 'the shop');
    const paymentId = await buyMug(page, 'BTC:bitcoin');

    // The store's backend created the payment through the client, with the demo merchant's keys.
    const created = await client.getPayment(paymentId);
    assert.equal(created.status, 'OPEN');
    assert.equal(created.amount, '0.00018000');
    assert.equal(created.asset.short, 'BTC');
    assert.match(created.invoice ?? '', /^DEMO-MUG-[0-9A-F]{8}$/);
    assert.equal(created.merchant.name, 'Demo Store');

    // Both integrations, side by side: the hosted page link and the embedded, themed element.
    assert.equal(await page.$eval('a.button[href*="/pay?id="]', (a) => a.getAttribute('href')), `${server.url}/pay?id=${paymentId}`);
    assert.equal(await page.$eval('crypto-checkout', (el) => el.getAttribute('payment-id')), paymentId);
    assert.equal(await page.$eval('crypto-checkout', (el) => el.getAttribute('api-base')), `${server.url}/v2`);
    await page.waitForSelector('crypto-checkout >>> [part~="amount"]');
    assert.match(await textOf(page, 'crypto-checkout >>> [part~="amount"]'), /0\.00018 BTC/);
    const walletButtonColour = await page.evaluate(
      `getComputedStyle(document.querySelector('crypto-checkout').shadowRoot.querySelector('a.button.primary')).backgroundColor`,
    );
    assert.equal(walletButtonColour, STORE_ACCENT, "the widget's accent comes from the store's --checkout-accent");
    assert.equal(await textOf(page, '#order-status [data-field="label"]'), 'Awaiting payment');
    assert.equal(await page.$eval('#thank-you', (el) => el.hasAttribute('hidden')), true);
    await expectAccessible(page, 'an open order');

    await page.click('#simulate-form button');
    await page.waitForSelector('#simulate-result ::-p-text(mining 2 blocks)');
    await page.waitForSelector('crypto-checkout >>> [part~="status"] ::-p-text(Payment complete)', { timeout: 30_000 });
    await page.waitForSelector('#thank-you:not([hidden])', { timeout: 10_000 });
    assert.equal(await textOf(page, '#order-status [data-field="label"]'), 'Paid');
    assert.equal(await textOf(page, '#order-status [data-field="payment-status"]'), 'COMPLETE');
    assert.match(await textOf(page, '#thank-you'), /Thank you, your order is paid/);
    await expectAccessible(page, 'a paid order');

    const paid = await client.getPayment(paymentId);
    assert.equal(paid.status, 'COMPLETE');
    assert.equal(paid.totalReceivedAmount, '0.00018000');

    // The orders page lists it from the API, with the balance it credited.
    await page.goto(`${server.url}/demo/orders`);
    const row = await textOf(page, `tr:has(a[href="/demo/orders/${paymentId}"])`);
    assert.match(row, new RegExp(`${paid.invoice} Enamel camp mug 0\\.00018 BTC 0\\.00018 COMPLETE`));
    const balanceCells = await page.$$eval('section[aria-labelledby="balances-title"] tbody tr > *', (cells) => cells.map((cell) => cell.textContent));
    assert.deepEqual(balanceCells, ['BTC on Bitcoin', '0.00018', '0']);

    // The store registered its webhook endpoint on start; payment.completed reached it, signed, and
    // the store fulfilled the order after checking the record. The orders page shows the deliveries.
    const deadline = Date.now() + 15_000;
    for (;;) {
      await page.goto(`${server.url}/demo/orders`);
      const log = await textOf(page, 'section[aria-labelledby="webhooks-title"]');
      if (/payment\.completed 1 200/.test(log)) break;
      assert.ok(Date.now() < deadline, `no payment.completed delivery listed: ${log}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const [endpoint] = await client.listWebhooks();
    assert.equal(endpoint?.url, `${server.url}/demo/webhooks`);
    await page.goto(`${server.url}/demo/orders/${paymentId}`);
    assert.match(await textOf(page, '[data-field="fulfilment"]'), /^Fulfilled on webhook msg_[0-9a-f]{32} \(payment\.completed\)/);
    await page.goto(`${server.url}/demo/orders`);
    await expectAccessible(page, 'the orders page');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the store\'s webhook endpoint refuses a request that is not signed with its secret', async () => {
    const body = JSON.stringify({ type: 'payment.completed', timestamp: new Date().toISOString(), data: { id: '0b7f0a57-5c4e-4d9b-8a52-4b2c0f1e9d33' } });
    const stamp = String(Math.floor(Date.now() / 1000));
    const forged = await fetch(`${server.url}/demo/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_forged', 'webhook-timestamp': stamp, 'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' },
      body,
    });
    assert.equal(forged.status, 401);
    assert.match(await forged.text(), /does not match/);
    const unsigned = await fetch(`${server.url}/demo/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(unsigned.status, 401);
  });

  test('a forged checkout-paid event in the browser does not mark the order paid', async () => {
    const { page, problems } = await openPage();
    const isStatusCheck = (response: { url(): string }) => /\/demo\/orders\/[^/]+\/status$/.test(response.url());
    // The widget's first status-change (the status it learns on load) prompts the first check.
    const firstCheck = page.waitForResponse(isStatusCheck);
    const paymentId = await buyMug(page, 'ETH:ethereum');
    await firstCheck;
    const checked = page.waitForResponse(isStatusCheck);
    await page.evaluate(
      `document.querySelector('crypto-checkout').dispatchEvent(new CustomEvent('checkout-paid', { bubbles: true, composed: true, detail: {} }))`,
    );
    const response = await checked;
    assert.equal(response.url(), `${server.url}/demo/orders/${paymentId}/status`);
    const answer = (await response.json()) as { state: string; paymentStatus: string };
    assert.deepEqual({ state: answer.state, paymentStatus: answer.paymentStatus }, { state: 'awaiting-payment', paymentStatus: 'OPEN' });
    assert.equal(await textOf(page, '#order-status [data-field="label"]'), 'Awaiting payment');
    assert.equal(await page.$eval('#thank-you', (el) => el.hasAttribute('hidden')), true);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('fits a 320 px wide phone without sideways scrolling', async () => {
    const { page, problems } = await openPage();
    const paymentId = await buyMug(page, 'USDT:tron');
    await page.setViewport({ width: 320, height: 640 });
    for (const pagePath of ['/demo', `/demo/orders/${paymentId}`, '/demo/orders']) {
      await page.goto(server.url + pagePath);
      if (pagePath.includes(paymentId)) await page.waitForSelector('crypto-checkout >>> [part~="qr-code"]');
      const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      assert.equal(overflow, 0, `${pagePath} scrolls sideways at 320 px`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the store owner pays out from the balance: a bad address is explained, then a withdrawal is approved and another cancelled', async () => {
    // Credit 0.01 LTC the way a payer would.
    const funding = await client.createPayment({ amount: '0.01', asset: { short: 'LTC', network: 'litecoin' }, invoice: 'e2e-funding' });
    const sent = await fetch(`${server.url}/v2/dev/transactions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ address: funding.addressTo, amount: '0.01', asset: { short: 'LTC', network: 'litecoin' }, confirmations: 3 }),
    });
    assert.equal(sent.status, 200);

    const { page, problems } = await openPage();
    await page.goto(`${server.url}/demo/orders`);
    await page.select('#payout-asset', 'LTC:litecoin');
    await page.type('#payout-amount', '0.004');
    await page.type('#payout-address', 'not-a-litecoin-address');
    const [refused] = await Promise.all([page.waitForNavigation(), page.click('.payout-form button[type="submit"]')]);
    assert.equal(refused?.status(), 422);
    assert.match(await textOf(page, '.form-error'), /Fix these fields and try again: To address is not a valid litecoin address/);
    assert.equal(await page.$eval('#payout-address', (el) => el.getAttribute('aria-invalid')), 'true');
    assert.equal(await page.$eval('#payout-amount', (el) => el.getAttribute('value')), '0.004', 'what the owner typed is kept');
    await expectAccessible(page, 'a refused payout');
    problems.length = 0; // the browser logs the 422 document itself as a failed resource

    // bech32 of twenty 0x5a bytes: a valid P2WPKH litecoin address nobody holds.
    const litecoinAddress = 'ltc1qtfd95kj6tfd95kj6tfd95kj6tfd95kj6v3vqyj';
    await page.$eval('#payout-address', (el) => el.setAttribute('value', ''));
    await page.click('#payout-address', { count: 3 });
    await page.type('#payout-address', litecoinAddress);
    await Promise.all([page.waitForNavigation(), page.click('.payout-form button[type="submit"]')]);
    assert.match(await textOf(page, '.orders-page .notice'), /^Withdrawal PAYOUT-[0-9A-F]{8} is now OPEN\.$/);
    const opened = (await client.listWithdrawals({ statuses: ['OPEN'], limit: 1 })).data[0]!;
    assert.equal(opened.amount, '0.00400000');
    assert.equal(opened.addressTo, litecoinAddress);
    const ltc = (await client.getBalance()).find((row) => row.asset.short === 'LTC')!;
    assert.deepEqual({ available: ltc.available, reserved: ltc.reserved }, { available: '0.00600000', reserved: '0.00400000' });

    await Promise.all([page.waitForNavigation(), page.click('tr.changed button.primary')]);
    assert.equal(await textOf(page, '.orders-page .notice'), `Withdrawal ${opened.invoice} is now APPROVED.`);
    assert.equal((await client.getWithdrawal(opened.id)).status, 'APPROVED');

    await page.select('#payout-asset', 'LTC:litecoin');
    await page.type('#payout-amount', '0.001');
    await page.type('#payout-address', litecoinAddress);
    await Promise.all([page.waitForNavigation(), page.click('.payout-form button[type="submit"]')]);
    const second = (await client.listWithdrawals({ statuses: ['OPEN'], limit: 1 })).data[0]!;
    await Promise.all([page.waitForNavigation(), page.click('tr.changed button:not(.primary)')]);
    assert.equal(await textOf(page, '.orders-page .notice'), `Withdrawal ${second.invoice} is now CANCELLED.`);
    assert.equal((await client.getWithdrawal(second.id)).status, 'CANCELLED');
    await expectAccessible(page, 'the orders page with withdrawals');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the hosted page sends the payer back to the order', async () => {
    const { page, problems } = await openPage();
    const paymentId = await buyMug(page, 'XRP:ripple');
    const payment = await client.getPayment(paymentId);
    assert.equal(payment.checkoutUrl, `${server.url}/demo/return?invoice=${payment.invoice}`);
    await page.goto(payment.checkoutUrl!);
    assert.equal(page.url(), `${server.url}/demo/orders/${paymentId}`);
    assert.match(await textOf(page, 'h1'), new RegExp(`Order ${payment.invoice}`));
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('the demo store over HTTP', () => {
  test('serves its pages with a CSP, no inline script, and never the merchant keys', async () => {
    const paymentId = (await client.listPayments({ limit: 1 })).data[0]!.id;
    for (const pagePath of ['/demo', '/demo/orders', `/demo/orders/${paymentId}`]) {
      const response = await fetch(server.url + pagePath);
      assert.equal(response.status, 200, pagePath);
      const csp = response.headers.get('Content-Security-Policy') ?? '';
      assert.match(csp, new RegExp(`script-src 'self' ${server.url}(;|$)`), pagePath);
      assert.match(csp, /default-src 'none'/);
      const body = await response.text();
      assert.doesNotMatch(body, /<script(?![^>]*\bsrc=)[^>]*>/, `${pagePath} has an inline script`);
      assert.doesNotMatch(body, /\son[a-z]+=/i, `${pagePath} has an inline event handler`);
      assert.ok(!body.includes(merchant.apiKey) && !body.includes(merchant.secretKey), `${pagePath} leaks a key`);
    }
  });

  test('escapes what the API returns', async () => {
    const hostile = '<img src=x onerror=alert(1)>';
    await client.createPayment({ amount: '1', asset: { short: 'USDT', network: 'tron' }, invoice: hostile });
    const body = await (await fetch(`${server.url}/demo/orders`)).text();
    assert.ok(body.includes('&lt;img src=x onerror=alert(1)&gt;'));
    assert.ok(!body.includes(hostile));
  });

  test('refuses a bad product or coin with a page that says so, and a cross-site post with 403', async () => {
    const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/demo/orders`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form).toString(),
        redirect: 'manual',
      });
    const noProduct = await post({ product: 'NOPE', asset: 'BTC:bitcoin' });
    assert.equal(noProduct.status, 400);
    assert.match(await noProduct.text(), /<h1 id="error-title">Choose a product<\/h1>/);
    const noAsset = await post({ product: 'MUG', asset: 'DOGE:dogecoin' });
    assert.equal(noAsset.status, 400);
    assert.match(await noAsset.text(), /Choose how to pay/);
    const crossSite = await post({ product: 'MUG', asset: 'BTC:bitcoin' }, { 'Sec-Fetch-Site': 'cross-site' });
    assert.equal(crossSite.status, 403);
    const placed = await post({ product: 'MUG', asset: 'BTC:bitcoin' });
    assert.equal(placed.status, 303);
    assert.match(placed.headers.get('Location') ?? '', new RegExp(`^/demo/orders/${UUID}$`));
  });

  test('answers 404 pages for an unknown order and an unknown page, and 409 for simulating a paid order', async () => {
    const unknown = await fetch(`${server.url}/demo/orders/0b7f0a57-5c4e-4d9b-8a52-4b2c0f1e9d33`);
    assert.equal(unknown.status, 404);
    assert.match(await unknown.text(), /Order not found/);
    const nothing = await fetch(`${server.url}/demo/no-such-page`);
    assert.equal(nothing.status, 404);
    assert.match(await nothing.text(), /Page not found/);
    const notAnOrder = await client.createPayment({ amount: '1', asset: { short: 'BTC', network: 'bitcoin' }, invoice: 'not-from-the-store' });
    assert.equal((await fetch(`${server.url}/demo/orders/${notAnOrder.id}`)).status, 404);

    const unknownPayout = await fetch(`${server.url}/demo/withdrawals/0b7f0a57-5c4e-4d9b-8a52-4b2c0f1e9d33/approve`, { method: 'POST' });
    assert.equal(unknownPayout.status, 404);
    assert.match(await unknownPayout.text(), /Withdrawal not found/);
    assert.equal((await fetch(`${server.url}/demo/withdrawals/0b7f0a57-5c4e-4d9b-8a52-4b2c0f1e9d33/steal`, { method: 'POST' })).status, 404);
    const crossSitePayout = await fetch(`${server.url}/demo/withdrawals`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'cross-site' },
      body: 'asset=BTC%3Abitcoin&amount=0.0001&addressTo=bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
    });
    assert.equal(crossSitePayout.status, 403);

    let paid: Payment | undefined;
    for await (const payment of client.payments({ statuses: ['COMPLETE'] })) {
      if (payment.invoice?.startsWith('DEMO-')) {
        paid = payment;
        break;
      }
    }
    assert.ok(paid, 'an earlier test paid an order');
    const again = await fetch(`${server.url}/demo/orders/${paid.id}/simulate`, { method: 'POST', headers: { Accept: 'application/json' } });
    assert.equal(again.status, 409);
    assert.deepEqual(await again.json(), {
      error: { title: 'Cannot simulate this payment', message: 'The payment is COMPLETE; only an OPEN payment can be paid.' },
    });
  });
});

describe('the demo store without the simulator', () => {
  test('offers no "Simulate payment" and no payouts, and refuses both', async () => {
    // Without the simulator only networks on a node are served: ethereum on a real (anvil) node here.
    const node = await startAnvil();
    const quiet = await startServerProcess({ SIMULATOR: 'off', ETHEREUM_RPC_URL: node.url, ETHEREUM_CHAIN_ID: '31337' }).catch(async (err) => {
      await node.stop();
      throw err;
    });
    try {
      const placed = await fetch(`${quiet.url}/demo/orders`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'product=TEE&asset=ETH%3Aethereum',
        redirect: 'manual',
      });
      assert.equal(placed.status, 303);
      const orderPath = placed.headers.get('Location')!;
      const page = await (await fetch(quiet.url + orderPath)).text();
      assert.match(page, /Pay on the hosted page/);
      assert.doesNotMatch(page, /Simulate payment/);
      const simulate = await fetch(`${quiet.url}${orderPath}/simulate`, { method: 'POST', headers: { Accept: 'application/json' } });
      assert.equal(simulate.status, 404);
      const orders = await (await fetch(`${quiet.url}/demo/orders`)).text();
      assert.match(orders, /pays out only on simulated networks/);
      assert.doesNotMatch(orders, /Create withdrawal/);
      const payout = await fetch(`${quiet.url}/demo/withdrawals`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'asset=ETH%3Aethereum&amount=0.1&addressTo=0x52908400098527886E0F7030069857D2E4169EE7',
      });
      assert.equal(payout.status, 404);
      assert.match(await payout.text(), /No payouts here/);
    } finally {
      await quiet.stop();
      await node.stop();
      fs.rmSync(quiet.dataDir, { recursive: true, force: true });
    }
  });
});
