/**
 * The merchant dashboard in headless Chromium against the real server: sign-in by keyboard, a wrong
 * password, every page checked by axe in light and dark at desktop width and at 320 px, a
 * keyboard-only approve, a payment and the list following a change live, withdrawals, refunds and
 * the balance following changes made through the API, no CSP violation, a
 * viewer with no controls (disabled settings that look it), the lists of withdrawals and refunds by
 * pages, Back to the payments list as it was left, a payment's refund facts, exception badges in the
 * list at 320 px, a rename shown in the header, and "Page not found".
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { launchBrowser } from '../helpers/browser.ts';
import { createUser } from '../helpers/dashboard-client.ts';
import { rateEnv, type SourceServer, startSourceServer } from '../helpers/rate-source-servers.ts';
import { merchantApi, postJson, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';

const AXE_SOURCE = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const BTC = { short: 'BTC', network: 'bitcoin' };
const PAGES = ['payments', 'refunds', 'withdrawals', 'balance', 'webhooks', 'keys', 'settings'];

let server: TestServer;
let sources: SourceServer[];
let browser: Browser;
let shop: TestMerchant;
let owner: { email: string; password: string };
let viewer: { email: string; password: string };

before(async () => {
  assert.ok(fs.readdirSync('dist/dashboard').some((n) => n.endsWith('.js')), 'run npm run build first');
  // Loopback rate sources, for payments priced in a fiat currency.
  sources = [await startSourceServer('coinbase', { 'BTC/USD': '50000' }), await startSourceServer('kraken', { 'BTC/USD': '50000' })];
  server = await startTestServer({ env: rateEnv(sources) });
  shop = await server.createMerchant('Browser Shop');
  owner = { email: 'owner@browser.example', password: (await createUser(server, shop.merchant.id, 'owner@browser.example', 'owner')).password };
  viewer = { email: 'viewer@browser.example', password: (await createUser(server, shop.merchant.id, 'viewer@browser.example', 'viewer')).password };
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
  for (const source of sources ?? []) await source.close();
});

async function expectAccessible(page: Page, state: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } })
      .then((result) => result.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`,
  )) as string[];
  assert.deepEqual(violations, [], `axe violations on ${state}`);
}

/** A page that records CSP violations from before load. */
async function newPage(): Promise<{ page: Page; violations: () => Promise<string[]> }> {
  // A context of its own: no cookie from another test's sign-in.
  const page = await (await browser.createBrowserContext()).newPage();
  await page.evaluateOnNewDocument(`
    globalThis.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => globalThis.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
  `);
  return { page, violations: async () => (await page.evaluate('globalThis.__violations')) as string[] };
}

