/** GET /v2/rates, the rate sources on /health, and the background refresh that startJobs runs. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startJobs } from '../../api/jobs/jobs.ts';
import { isoTime } from '../../api/shared/clock.ts';
import { rateEnv, type SourceServer, startSourceServer } from '../helpers/rate-source-servers.ts';
import { getJson, merchantApi, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

describe('GET /v2/rates', () => {
  let server: TestServer;
  let coinbase: SourceServer;
  let kraken: SourceServer;
  let api: ReturnType<typeof merchantApi>;

  before(async () => {
    coinbase = await startSourceServer('coinbase', { 'BTC/USD': '64000.00', 'ETH/USD': '3000.00', 'USDT/USD': '0.9998', 'USDC/USD': '1.0001', 'BTC/EUR': '59000.00' });
    kraken = await startSourceServer('kraken', { 'BTC/USD': '64001.00000', 'ETH/USD': '3001.00000', 'USDT/USD': '0.99990000' });
    server = await startTestServer({ env: rateEnv([coinbase, kraken]) });
    api = merchantApi(server, await server.createMerchant());
  });
  after(async () => {
    await server.close();
    await coinbase.close();
    await kraken.close();
  });

  test('lists every served asset with a fresh rate in USD by default, stablecoins at their own price', async () => {
    const at = isoTime(server.clock());
    const response = await api.get('/rates');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, {
      currency: 'USD',
      data: [
        { asset: { short: 'BTC', network: 'bitcoin' }, rate: '64000.5', sources: ['coinbase', 'kraken'], at },
        { asset: { short: 'ETH', network: 'ethereum' }, rate: '3000.5', sources: ['coinbase', 'kraken'], at },
        { asset: { short: 'USDT', network: 'ethereum' }, rate: '0.99985', sources: ['coinbase', 'kraken'], at },
        { asset: { short: 'USDC', network: 'ethereum' }, rate: '1.0001', sources: ['coinbase'], at },
        { asset: { short: 'USDT', network: 'tron' }, rate: '0.99985', sources: ['coinbase', 'kraken'], at },
      ],
    });
  });

  test('takes another currency, and lists nothing for one no source quotes', async () => {
    const at = isoTime(server.clock());
    assert.deepEqual((await api.get('/rates?currency=EUR')).body, { currency: 'EUR', data: [{ asset: { short: 'BTC', network: 'bitcoin' }, rate: '59000', sources: ['coinbase'], at }] });
    assert.deepEqual((await api.get('/rates?currency=MNT')).body, { currency: 'MNT', data: [] });
  });

  test('refuses a currency that is not an ISO 4217 code, and a request without the API key', async () => {
    for (const currency of ['usd', 'XYZ', 'BITCOIN']) {
      const response = await api.get(`/rates?currency=${currency}`);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, {
        error: {
          code: 'validation-failed',
          message: 'The request has invalid fields: currency.',
          details: [{ path: 'currency', message: 'must be an ISO 4217 currency code in upper case, like "USD", "EUR" or "JPY"' }],
        },
      });
    }
    const anonymous = await getJson(`${server.api}/rates`);
    assert.equal(anonymous.status, 401);
    assert.deepEqual(anonymous.body, { error: { code: 'missing-api-key', message: anonymous.body.error.message } });
  });

  test('/health says how each rate source stands', async () => {
    kraken.fault = 'forbidden';
    await server.services.rateBook.refresh();
    kraken.fault = 'none';
    const health = await getJson(`${server.url}/health`);
    const simulated = { source: 'simulator' };
    assert.deepEqual(health.body, {
      status: 'ok',
      networks: { bitcoin: simulated, litecoin: simulated, ethereum: simulated, tron: simulated, ripple: simulated, monero: simulated },
      rateSources: {
        coinbase: { status: 'ok', lastSuccessAt: isoTime(server.clock()), error: null },
        kraken: { status: 'failing', lastSuccessAt: isoTime(server.clock()), error: 'BTC/USD: answered HTTP 403' },
      },
    });
  });
});

describe('the background rate refresh', () => {
  test('startJobs refreshes the rates in use at once and then on its period', async () => {
    const coinbase = await startSourceServer('coinbase', { 'BTC/USD': '64000' });
    const server = await startTestServer({ env: rateEnv([coinbase], { RATE_REFRESH_SECONDS: '1' }) });
    try {
      const api = merchantApi(server, await server.createMerchant());
      assert.equal((await api.get('/rates')).body.data[0].rate, '64000');
      const asked = coinbase.requests.length;
      coinbase.prices.set('BTC/USD', '65000');
      server.clock.advance(1_000);
      const stop = startJobs(server.services);
      try {
        // A round at start, then one a second: the moved price is read without any create asking.
        await until(async () => (await api.get('/rates')).body.data[0].rate, (rate) => rate === '65000', 'the refreshed rate');
        await until(async () => coinbase.requests.length, (count) => count >= asked + 2 * 7, 'two refresh rounds');
      } finally {
        await stop();
      }
    } finally {
      await server.close();
      await coinbase.close();
    }
  });
});
