/**
 * POST /v2/payment with a fiat `price` (contract section 16): the amount converted at the median
 * rate plus the spread, rounded up; `price` and `rate` on every read, the list and the payer's view;
 * the amount locked when the quotes move and across a restart; the errors with their whole bodies;
 * and payments priced in the asset never touching the rate sources.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createApp } from '../../api/app.ts';
import { createServices } from '../../api/services.ts';
import { isoTime } from '../../api/shared/clock.ts';
import { silentLogger } from '../../api/shared/logger.ts';
import { rateEnv, type SourceServer, startSourceServer } from '../helpers/rate-source-servers.ts';
import { getJson, merchantApi, postJson, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';

const BTC = { short: 'BTC', network: 'bitcoin' };
const PRICES = {
  coinbase: { 'BTC/USD': '64000.00', 'BTC/JPY': '9500000', 'USDT/EUR': '0.9210' },
  kraken: { 'BTC/USD': '64010.00000', 'USDT/EUR': '0.92050000' },
  bitstamp: { 'BTC/USD': '63990' },
} as const;

describe('payments priced in a fiat currency', () => {
  let server: TestServer;
  let shop: TestMerchant;
  let api: ReturnType<typeof merchantApi>;
  let sources: SourceServer[];

  before(async () => {
    sources = [await startSourceServer('coinbase'), await startSourceServer('kraken'), await startSourceServer('bitstamp')];
    server = await startTestServer({ env: rateEnv(sources) });
    shop = await server.createMerchant('Fiat Shop');
    api = merchantApi(server, shop);
  });
  beforeEach(() => {
    for (const source of sources) {
      source.fault = 'none';
      source.prices = new Map(Object.entries(PRICES[source.name as keyof typeof PRICES]));
    }
  });
  after(async () => {
    await server.close();
    for (const source of sources) await source.close();
  });

  test('converts 19.99 USD at the median rate, rounded up, and shows price and rate on every read', async () => {
    const at = isoTime(server.clock());
    const created = await api.post('/payment', { price: { amount: '19.99', currency: 'USD' }, asset: BTC, invoice: 'fiat-1' });
    assert.equal(created.status, 200);
    // 19.99 / 64000 = 0.00031234375, rounded up to 8 decimals.
    assert.equal(created.body.amount, '0.00031235');
    assert.deepEqual(created.body.price, { amount: '19.99', currency: 'USD' });
    assert.deepEqual(created.body.rate, { value: '64000', currency: 'USD', sources: ['coinbase', 'kraken', 'bitstamp'], at });
    assert.deepEqual((await api.get(`/payment/${created.body.id}`)).body, created.body);
    const listed = (await api.get('/payment?invoices=fiat-1')).body.data;
    assert.deepEqual(listed, [created.body]);
    const view = (await getJson(`${server.api}/checkout/${created.body.id}`)).body;
    assert.deepEqual({ amount: view.amount, price: view.price, rate: view.rate }, { amount: '0.00031235', price: created.body.price, rate: created.body.rate });
  });

  test('keeps the amount when the quotes move; a new payment takes the new rate', async () => {
    const created = await api.post('/payment', { price: { amount: '640', currency: 'USD' }, asset: BTC });
    assert.equal(created.body.amount, '0.01000000');
    for (const source of sources) source.prices.set('BTC/USD', '32000');
    server.clock.advance(60_000);
    await server.services.rateBook.refresh();
    assert.deepEqual((await api.get(`/payment/${created.body.id}`)).body, created.body);
    const later = await api.post('/payment', { price: { amount: '640', currency: 'USD' }, asset: BTC });
    assert.equal(later.body.amount, '0.02000000');
    assert.deepEqual(later.body.rate, { value: '32000', currency: 'USD', sources: ['coinbase', 'kraken', 'bitstamp'], at: isoTime(server.clock()) });
  });

  test('keeps the amount, price and rate across a restart, whatever the sources say then', async () => {
    const created = await api.post('/payment', { price: { amount: '19.99', currency: 'USD' }, asset: BTC });
    for (const source of sources) source.fault = 'down';
    // A new process over the same store: every cache and the rate book start empty.
    const restarted = await createServices({ db: server.services.db, config: server.services.config, clock: server.clock, logger: silentLogger(), serverKey: server.serverKey });
    const listener = http.createServer(createApp(restarted));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
      assert.deepEqual((await merchantApi({ api: `${url}/v2` }, shop).get(`/payment/${created.body.id}`)).body, created.body);
      const view = (await getJson(`${url}/v2/checkout/${created.body.id}`)).body;
      assert.deepEqual({ amount: view.amount, price: view.price, rate: view.rate }, { amount: created.body.amount, price: created.body.price, rate: created.body.rate });
    } finally {
      listener.closeAllConnections();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
      await restarted.close();
    }
  });

  test('prices in JPY, which has no minor digits, and converts stablecoins from their own quotes', async () => {
    const yen = await api.post('/payment', { price: { amount: '3000', currency: 'JPY' }, asset: BTC });
    // 3000 / 9500000 = 0.000315789…
    assert.equal(yen.body.amount, '0.00031579');
    const tether = await api.post('/payment', { price: { amount: '100.00', currency: 'EUR' }, asset: { short: 'USDT', network: 'ethereum' } });
    // 100 / 0.92075 = 108.607113…, not 100.
    assert.equal(tether.body.amount, '108.607114');
    assert.deepEqual(tether.body.rate.value, '0.92075');
  });

  test('refuses amount with price, neither, a currency that is not ISO 4217, more minor digits than the currency has, and a price below the dust limit', async () => {
    const cases: Array<[unknown, Array<{ path: string; message: string }>]> = [
      [{ amount: '0.001', price: { amount: '19.99', currency: 'USD' }, asset: BTC }, [{ path: 'price', message: 'must not be sent with amount: price the payment in the asset (amount) or in a fiat currency (price), not both' }]],
      [{ asset: BTC }, [{ path: 'amount', message: 'is required (or price, to price the payment in a fiat currency)' }]],
      [{ price: { amount: '19.99', currency: 'usd' }, asset: BTC }, [{ path: 'price.currency', message: 'must be an ISO 4217 currency code in upper case, like "USD", "EUR" or "JPY"' }]],
      [{ price: { amount: '19.99', currency: 'XBT' }, asset: BTC }, [{ path: 'price.currency', message: 'must be an ISO 4217 currency code in upper case, like "USD", "EUR" or "JPY"' }]],
      [{ price: { amount: '1', currency: 'XAU' }, asset: BTC }, [{ path: 'price.currency', message: 'is the ISO 4217 code of a precious metal, fund or testing unit, not a currency prices are given in: use one like "USD", "EUR" or "JPY"' }]],
      [{ price: { amount: '19.999', currency: 'USD' }, asset: BTC }, [{ path: 'price.amount', message: 'must have at most 2 decimal places for USD' }]],
      [{ price: { amount: '1000.5', currency: 'JPY' }, asset: BTC }, [{ path: 'price.amount', message: 'must have at most 0 decimal places for JPY' }]],
      [{ price: { amount: 19.99, currency: 'USD' }, asset: BTC }, [{ path: 'price.amount', message: 'must be a decimal number in a string, like "10.50" (JSON numbers lose precision, so they are refused)' }]],
    ];
    for (const [body, details] of cases) {
      const response = await api.post('/payment', body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.deepEqual(response.body, { error: { code: 'validation-failed', message: `The request has invalid fields: ${details.map((d) => d.path).join(', ')}.`, details } });
    }
    // A cent is a few dozen satoshi at these rates: below what the network relays.
    const cent = await api.post('/payment', { price: { amount: '0.01', currency: 'USD' }, asset: BTC, invoice: 'one-cent' });
    assert.equal(cent.status, 400);
    assert.equal(cent.body.error.details.length, 1);
    assert.equal(cent.body.error.details[0].path, 'price.amount');
    assert.match(cent.body.error.details[0].message, /^converts to 0\.000000[0-9]{2} BTC, less than 0\.00000546 BTC, Bitcoin's dust limit: many wallets will not send less, and nothing this small could be refunded$/);
    assert.equal((await api.get('/payment?invoices=one-cent')).body.data.length, 0);
  });

  test('a currency every source answers for but none quotes for the asset is 400 unsupported-currency', async () => {
    const response = await api.post('/payment', { price: { amount: '50000', currency: 'MNT' }, asset: BTC });
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: { code: 'unsupported-currency', message: 'No rate source quotes BTC in MNT. Give the amount in another currency, or in BTC itself.' } });
  });

  test('with no fresh quote at all, answers 503 rates-unavailable with Retry-After and creates nothing', async () => {
    sources[0]!.fault = 'down';
    sources[1]!.fault = 'html';
    sources[2]!.fault = 'forbidden';
    const before = (await api.get('/payment')).body.total;
    const response = await api.post('/payment', { price: { amount: '15.00', currency: 'GBP' }, asset: BTC, invoice: 'never-stored' });
    assert.equal(response.status, 503);
    assert.equal(response.headers.get('retry-after'), '60');
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.deepEqual(response.body, {
      error: {
        code: 'rates-unavailable',
        message:
          'No fresh GBP rate for BTC: none of the rate sources (coinbase, kraken, bitstamp) gave a usable quote recently. Try again in 60 seconds; nothing was created. Amounts given in BTC itself keep working.',
      },
    });
    assert.equal((await api.get('/payment')).body.total, before);
    assert.deepEqual((await api.get('/payment?invoices=never-stored')).body.data, []);
  });

  test('the no-JavaScript payer page shows the price beside the asset amount, in the payer\'s locale', async () => {
    const created = await api.post('/payment', { price: { amount: '19.99', currency: 'EUR' }, asset: { short: 'USDT', network: 'ethereum' } });
    // 19.99 / 0.92075 = 21.7105620…, rounded up to 6 decimals.
    assert.equal(created.body.amount, '21.710563');
    const page = async (lang: string) => (await (await fetch(`${server.url}/pay?id=${created.body.id}&lang=${lang}`)).text()).match(/<strong dir="ltr">([^<]*)<\/strong> <span class="pay-price" data-value="price">([^<]*)<\/span>/)?.slice(1);
    assert.deepEqual(await page('de'), ['21,710563 USDT', '19,99\u00a0€']);
    assert.deepEqual(await page('en'), ['21.710563 USDT', '€19.99']);
    const plain = await api.post('/payment', { amount: '0.001', asset: BTC });
    assert.doesNotMatch(await (await fetch(`${server.url}/pay?id=${plain.body.id}&lang=de`)).text(), /data-value="price"/);
  });

  test('the no-JavaScript payer page of a partly paid payment labels the price as the order total, beside the full amount', async () => {
    const created = await api.post('/payment', { price: { amount: '25.00', currency: 'USD' }, asset: BTC });
    // The rate depends on what earlier tests left quoted: read the amounts rather than assume them.
    const sent = await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, amount: '0.0001', asset: BTC, confirmations: 0 });
    assert.equal(sent.status, 200);
    const view = (await getJson(`${server.api}/checkout/${created.body.id}`)).body;
    assert.equal(view.status, 'OPEN');
    assert.notEqual(view.amountDue, view.amount);
    const trim = (amount: string) => amount.replace(/0+$/, '').replace(/\.$/, '');
    const html = await (await fetch(`${server.url}/pay?id=${created.body.id}&lang=en`)).text();
    const amount = /<dt>Still to pay<\/dt><dd>(.*?)<\/dd>/.exec(html)?.[1];
    assert.equal(
      amount,
      `<strong dir="ltr">${trim(view.amountDue)} BTC</strong> <span class="pay-small">Bitcoin on the Bitcoin network</span> <span class="pay-small" data-value="order-total">Order total: ${trim(view.amount)} BTC ($25.00)</span>`,
    );
    const de = await (await fetch(`${server.url}/pay?id=${created.body.id}&lang=de`)).text();
    assert.ok(de.includes(`<span class="pay-small" data-value="order-total">Bestellsumme: ${trim(view.amount).replace('.', ',')} BTC (25,00\u00a0$)</span>`));
  });

  test('payments priced in the asset never touch the rate sources', async () => {
    for (const source of sources) {
      source.fault = 'down';
      source.requests.length = 0;
    }
    server.clock.advance(3_600_000);
    const created = await api.post('/payment', { amount: '0.001', asset: BTC });
    assert.equal(created.status, 200);
    assert.equal(created.body.price, null);
    assert.equal(created.body.rate, null);
    assert.deepEqual(sources.map((s) => s.requests.length), [0, 0, 0]);
  });
});

describe('RATE_SPREAD_PERCENT', () => {
  test('raises the converted amount by its share before rounding up; the rate shown is before the spread', async () => {
    const coinbase = await startSourceServer('coinbase', { 'BTC/USD': '50000' });
    const server = await startTestServer({ env: rateEnv([coinbase], { RATE_SPREAD_PERCENT: '1.5' }) });
    try {
      const api = merchantApi(server, await server.createMerchant());
      const created = await api.post('/payment', { price: { amount: '100.00', currency: 'USD' }, asset: BTC });
      // 100 × 1.015 / 50000 = 0.00203
      assert.equal(created.body.amount, '0.00203000');
      assert.equal(created.body.rate.value, '50000');
    } finally {
      await server.close();
      await coinbase.close();
    }
  });
});