/** Signs in with the keyboard alone: type, Tab, type, Enter. */
async function signIn(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.goto(`${server.url}/dashboard`);
  await page.waitForSelector('input[name="email"]');
  await page.focus('input[name="email"]');
  await page.keyboard.type(who.email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(who.password);
  await page.keyboard.press('Enter');
  await page.waitForSelector('payments-page h1');
}

/** Answers the confirmation dialog an action opened with its confirming button. */
async function confirmDialog(page: Page): Promise<void> {
  await page.waitForSelector('dialog[open] button[value="confirm"]');
  await page.click('dialog[open] button[value="confirm"]');
}

async function text(page: Page, selector: string): Promise<string> {
  return (await page.$eval(selector, (node) => node.textContent ?? '')).replace(/\s+/g, ' ').trim();
}

describe('the dashboard in Chromium', () => {
  test('a wrong password is said plainly and leaves the sign-in form', async () => {
    const { page } = await newPage();
    await page.goto(`${server.url}/dashboard/login`);
    await page.waitForSelector('input[name="email"]');
    await expectAccessible(page, 'sign-in');
    await page.type('input[name="email"]', owner.email);
    await page.type('input[name="password"]', 'wrong password');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[role="alert"]');
    assert.equal(await text(page, '[role="alert"]'), 'The e-mail or the password is wrong.');
    await page.browserContext().close();
  });

  test('signing in at another name of the server says where the dashboard must be opened', async () => {
    // PUBLIC_URL names 127.0.0.1; localhost is the same server but another origin, so every change is refused.
    const { page } = await newPage();
    await page.goto(`${server.url.replace('127.0.0.1', 'localhost')}/dashboard/login`);
    await page.waitForSelector('input[name="email"]');
    await page.type('input[name="email"]', owner.email);
    await page.type('input[name="password"]', owner.password);
    await page.keyboard.press('Enter');
    await page.waitForSelector('[role="alert"]');
    assert.equal(
      await text(page, '[role="alert"]'),
      `This change was refused: it came from a page at another address than this service's PUBLIC_URL. The dashboard must be opened at ${server.url}/dashboard; open it there and try again.`,
    );
    await page.browserContext().close();
  });

  test('every page passes axe in light and dark, at 1024 and 320 px, with no CSP violation', async () => {
    const api = merchantApi(server, shop);
    const payment = await api.post('/payment', { amount: '0.5', asset: BTC, invoice: 'axe-1' });
    await postJson(`${server.api}/dev/transactions`, { address: payment.body.addressTo, amount: '0.5', asset: BTC, confirmations: 0 });
    const { page, violations } = await newPage();
    await signIn(page, owner);
    for (const width of [1024, 320]) {
      await page.setViewport({ width, height: 800 });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
        for (const name of [...PAGES, `payments/${payment.body.id}`]) {
          await page.goto(`${server.url}/dashboard/${name}`);
          await page.waitForSelector('[data-page] h1');
          await page.waitForFunction(`!document.querySelector('[data-page] [role="status"]')?.textContent?.includes('Loading')`);
          await expectAccessible(page, `${name} (${scheme}, ${width} px)`);
          const overflow = (await page.evaluate('document.documentElement.scrollWidth')) as number;
          const widest = overflow <= width ? '' : await page.evaluate(`[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > ${width}).slice(0, 5).map((e) => e.localName + '.' + e.className).join(' ')`);
          assert.ok(overflow <= width, `${name} is ${overflow} px wide at ${width} px: ${widest}`);
        }
      }
    }
    assert.ok((await text(page, 'payment-page')).includes((await api.get(`/payment/${payment.body.id}`)).body.transactions[0].txnId), 'the transaction id in full');
    assert.deepEqual(await violations(), []);
    await page.browserContext().close();
  });

  test('the approve dialog names the destination tag on a network that routes by one', async () => {
    const api = merchantApi(server, shop);
    const XRP = { short: 'XRP', network: 'ripple' };
    const funding = await api.post('/payment', { amount: '100', asset: XRP });
    await postJson(`${server.api}/dev/transactions`, { address: funding.body.addressTo, destTag: funding.body.destTag ?? undefined, amount: '100', asset: XRP, confirmations: 50 });
    const created = await api.post('/withdrawal', { amount: '10', asset: XRP, addressTo: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', destTag: '12345', invoice: 'tagged-1' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const { page } = await newPage();
    await signIn(page, owner);
    await page.goto(`${server.url}/dashboard/withdrawals`);
    await page.waitForFunction(`[...document.querySelectorAll('withdrawals-page tbody tr')].some((row) => row.textContent.includes('tagged-1'))`);
    await page.$eval('withdrawals-page', (list) => [...list.querySelectorAll('tbody tr')].find((row) => row.textContent!.includes('tagged-1'))!.querySelector('button')!.click());
    await page.waitForSelector('dialog[open]');
    assert.match(await text(page, 'dialog[open]'), /AssetXRP on rippleTorHb9CJAWyB4rj91VRWn96DkukG4bwdtyThDestination tag12345 /);
    await page.keyboard.press('Escape');
    await page.waitForFunction(`!document.querySelector('dialog')`);
    await page.browserContext().close();
  });

  test('an owner approves a withdrawal with the keyboard alone', async () => {
    const api = merchantApi(server, shop);
    const funding = await api.post('/payment', { amount: '1', asset: BTC });
    await postJson(`${server.api}/dev/transactions`, { address: funding.body.addressTo, amount: '1', asset: BTC, confirmations: 6 });
    const created = await api.post('/withdrawal', { amount: '0.1', asset: BTC, addressTo: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', invoice: 'keyboard-1' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const { page } = await newPage();
    await signIn(page, owner);
    await page.goto(`${server.url}/dashboard/withdrawals`);
    await page.waitForSelector('withdrawals-page tbody button');
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate('document.activeElement?.textContent?.trim()')) === 'Approve keyboard-1') break;
    }
    assert.equal(await page.evaluate('document.activeElement?.textContent?.trim()'), 'Approve keyboard-1');
    // A confirmation first: a modal dialog naming what goes where, its focus on the safe choice.
    const asking = async () => {
      await page.keyboard.press('Enter');
      await page.waitForSelector('dialog[open]');
      assert.equal(await page.evaluate('document.activeElement?.textContent?.trim()'), "Don't approve");
    };
    await asking();
    assert.equal(await text(page, 'dialog[open]'), "Approve withdrawal keyboard-1? Amount0.10000000 BTCAssetBTC on bitcoinTobc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4 Approving sends these funds to this address. A payout cannot be taken back. Don't approve Approve and send");
    await expectAccessible(page, 'the approve dialog');
    await page.keyboard.press('Escape');
    await page.waitForFunction(`!document.querySelector('dialog')`);
    assert.equal(await page.evaluate('document.activeElement?.textContent?.trim()'), 'Approve keyboard-1', 'Escape gives the focus back');
    assert.equal((await api.get(`/withdrawal/${created.body.id}`)).body.status, 'OPEN', 'Escape approves nothing');
    await asking();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForFunction(`document.querySelector('withdrawals-page [role="status"]')?.textContent === 'Withdrawal keyboard-1 approved.'`);
    assert.equal((await api.get(`/withdrawal/${created.body.id}`)).body.status, 'APPROVED');
    await page.browserContext().close();
  });

  test('a refused form says why, field by field, not only which fields', async () => {
    const { page } = await newPage();
    await signIn(page, owner);
    await page.goto(`${server.url}/dashboard/withdrawals`);
    await page.waitForSelector('withdrawals-page select[name="asset"] option');
    await page.type('withdrawals-page input[name="amount"]', '0.00002001');
    await page.type('withdrawals-page input[name="addressTo"]', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
    await page.type('withdrawals-page input[name="invoice"]', 'too-small-1');
    await page.click('withdrawals-page button[type="submit"]');
    await page.waitForSelector('withdrawals-page [role="alert"]');
    assert.equal(
      await text(page, 'withdrawals-page [role="alert"]'),
      'The request has invalid fields: amount. amount must be at least the minimum withdrawal of 0.00002546 BTC (the network fee of 0.00002000 plus the smallest payout the network relays).',
    );
    await page.browserContext().close();
  });

  test('removing the endpoint whose deliveries are open closes them; an export range that ends first is said, staying in the app', async () => {
    const api = merchantApi(server, shop);
    const endpoint = await api.post('/webhooks', { url: 'http://127.0.0.1:9/removed-hook' });
    assert.equal(endpoint.status, 200);
    const { page } = await newPage();
    await signIn(page, owner);
    await page.goto(`${server.url}/dashboard/webhooks`);
    await page.waitForSelector('webhooks-page ul.cards li');
    const itemOf = async () => {
      for (const item of await page.$$('webhooks-page ul.cards li')) if (await item.evaluate((li) => li.textContent?.includes('/removed-hook'))) return item;
      throw new Error('the endpoint is not listed');
    };
    await (await (await itemOf()).$$('button'))[0]!.click();
    await page.waitForFunction(`[...document.querySelectorAll('webhooks-page h2')].some((h) => h.textContent.includes('removed-hook'))`);
    await (await (await itemOf()).$$('button'))[1]!.click();
    await confirmDialog(page);
    await page.waitForFunction(`document.querySelector('webhooks-page [role="status"]')?.textContent === 'Endpoint removed.'`);
    // The page refreshes after saying so: the log of the gone endpoint closes, and no error follows.
    await page.waitForFunction(`![...document.querySelectorAll('webhooks-page h2')].some((h) => h.textContent.includes('removed-hook'))`, { timeout: 5_000 });
    assert.equal(await page.$('webhooks-page [role="alert"]'), null, 'no error beside the success');

    await page.goto(`${server.url}/dashboard/payments`);
    await page.waitForSelector('payments-page form.export input[name="from"]');
    await page.$eval('payments-page form.export input[name="from"]', (input) => ((input as unknown as { value: string }).value = '2026-12-31'));
    await page.$eval('payments-page form.export input[name="to"]', (input) => ((input as unknown as { value: string }).value = '2026-01-01'));
    await page.click('payments-page form.export button[type="submit"]');
    await page.waitForSelector('payments-page [role="alert"]');
    assert.equal(await text(page, 'payments-page [role="alert"]'), 'The export range ends before it starts: pick a "To" date on or after the "From" date.');
    assert.equal(new URL(page.url()).pathname, '/dashboard/payments');
    await page.browserContext().close();
  });

  test('redelivering says what the endpoint answered: a refusal is not "sent"', async () => {
    let status = 500;
    const hook = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(status).end()));
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    try {
      const api = merchantApi(server, shop);
      const endpoint = (await api.post('/webhooks', { url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/refusing-hook` })).body;
      const payment = await api.post('/payment', { amount: '20', asset: { short: 'XRP', network: 'ripple' }, invoice: 'redeliver-1' });
      await postJson(`${server.api}/dev/transactions`, { address: payment.body.addressTo, destTag: payment.body.destTag, amount: '5', asset: { short: 'XRP', network: 'ripple' }, confirmations: 0 });
      await server.services.dispatcher.run();
      assert.equal((await api.get(`/webhooks/${endpoint.id}/deliveries`)).body.data[0].statusCode, 500);
      const { page } = await newPage();
      await signIn(page, owner);
      await page.goto(`${server.url}/dashboard/webhooks`);
      await page.waitForSelector(`webhooks-page li[data-id="${endpoint.id}"] button`);
      await (await page.$$(`webhooks-page li[data-id="${endpoint.id}"] button`))[0]!.click();
      await page.waitForSelector('webhooks-page tbody button');
      await page.click('webhooks-page tbody button');
      await page.waitForFunction(`document.querySelector('webhooks-page [role="status"]')?.textContent === 'Sent again, but the endpoint answered 500: it has not taken the event.'`);
      status = 204;
      await page.click('webhooks-page tbody button');
      await page.waitForFunction(`document.querySelector('webhooks-page [role="status"]')?.textContent === 'Sent again: the endpoint answered 204.'`);
      await page.browserContext().close();
    } finally {
      await new Promise<void>((resolve) => hook.close(() => resolve()));
    }
  });

  test('the export takes the browser\'s local days, by default the last thirty, and names the file by the dates chosen', async () => {
    // Thirteen hours east of UTC in November (summer time): a local day is not the UTC day of its date.
    const zone = 'Pacific/Auckland';
    const { page } = await newPage();
    await page.emulateTimezone(zone);
    await signIn(page, owner);
    await page.waitForSelector('payments-page form.export input[name="from"]');
    const value = (name: string) => page.$eval(`payments-page form.export input[name="${name}"]`, (input) => (input as unknown as { value: string }).value);
    const localDay = (time: number) => new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(time);
    assert.equal(await value('to'), localDay(Date.now()));
    const [year, month, day] = (await value('to')).split('-').map(Number) as [number, number, number];
    assert.equal(await value('from'), new Date(Date.UTC(year, month - 1, day - 30)).toISOString().slice(0, 10));
    for (const [name, date] of [['from', '2026-11-01'], ['to', '2026-11-30']]) {
      await page.$eval(`payments-page form.export input[name="${name}"]`, (input, v) => ((input as unknown as { value: string }).value = v), date!);
    }
    const answer = page.waitForResponse((response) => response.url().includes('/reports/payments.csv'));
    await page.click('payments-page form.export button[type="submit"]');
    const response = await answer;
    const asked = new URL(response.url()).searchParams;
    assert.deepEqual([asked.get('from'), asked.get('to')], ['2026-11-01T00:00:00+13:00', '2026-12-01T00:00:00+13:00']);
    assert.deepEqual([response.status(), response.headers()['content-disposition']], [200, 'attachment; filename="payments-2026-11-01-2026-11-30.csv"']);
    await page.browserContext().close();
  });

  test('an XRP payment is refunded to a known address with its destination tag', async () => {
    const api = merchantApi(server, shop);
    const XRP = { short: 'XRP', network: 'ripple' };
    const payment = await api.post('/payment', { amount: '20', asset: XRP, invoice: 'xrp-refund-1' });
    await postJson(`${server.api}/dev/transactions`, { address: payment.body.addressTo, destTag: payment.body.destTag, amount: '20', asset: XRP, confirmations: 6 });
    const { page } = await newPage();
    await signIn(page, owner);
    await page.goto(`${server.url}/dashboard/payments/${payment.body.id}`);
    await page.waitForSelector('refunds-page input[name="destTag"]');
    await page.type('refunds-page input[name="amount"]', '10');
    await page.type('refunds-page input[name="addressTo"]', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh');
    await page.type('refunds-page input[name="destTag"]', '424242');
    await page.click('refunds-page button[type="submit"]');
    await page.waitForFunction(`document.querySelector('refunds-page [role="status"]')?.textContent === 'Refund created.'`);
    const refunds = (await api.get(`/refund?paymentIds=${payment.body.id}`)).body.data;
    assert.deepEqual(refunds.map((r: { addressTo: string; destTag: string; amount: string }) => [r.addressTo, r.destTag, r.amount]), [['rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', '424242', '10.000000']]);
    // Its payout is out at once: APPROVED with a transaction, which no cancel can take back, so no Cancel is offered.
    assert.equal(refunds[0].status, 'APPROVED');
    assert.notEqual(refunds[0].txnId, null);
    await page.waitForSelector(`refunds-page td[title="${refunds[0].id}"]`);
    assert.deepEqual(await page.$$eval('refunds-page tbody button', (buttons) => buttons.map((b) => b.textContent)), []);
    await page.browserContext().close();
  });

  test('a payment says what a refund decision needs: the exception, over and short, refundable, customer', async () => {
    const api = merchantApi(server, shop);
    const customer = { id: 7, name: 'Ada Lovelace', email: 'ada@payer.example' };
    const over = await api.post('/payment', { amount: '0.01', asset: BTC, invoice: 'over-1', customer, checkoutUrl: 'https://shop.example/orders/7' });
    await postJson(`${server.api}/dev/transactions`, { address: over.body.addressTo, amount: '0.015', asset: BTC, confirmations: 6 });
    const record = (await api.get(`/payment/${over.body.id}`)).body;
    assert.equal(record.exception, 'OVERPAID');
    const { page } = await newPage();
    await signIn(page, owner);
    await page.goto(`${server.url}/dashboard/payments/${over.body.id}`);
    await page.waitForSelector('#payment-exception');
    assert.equal(await text(page, '#payment-exception'), `Overpaid: ${record.overpaidAmount} BTC more than asked arrived. The order is paid; the payer may be owed the difference (refund it below).`);
    // As laid out (a term and its value on lines of their own), not textContent's run-together text.
    const factsText = async () => (await page.$eval('payment-page .facts', (dl) => (dl as unknown as { innerText: string }).innerText)).replace(/\s+/g, ' ');
    const facts = await factsText();
    assert.ok(facts.includes(`Overpaid by ${record.overpaidAmount} BTC`), facts);
    assert.equal(await text(page, '#payment-refundable'), `${record.refundableAmount} BTC`);
    assert.equal(await text(page, '#payment-customer'), 'Ada Lovelace · ada@payer.example · id 7');
    assert.equal(await page.$eval('payment-page .facts a[href="https://shop.example/orders/7"]', (a) => a.textContent), 'https://shop.example/orders/7');
    await expectAccessible(page, 'an overpaid payment');
    // Refunding all of it leaves nothing to refund: the form goes, and the page says so.
    await page.type('refunds-page input[name="amount"]', record.refundableAmount);
    await page.click('refunds-page button[type="submit"]');
    await page.waitForSelector('#nothing-to-refund');
    assert.equal(await text(page, '#nothing-to-refund'), 'Nothing left to refund.');
    assert.equal(await page.$('refunds-page form'), null);
    assert.equal(await text(page, '#payment-refundable'), `${(await api.get(`/payment/${over.body.id}`)).body.refundableAmount} BTC`);
    await expectAccessible(page, 'a payment refunded in full');

    // An expired payment that was short says what arrived and what was short, and asks nobody to pay it.
    const under = await api.post('/payment', { amount: '0.01', asset: BTC, invoice: 'under-1', timeout: 60 });
    await postJson(`${server.api}/dev/transactions`, { address: under.body.addressTo, amount: '0.004', asset: BTC, confirmations: 6 });
    server.clock.advance(61_000);
    const expired = (await api.get(`/payment/${under.body.id}`)).body;
    assert.equal(expired.exception, 'UNDERPAID');
    await page.goto(`${server.url}/dashboard/payments/${under.body.id}`);
    await page.waitForSelector('#payment-exception');
    const shown = await factsText();
    assert.ok(shown.includes(`Received ${expired.totalReceivedAmount} BTC`) && shown.includes(`Short at expiry ${expired.amountDue} BTC`), shown);
    assert.ok(!shown.includes('Still due'), shown);
    assert.equal(await text(page, '#payment-exception'), 'Underpaid: the payment expired before enough arrived, so the order is not paid. Refund what arrived, or settle with the payer another way.');
    assert.ok(await page.$('refunds-page form'), 'what arrived can be refunded');
    assert.equal(await page.$('#payment-customer'), null, 'no customer row without a customer');
    assert.equal(await page.$('#payment-price'), null, 'no price row for a payment priced in the asset');

    // A payment priced in fiat shows its price and the rate locked for it, here and in the list.
    const priced = await api.post('/payment', { price: { amount: '25.00', currency: 'USD' }, asset: BTC, invoice: 'priced-1' });
    assert.equal(priced.status, 200, JSON.stringify(priced.body));
    await page.goto(`${server.url}/dashboard/payments/${priced.body.id}`);
    await page.waitForSelector('#payment-price');
    assert.equal(await text(page, '#payment-price'), '25.00 USD');
    assert.match(await text(page, '#payment-rate'), /^1 BTC = 50000 USD, locked .+ \(coinbase, kraken\)$/);
    await expectAccessible(page, 'a payment priced in fiat');
    await page.goto(`${server.url}/dashboard/payments`);
    await page.waitForSelector(`a[href="/dashboard/payments/${priced.body.id}"]`);
    const row = await page.$eval(`tr:has(a[href="/dashboard/payments/${priced.body.id}"]) .amount`, (cell) => (cell as unknown as { innerText: string }).innerText.replace(/\s+/g, ' '));
    assert.equal(row, `${priced.body.amount} BTC 25.00 USD`);
    await page.browserContext().close();
  });

  test('the payments list marks overpaid, underpaid and late payments, and fits 320 px without scrolling', async () => {
    const api = merchantApi(server, shop);
    // The server's clock stands still between the test's moves: payments made at one instant list
    // in id order, so a millisecond first makes this test's payments the newest, on page 1.
    server.clock.advance(1);
    const pay = (address: string, amount: string) => postJson(`${server.api}/dev/transactions`, { address, amount, asset: BTC, confirmations: 6 });
    const over = await api.post('/payment', { amount: '0.01', asset: BTC, invoice: 'badge-over' });
    await pay(over.body.addressTo, '0.02');
    const under = await api.post('/payment', { amount: '0.01', asset: BTC, invoice: 'badge-under', timeout: 60 });
    await pay(under.body.addressTo, '0.004');
    const late = await api.post('/payment', { amount: '0.01', asset: BTC, invoice: 'badge-late', timeout: 60 });
    const exact = await api.post('/payment', { amount: '0.01', asset: BTC, invoice: 'badge-none' });
    await pay(exact.body.addressTo, '0.01');
    server.clock.advance(61_000);
    await pay(late.body.addressTo, '0.01');
    const { page } = await newPage();
    await signIn(page, owner);
    for (const width of [320, 1280]) {
      await page.setViewport({ width, height: 800 });
      await page.goto(`${server.url}/dashboard/payments`);
      await page.waitForFunction(`document.querySelector('payments-page [role="status"]')?.textContent?.includes('; page 1 of')`);
      const rows = await page.$$eval('payments-page tbody tr', (trs) => trs.map((tr) => (tr.textContent ?? '').replace(/\s+/g, ' ').trim()));
      const row = (id: string) => rows.find((r) => r.includes(id.slice(0, 8))) ?? '';
      assert.match(row(over.body.id), /COMPLETE OVERPAID/);
      assert.match(row(under.body.id), /EXPIRED UNDERPAID/);
      assert.match(row(late.body.id), /EXPIRED PAID LATE/);
      assert.doesNotMatch(row(exact.body.id), /PAID|OVER|UNDER/, 'no badge on an exactly paid payment');
      const [scrolled, shown] = (await page.$eval('payments-page .table', (region) => [region.scrollWidth, region.clientWidth])) as [number, number];
      assert.ok(scrolled <= shown, `the list is ${scrolled} px wide in ${shown} px at ${width} px`);
      await expectAccessible(page, `payments with exceptions at ${width} px`);
    }
    await page.browserContext().close();
  });

  test('a rename in Settings shows in the header at once', async () => {
    const { page } = await newPage();
    await signIn(page, owner);
    assert.equal(await text(page, 'header .shop'), 'Browser Shop');
    const rename = async (name: string) => {
      await page.goto(`${server.url}/dashboard/settings`);
      await page.waitForSelector('settings-page input[name="name"]');
      await page.$eval('settings-page input[name="name"]', (input) => ((input as unknown as { value: string }).value = ''));
      await page.type('settings-page input[name="name"]', name);
      await page.click('settings-page button[type="submit"]');
      await page.waitForFunction(`document.querySelector('settings-page [role="status"]')?.textContent === 'Settings saved.'`);
    };
    await rename('Renamed Browser Shop');
    assert.equal(await text(page, 'header .shop'), 'Renamed Browser Shop');
    await rename('Browser Shop');
    assert.equal(await text(page, 'header .shop'), 'Browser Shop');
    await page.browserContext().close();
  });

  test('a viewer\'s settings fields look disabled, their text still readable', async () => {
    const { page } = await newPage();
    await signIn(page, viewer);
    await page.goto(`${server.url}/dashboard/settings`);
    await page.waitForSelector('settings-page input[name="name"]');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
      // Computed colours as sRGB bytes (a canvas reads any CSS colour syntax), then WCAG's contrast ratio.
      const seen = (await page.evaluate(`(() => {
        const canvas = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
        const rgb = (css) => { canvas.clearRect(0, 0, 1, 1); canvas.fillStyle = css; canvas.fillRect(0, 0, 1, 1); return [...canvas.getImageData(0, 0, 1, 1).data.slice(0, 3)]; };
        const lum = ([r, g, b]) => [r, g, b].map((v) => v / 255).map((v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)).reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
        const input = document.querySelector('settings-page input[name="name"]');
        const style = getComputedStyle(input);
        const [fg, bg, page] = [rgb(style.color), rgb(style.backgroundColor), rgb(getComputedStyle(document.body).backgroundColor)];
        const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
        return { disabled: input.matches(':disabled'), background: bg.join(), page: page.join(), border: style.borderTopStyle, contrast: (hi + 0.05) / (lo + 0.05) };
      })()`)) as { disabled: boolean; background: string; page: string; border: string; contrast: number };
      assert.equal(seen.disabled, true);
      assert.notEqual(seen.background, seen.page, `${scheme}: a disabled field is filled, unlike an editable one`);
      assert.equal(seen.border, 'dashed', scheme);
      assert.ok(seen.contrast >= 4.5, `${scheme}: contrast ${seen.contrast.toFixed(2)}`);
      await expectAccessible(page, `a viewer's settings (${scheme})`);
    }
    assert.equal(await text(page, 'settings-page fieldset p'), 'Only an owner can change these.');
    await page.browserContext().close();
  });

  test('an address with no page says "Page not found" in the app, with the way to the payments list', async () => {
    const { page } = await newPage();
    await signIn(page, owner);
    const shellTitle = (await page.evaluate('document.title')) as string;
    for (const address of ['/dashboard/nosuchpage', `/dashboard/payments/${'0'.repeat(8)}/refunds`]) {
      // The server says so too (a link checker, a bookmark gone stale), and still serves the app.
      assert.equal((await page.goto(`${server.url}${address}?page=2`))?.status(), 404, address);
      await page.waitForSelector('not-found-page h1');
      assert.equal(await text(page, 'not-found-page h1'), 'Page not found');
      assert.equal(await text(page, 'not-found-page'), `Page not found The dashboard has no page at ${address}. Go to the payments list`);
      assert.equal(await page.evaluate('document.title'), `Page not found · ${shellTitle}`);
      assert.equal(await page.$('payments-page'), null, 'no payments list under the wrong address');
      assert.ok(await page.$('header nav a[href="/dashboard/payments"]'), 'the app shell stays');
      await expectAccessible(page, `not found: ${address}`);
    }
    await page.click('not-found-page a[href="/dashboard/payments"]');
    await page.waitForSelector('payments-page h1');
    assert.equal(await page.evaluate('location.pathname + location.search'), '/dashboard/payments');
    for (const address of ['/dashboard', '/dashboard/', '/dashboard/login', ...PAGES.map((name) => `/dashboard/${name}`), `/dashboard/payments/${'0'.repeat(8)}`]) {
      assert.equal((await fetch(`${server.url}${address}`)).status, 200, address);
    }
    assert.equal(await page.evaluate('document.title'), shellTitle);
    await page.browserContext().close();
  });

  test('opening a payment from the list with the keyboard leaves the focus on its heading', async () => {
    const api = merchantApi(server, shop);
    // The server's clock stands still between the test's moves: payments made at one instant list
    // in id order, so a millisecond first makes this test's payments the newest, on page 1.
    server.clock.advance(1);
    const payment = await api.post('/payment', { amount: '0.3', asset: BTC, invoice: 'focus-1' });
    const { page } = await newPage();
    await signIn(page, owner);
    const link = `payments-page a[href="/dashboard/payments/${payment.body.id}"]`;
    await page.waitForSelector(link);
    await page.focus(link);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#payment-status');
    assert.equal(await page.evaluate(`document.activeElement?.tagName + ' ' + document.activeElement?.textContent?.replace(/\\s+/g, ' ').trim()`), `H1 Payment ${payment.body.id}`);
    await page.browserContext().close();
  });

  test('the focus stays in place after a row action, a live refresh, paging, Deliveries and Remove', async () => {
    const api = merchantApi(server, shop);
    const funding = await api.post('/payment', { amount: '1', asset: BTC, invoice: 'focus-funding' });
    await postJson(`${server.api}/dev/transactions`, { address: funding.body.addressTo, amount: '1', asset: BTC, confirmations: 6 });
    const withdrawal = await api.post('/withdrawal', { amount: '0.01', asset: BTC, addressTo: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', invoice: 'focus-w1' });
    assert.equal(withdrawal.status, 200, JSON.stringify(withdrawal.body));
    const { page } = await newPage();
    await signIn(page, owner);
    const focused = `(() => { const e = document.activeElement; return e.localName + (e.closest('tr')?.dataset.id ? ' of ' + e.closest('tr').dataset.id : '') + ' ' + e.textContent.replace(/\\s+/g, ' ').trim(); })()`;

    // Cancel with the keyboard: the button goes, the focus moves to the row's status cell and stays
    // there when the page reads the list again by itself.
    await page.goto(`${server.url}/dashboard/withdrawals`);
    const cancel = `withdrawals-page tr[data-id="${withdrawal.body.id}"] button:last-of-type`;
    await page.waitForSelector(cancel);
    await page.focus(cancel);
    await page.keyboard.press('Enter');
    await confirmDialog(page);
    await page.waitForFunction(`document.querySelector('withdrawals-page [role="status"]')?.textContent === 'Withdrawal focus-w1 cancelled.'`);
    await page.waitForFunction(`${focused} !== 'button of ${withdrawal.body.id} Cancel focus-w1'`);
    assert.equal(await page.evaluate(focused), `td of ${withdrawal.body.id} CANCELLED`);
    await page.waitForResponse((response) => response.url().includes('/dashboard/api/withdrawals?') && response.request().headers()['x-live-read'] === '1', { timeout: 15_000 });
    await page.evaluate('new Promise((resolve) => setTimeout(resolve, 100))');
    assert.equal(await page.evaluate(focused), `td of ${withdrawal.body.id} CANCELLED`, 'after a live refresh');

    // Next page of payments: the focus goes to the list of the new page.
    for (let i = 0; i < 21; i++) assert.equal((await api.post('/payment', { amount: '0.01', asset: BTC, invoice: `focus-page-${i}` })).status, 200);
    await page.goto(`${server.url}/dashboard/payments`);
    await page.waitForFunction(`/page 1 of [2-9]/.test(document.querySelector('payments-page [role="status"]')?.textContent)`);
    await page.focus('payments-page .pager button:last-child');
    await page.keyboard.press('Enter');
    await page.waitForFunction(`document.querySelector('payments-page [role="status"]')?.textContent.includes('page 2 of')`);
    await page.waitForFunction(`document.activeElement?.getAttribute('aria-label') === 'Payments'`);

    // Deliveries focuses their heading; Remove focuses the next endpoint's heading, then the list's.
    const first = await api.post('/webhooks', { url: 'http://127.0.0.1:9/focus-first' });
    const second = await api.post('/webhooks', { url: 'http://127.0.0.1:9/focus-second' });
    await page.goto(`${server.url}/dashboard/webhooks`);
    const buttonsOf = (id: string) => `webhooks-page li[data-id="${id}"] button`;
    await page.waitForSelector(buttonsOf(first.body.id));
    const ids = await page.$$eval('webhooks-page li[data-id]', (items) => items.map((li) => li.getAttribute('data-id')));
    const [upper, lower] = ids.indexOf(first.body.id) < ids.indexOf(second.body.id) ? [first.body, second.body] : [second.body, first.body];
    await page.focus(`${buttonsOf(upper.id)}:first-of-type`);
    await page.keyboard.press('Enter');
    await page.waitForFunction(`document.activeElement?.id === 'deliveries-heading'`);
    assert.equal(await page.evaluate(focused), `h2 Deliveries to ${upper.url}`);
    await page.focus(`${buttonsOf(upper.id)}:last-of-type`);
    await page.keyboard.press('Enter');
    await confirmDialog(page);
    await page.waitForFunction(`document.querySelector('webhooks-page [role="status"]')?.textContent === 'Endpoint removed.'`);
    await page.waitForFunction(`!document.querySelector('webhooks-page li[data-id="${upper.id}"]')`);
    await page.evaluate('new Promise((resolve) => setTimeout(resolve, 100))');
    assert.equal(await page.evaluate(focused), `h3 ${lower.url}`);
    await page.browserContext().close();
  });

  test("a server's error goes once the form is edited or submitted again, also when the browser stops that submit", async () => {
    const { page } = await newPage();
    await signIn(page, owner);
    await page.goto(`${server.url}/dashboard/settings`);
    await page.waitForSelector('settings-page input[name="siteUrl"]');
    const refused = async () => {
      await page.$eval('settings-page input[name="siteUrl"]', (input) => ((input as unknown as { value: string }).value = 'not a site'));
      await page.click('settings-page button[type="submit"]');
      await page.waitForSelector('settings-page [role="alert"]');
    };
    await refused();
    // The next submit is stopped by the browser (a required name left empty, set with no input event).
    await page.$eval('settings-page input[name="name"]', (input) => ((input as unknown as { value: string }).value = ''));
    await page.click('settings-page button[type="submit"]');
    assert.equal(await page.$('settings-page [role="alert"]'), null, 'no error about a submit the browser stopped');
    await page.$eval('settings-page input[name="name"]', (input) => ((input as unknown as { value: string }).value = 'Browser Shop'));
    await refused();
    await page.type('settings-page input[name="siteUrl"]', 'x');
    assert.equal(await page.$('settings-page [role="alert"]'), null, 'no error once the form is edited');
    await page.browserContext().close();
  });

  test('withdrawal and refund rows stay a few lines tall at 320 and 375 px; short ids never wrap', async () => {
    const api = merchantApi(server, shop);
    const funding = await api.post('/payment', { amount: '1', asset: BTC, invoice: 'narrow-funding' });
    await postJson(`${server.api}/dev/transactions`, { address: funding.body.addressTo, amount: '1', asset: BTC, confirmations: 6 });
    const address = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
    const withdrawal = await api.post('/withdrawal', { amount: '0.01', asset: BTC, addressTo: address, invoice: 'narrow-1' });
    assert.equal(withdrawal.status, 200);
    const refund = await api.post(`/payment/${funding.body.id}/refund`, { amount: '0.01', addressTo: address, reason: 'narrow' });
    assert.equal(refund.status, 200);
    // The refund's payout goes out at once on the simulated network: its row then names the transaction too.
    let txnId: string | null = null;
    for (let tries = 0; !txnId && tries < 100; tries++) {
      txnId = (await api.get(`/refund/${refund.body.id}`)).body.txnId;
      if (!txnId) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(txnId, 'the refund was paid out');
    const { page } = await newPage();
    await signIn(page, owner);
    // A withdrawal's row says the network fee taken from its amount; a paid refund's, its transaction.
    await page.goto(`${server.url}/dashboard/withdrawals`);
    await page.waitForSelector(`withdrawals-page tr[data-id="${withdrawal.body.id}"]`);
    assert.equal(await page.$eval(`withdrawals-page tr[data-id="${withdrawal.body.id}"] td.amount`, (cell) => (cell as unknown as { innerText: string }).innerText), `${withdrawal.body.amount} BTC\nfee ${withdrawal.body.fee} BTC`);
    await page.goto(`${server.url}/dashboard/refunds`);
    await page.waitForSelector(`refunds-page tbody [title="${txnId}"]`);
    for (const width of [320, 375, 1280]) {
      await page.setViewport({ width, height: 800 });
      for (const name of ['withdrawals', 'refunds']) {
        await page.goto(`${server.url}/dashboard/${name}`);
        await page.waitForSelector(`${name}-page tbody tr`);
        const tallest = (await page.$$eval(`${name}-page tbody tr`, (rows) => Math.max(...rows.map((row) => row.getBoundingClientRect().height)))) as number;
        assert.ok(tallest <= 120, `${name} rows up to ${tallest} px tall at ${width} px`);
        // The whole address is still there: in the title and for screen readers.
        assert.ok(await page.$(`${name}-page tbody [title="${address}"]`), `${name}: the whole address`);
        assert.equal(await page.evaluate('document.documentElement.scrollWidth'), width, `${name} at ${width} px`);
      }
      // Each short id is one line.
      const lines = (await page.evaluate(`[...document.querySelectorAll('refunds-page tbody td.mono')].map((cell) => {
        const range = document.createRange();
        range.selectNodeContents(cell);
        return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
      })`)) as number[];
      assert.ok(lines.length > 0 && lines.every((n) => n === 1), `refund ids on ${lines.join(', ')} lines at ${width} px`);
    }
    await page.browserContext().close();
  });

  test('a withdrawal picks its asset from the served ones and a pasted address loses its spaces', async () => {
    const api = merchantApi(server, shop);
    const funding = await api.post('/payment', { amount: '1', asset: BTC, invoice: 'pick-funding' });
    await postJson(`${server.api}/dev/transactions`, { address: funding.body.addressTo, amount: '1', asset: BTC, confirmations: 6 });
    const { page } = await newPage();
    await signIn(page, owner);
    await page.goto(`${server.url}/dashboard/withdrawals`);
    await page.waitForSelector('withdrawals-page select[name="asset"] option');
    const served = (await (await fetch(`${server.api}/assets`)).json()) as { data: Array<{ short: string; network: string }> };
    assert.deepEqual(await page.$$eval('withdrawals-page select[name="asset"] option', (options) => options.map((o) => o.getAttribute('value'))), served.data.map((a) => `${a.short}/${a.network}`));
    assert.equal(await page.$eval('withdrawals-page select[name="asset"]', (select) => (select as unknown as { value: string }).value), 'BTC/bitcoin');
    await page.select('withdrawals-page select[name="asset"]', 'BTC/bitcoin');
    await page.type('withdrawals-page input[name="amount"]', '0.01');
    await page.type('withdrawals-page input[name="addressTo"]', '  bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4 ');
    await page.type('withdrawals-page input[name="invoice"]', 'pick-1');
    await page.click('withdrawals-page button[type="submit"]');
    await page.waitForFunction(`document.querySelector('withdrawals-page [role="status"]')?.textContent === 'Withdrawal created.'`);
    const made = (await api.get('/withdrawal?limit=50')).body.data.find((w: { invoice: string }) => w.invoice === 'pick-1');
    assert.equal(made?.addressTo, 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
    await page.browserContext().close();
  });

  test('a session ended elsewhere brings back the sign-in form, saying why', async () => {
    const { page } = await newPage();
    await signIn(page, viewer);
    // As a password reset or an operator's removal would: the server forgets every session.
    await server.services.db.run('DELETE FROM dashboard_sessions');
    await page.click('a[href="/dashboard/refunds"]');
    await page.waitForSelector('main.sign-in [role="alert"]');
    assert.equal(await text(page, 'main.sign-in [role="alert"]'), 'Sign in to the dashboard first (your session may have ended after 12 hours idle, or on sign-out).');
    assert.equal(new URL(page.url()).pathname, '/dashboard/login');
    await page.browserContext().close();
  });

  test('the open payment and the list follow a change live, without a reload', async () => {
    const api = merchantApi(server, shop);
    // The server's clock stands still between the test's moves: payments made at one instant list
    // in id order, so a millisecond first makes this test's payments the newest, on page 1.
    server.clock.advance(1);
    const payment = await api.post('/payment', { amount: '0.25', asset: BTC, invoice: 'live-1' });
    const { page } = await newPage();
    await signIn(page, owner);
    await page.goto(`${server.url}/dashboard/payments/${payment.body.id}`);
    await page.waitForSelector('#payment-status');
    assert.equal(await text(page, '#payment-status'), 'OPEN');
    await page.evaluate('window.__sameDocument = true');
    await postJson(`${server.api}/dev/transactions`, { address: payment.body.addressTo, amount: '0.25', asset: BTC, confirmations: 0 });
    await page.waitForFunction(`document.querySelector('#payment-status')?.textContent === 'CONFIRMING'`);
    await page.click('a[href="/dashboard/payments"]');
    await page.waitForSelector('payments-page tbody tr');
    await page.waitForSelector(`payments-page a[href="/dashboard/payments/${payment.body.id}"]`);
    await postJson(`${server.api}/dev/blocks`, { network: 'bitcoin', count: 6 });
    await page.waitForFunction(`document.querySelector('a[href="/dashboard/payments/${payment.body.id}"]')?.closest('tr')?.querySelector('.status')?.textContent === 'COMPLETE'`);
    assert.equal(await page.evaluate('window.__sameDocument'), true, 'no reload');
    await page.browserContext().close();
  });

  test('withdrawals, refunds and the balance follow changes made elsewhere, without a reload', async () => {
    const api = merchantApi(server, shop);
    const funding = await api.post('/payment', { amount: '1', asset: BTC, invoice: 'follow-funding' });
    await postJson(`${server.api}/dev/transactions`, { address: funding.body.addressTo, amount: '1', asset: BTC, confirmations: 6 });
    const { page } = await newPage();
    await signIn(page, owner);
    await page.evaluate('window.__sameDocument = true');
    const liveReads: string[] = [];
    page.on('request', (request) => {
      if (request.headers()['x-live-read'] === '1') liveReads.push(request.url());
    });
    const rowOf = (list: string, needle: string) =>
      `[...document.querySelectorAll('${list}-page tbody tr')].find((row) => row.innerHTML.includes('${needle}'))`;

    await page.click('a[href="/dashboard/withdrawals"]');
    await page.waitForFunction(`document.querySelector('withdrawals-page')?.textContent?.includes('; page ')`);
    // Made through the API (a merchant's backend), not on this page.
    const withdrawal = await api.post('/withdrawal', { amount: '0.01', asset: BTC, addressTo: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', invoice: 'follow-1' });
    assert.equal(withdrawal.status, 200, JSON.stringify(withdrawal.body));
    assert.equal(withdrawal.body.status, 'OPEN');
    await page.waitForFunction(`${rowOf('withdrawals', 'follow-1')}?.querySelector('.status')?.textContent === 'OPEN'`, { timeout: 20_000 });
    // The keyboard's focus on its Approve button stays with it while a newer withdrawal arrives above.
    await page.$eval('withdrawals-page', (list) => [...list.querySelectorAll('tbody tr')].find((row) => row.textContent!.includes('follow-1'))!.querySelector('button')!.focus());
    const newer = await api.post('/withdrawal', { amount: '0.01', asset: BTC, addressTo: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', invoice: 'follow-2' });
    assert.equal(newer.status, 200, JSON.stringify(newer.body));
    await page.waitForFunction(`${rowOf('withdrawals', 'follow-2')}?.querySelector('.status')?.textContent === 'OPEN'`, { timeout: 20_000 });
    await page.keyboard.press('Enter');
    await confirmDialog(page);
    await page.waitForFunction(`document.querySelector('withdrawals-page [role="status"]')?.textContent === 'Withdrawal follow-1 approved.'`);
    // Approved (and paid out on the simulated network soon after); the newer one untouched.
    assert.ok(['APPROVED', 'COMPLETE'].includes((await api.get(`/withdrawal/${withdrawal.body.id}`)).body.status));
    assert.equal((await api.get(`/withdrawal/${newer.body.id}`)).body.status, 'OPEN');

    await page.click('a[href="/dashboard/refunds"]');
    await page.waitForFunction(`document.querySelector('refunds-page')?.textContent?.includes('; page ')`);
    const refund = await api.post(`/payment/${funding.body.id}/refund`, { amount: '0.02', reason: 'follow-refund' });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    await page.waitForFunction(`${rowOf('refunds', refund.body.id)} !== undefined`, { timeout: 20_000 });

    await page.click('a[href="/dashboard/balance"]');
    await page.waitForSelector('balance-page tbody tr');
    const shownAvailable = `[...document.querySelectorAll('balance-page tbody tr')].find((row) => row.cells[0].textContent.includes('(BTC, bitcoin)'))?.cells[1].textContent`;
    const available = async () => (await api.get('/balance')).body.data.find((row: { asset: { short: string } }) => row.asset.short === 'BTC').available as string;
    const before = await available();
    await page.waitForFunction(`${shownAvailable} === '${before}'`, { timeout: 20_000 });
    const more = await api.post('/payment', { amount: '0.5', asset: BTC, invoice: 'follow-more' });
    await postJson(`${server.api}/dev/transactions`, { address: more.body.addressTo, amount: '0.5', asset: BTC, confirmations: 6 });
    let after = await available();
    for (let i = 0; i < 100 && after === before; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await available();
    }
    assert.notEqual(after, before, 'the payment was credited');
    await page.waitForFunction(`${shownAvailable} === '${after}'`, { timeout: 20_000 });
    assert.equal(await page.evaluate('window.__sameDocument'), true, 'no reload');
    // Each page read again by itself, saying so (X-Live-Read: 1, which does not keep the session alive).
    for (const list of ['/withdrawals?', '/refunds?', '/balance']) assert.ok(liveReads.some((url) => url.includes(`/dashboard/api${list}`)), `a live read of ${list}`);
    await page.browserContext().close();
  });

  test('a viewer sees no controls', async () => {
    const { page } = await newPage();
    await signIn(page, viewer);
    for (const name of ['withdrawals', 'webhooks', 'keys']) {
      await page.goto(`${server.url}/dashboard/${name}`);
      await page.waitForSelector('[data-page] h1');
      assert.equal(await page.$$eval('[data-page] button[type="submit"]', (buttons) => buttons.length), 0, name);
    }
    await page.browserContext().close();
  });

  test('withdrawals and refunds go by pages of twenty, newest first, to the oldest', async () => {
    const api = merchantApi(server, shop);
    const funding = await api.post('/payment', { amount: '10', asset: BTC, invoice: 'pages-funding' });
    await postJson(`${server.api}/dev/transactions`, { address: funding.body.addressTo, amount: '10', asset: BTC, confirmations: 6 });
    for (let i = 1; i <= 21; i++) {
      const withdrawal = await api.post('/withdrawal', { amount: '0.01', asset: BTC, addressTo: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', invoice: `page-${i}` });
      assert.equal(withdrawal.status, 200, JSON.stringify(withdrawal.body));
      const refund = await api.post(`/payment/${funding.body.id}/refund`, { amount: '0.01', reason: `page-${i}` });
      assert.equal(refund.status, 200, JSON.stringify(refund.body));
    }
    const { page } = await newPage();
    await signIn(page, owner);
    // Each row names its record: a withdrawal by its invoice, a refund by its Refund column (the full id as its title).
    for (const [name, resource, key] of [['withdrawals', 'withdrawal', 'invoice'], ['refunds', 'refund', 'id']] as const) {
      const total = (await api.get(`/${resource}?limit=1`)).body.total as number;
      const pages = Math.ceil(total / 20);
      assert.ok(pages >= 2, `${total} ${name}`);
      // Withdrawals number their pages from 0 in the API (contract section 7), refunds from 1.
      const ids = async (n: number) => ((await api.get(`/${resource}?page=${resource === 'withdrawal' ? n - 1 : n}&limit=20`)).body.data as Array<Record<string, string>>).map((r) => (key === 'id' ? ` title:${r.id} ` : ` ${r.invoice} `));
      const shown = () => page.$$eval(`${name}-page tbody tr`, (rows) => rows.map((row) => ` ${(row.textContent ?? '').replace(/\s+/g, ' ').trim()} ${[...row.querySelectorAll('[title]')].map((cell) => `title:${cell.getAttribute('title')}`).join(' ')} `));
      await page.goto(`${server.url}/dashboard/${name}`);
      await page.waitForFunction(`document.querySelector('${name}-page')?.textContent?.includes('${total} ${name}; page 1 of ${pages}.')`);
      assert.equal((await shown()).length, 20);
      assert.equal(await page.$eval(`${name}-page .pager button:first-child`, (b) => b.getAttribute('aria-disabled')), 'true', 'no page before the first');
      for (const id of await ids(1)) assert.ok((await shown()).some((row) => row.includes(id)), `${name}: ${id} on page 1`);
      for (let n = 2; n <= pages; n++) {
        await page.click(`${name}-page .pager button:last-child`);
        await page.waitForFunction(`document.querySelector('${name}-page')?.textContent?.includes('${total} ${name}; page ${n} of ${pages}.')`);
      }
      const last = await ids(pages);
      assert.equal((await shown()).length, last.length);
      for (const id of last) assert.ok((await shown()).some((row) => row.includes(id)), `${name}: ${id} on the last page`);
      assert.equal(await page.$eval(`${name}-page .pager button:last-child`, (b) => b.getAttribute('aria-disabled')), 'true', 'no page after the last');
      await expectAccessible(page, `${name}, last page`);
    }
    // A payment's own refunds get pages too once they fill more than one.
    await page.goto(`${server.url}/dashboard/payments/${funding.body.id}`);
    await page.waitForFunction(`document.querySelector('refunds-page')?.textContent?.includes('21 refunds; page 1 of 2.')`);
    await page.browserContext().close();
  });

  test('the payments list follows its address: Back from a payment, the Payments link, a page past the end', async () => {
    const api = merchantApi(server, shop);
    const wanted = await api.post('/payment', { amount: '0.3', asset: BTC, invoice: 'back-1' });
    for (let i = 0; i < 20; i++) assert.equal((await api.post('/payment', { amount: '0.01', asset: BTC, invoice: `back-filler-${i}` })).status, 200);
    const { page } = await newPage();
    await signIn(page, owner);
    const listSays = (status: string) => page.waitForFunction(`document.querySelector('payments-page [role="status"]')?.textContent === ${JSON.stringify(status)}`);
    const total = (await api.get('/payment?limit=1')).body.total as number;
    const pages = Math.ceil(total / 20);
    await listSays(`${total} payments; page 1 of ${pages}.`);
    // A status and a search.
    await page.select('payments-page select[name="status"]', 'OPEN');
    await page.type('payments-page input[name="search"]', 'back-1');
    await page.click('payments-page button[type="submit"]');
    await listSays('1 payment; page 1 of 1.');
    assert.equal(await page.evaluate('location.search'), '?search=back-1&status=OPEN');
    await page.click(`payments-page a[href="/dashboard/payments/${wanted.body.id}"]`);
    await page.waitForSelector('#payment-status');
    await page.evaluate('history.back()');
    await listSays('1 payment; page 1 of 1.');
    assert.equal(await page.$eval('payments-page input[name="search"]', (input) => (input as unknown as { value: string }).value), 'back-1');
    assert.equal(await page.$eval('payments-page select[name="status"]', (select) => (select as unknown as { value: string }).value), 'OPEN');
    // The Payments link shows the whole list again, as its address says; then a later page of it.
    await page.click('a[href="/dashboard/payments"]');
    await listSays(`${total} payments; page 1 of ${pages}.`);
    assert.equal(await page.evaluate('location.search'), '');
    assert.equal(await page.$eval('payments-page select[name="status"]', (select) => (select as unknown as { value: string }).value), '');
    await page.click('payments-page .pager button:last-child');
    await listSays(`${total} payments; page 2 of ${pages}.`);
    const second = (await api.get('/payment?page=2&limit=20')).body.data[0].id as string;
    await page.click(`payments-page a[href="/dashboard/payments/${second}"]`);
    await page.waitForSelector('#payment-status');
    await page.evaluate('history.back()');
    await listSays(`${total} payments; page 2 of ${pages}.`);
    assert.equal(await page.evaluate('location.search'), '?page=2');
    // A page past the end in the address (an old link) shows the last page.
    await page.goto(`${server.url}/dashboard/payments?page=99`);
    await listSays(`${total} payments; page ${pages} of ${pages}.`);
    assert.equal(await page.evaluate('location.search'), `?page=${pages}`);
    await page.browserContext().close();
  });
});
