/**
 * The rate book against loopback stand-ins of Coinbase, Kraken, Bitstamp and CoinGecko speaking
 * their documented formats: the median of the fresh quotes, sources that are down, slow, answer an
 * HTML page with status 200, 403, zero or a negative price, quotes going stale on the injected
 * clock, and a burst of asks sharing one fetch.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, test } from 'node:test';
import { loadConfig } from '../../api/config.ts';
import { createRateBook, type RateBook } from '../../api/rates/rate-book.ts';
import { RatesUnavailable, UnsupportedCurrency } from '../../api/rates/rate-errors.ts';
import { createRateSources } from '../../api/rates/rate-sources.ts';
import { createManualClock, type ManualClock } from '../../api/shared/clock.ts';
import { silentLogger } from '../../api/shared/logger.ts';
import { rateEnv, type SourceName, type SourceServer, startSourceServer } from '../helpers/rate-source-servers.ts';

const TICKERS = ['BTC', 'ETH', 'USDT'];

describe('the rate book', () => {
  const servers = new Map<SourceName, SourceServer>();
  let clock: ManualClock;
  const source = (name: SourceName) => servers.get(name)!;

  before(async () => {
    for (const name of ['coinbase', 'kraken', 'bitstamp', 'coingecko'] as const) servers.set(name, await startSourceServer(name));
  });
  after(async () => {
    for (const server of servers.values()) await server.close();
  });
  afterEach(() => {
    for (const server of servers.values()) {
      server.prices.clear();
      server.fault = 'none';
      server.requests.length = 0;
    }
  });

  // A fresh book over the named stand-ins, configured as an operator would (RATE_SOURCES, RATE_SOURCE_<NAME>_URL).
  function book(names: readonly SourceName[], env: Record<string, string> = {}): RateBook {
    clock = createManualClock(Date.UTC(2026, 10, 21, 10, 0, 0));
    const { rates } = loadConfig(rateEnv(names.map(source), env));
    return createRateBook({
      sources: createRateSources(rates),
      clock,
      logger: silentLogger(),
      maxAgeMs: rates.maxAgeSeconds * 1000,
      refreshMs: rates.refreshSeconds * 1000,
      timeoutMs: rates.timeoutMs,
      tickers: () => TICKERS,
    });
  }
  const at = Date.UTC(2026, 10, 21, 10, 0, 0);

  test('takes the median of three sources, each read from its own format', async () => {
    source('coinbase').prices.set('BTC/USD', '64000.10');
    source('kraken').prices.set('BTC/USD', '63990.50000');
    source('bitstamp').prices.set('BTC/USD', '64100');
    const rates = book(['coinbase', 'kraken', 'bitstamp']);
    assert.deepEqual(await rates.rate('BTC', 'USD'), { value: '64000.1', currency: 'USD', sources: ['coinbase', 'kraken', 'bitstamp'], at });
    assert.deepEqual(source('kraken').requests, ['/0/public/Ticker?pair=XBTUSD']);
    assert.deepEqual(source('bitstamp').requests, ['/api/v2/ticker/btcusd/']);
    assert.deepEqual(source('coinbase').requests, ['/v2/exchange-rates?currency=BTC']);
  });

  test('takes the mean of the middle two of two sources, and the one quote of one', async () => {
    source('coinbase').prices.set('ETH/EUR', '3000.01');
    source('kraken').prices.set('ETH/EUR', '3000.02');
    const two = book(['coinbase', 'kraken', 'bitstamp']);
    assert.deepEqual(await two.rate('ETH', 'EUR'), { value: '3000.015', currency: 'EUR', sources: ['coinbase', 'kraken'], at });
    source('kraken').prices.clear();
    const one = book(['coinbase', 'kraken', 'bitstamp']);
    assert.deepEqual(await one.rate('ETH', 'EUR'), { value: '3000.01', currency: 'EUR', sources: ['coinbase'], at });
  });

  test('reads CoinGecko\'s JSON numbers from their text, digits a float would lose included', async () => {
    source('coingecko').prices.set('BTC/USD', '64123.123456789012345678');
    source('coingecko').prices.set('ETH/USD', '3.5e3');
    const rates = book(['coingecko']);
    assert.deepEqual(await rates.rate('BTC', 'USD'), { value: '64123.123456789012345678', currency: 'USD', sources: ['coingecko'], at });
    assert.deepEqual(await rates.rate('ETH', 'USD'), { value: '3500', currency: 'USD', sources: ['coingecko'], at });
    // The first ask fetched BTC alone; ETH, a new pair, once more.
    assert.deepEqual(source('coingecko').requests, ['/api/v3/simple/price?ids=bitcoin&vs_currencies=usd', '/api/v3/simple/price?ids=ethereum&vs_currencies=usd']);
  });

  test('skips a source that is down, one that answers an HTML page with status 200, and one that answers 403', async () => {
    for (const name of ['coinbase', 'kraken', 'bitstamp', 'coingecko'] as const) source(name).prices.set('BTC/USD', name === 'coingecko' ? '64200' : '1');
    source('coinbase').fault = 'down';
    source('kraken').fault = 'html';
    source('bitstamp').fault = 'forbidden';
    const rates = book(['coinbase', 'kraken', 'bitstamp', 'coingecko']);
    assert.deepEqual(await rates.rate('BTC', 'USD'), { value: '64200', currency: 'USD', sources: ['coingecko'], at });
    assert.deepEqual(
      rates.health().map(({ name, status, error }) => ({ name, status, error })),
      [
        { name: 'coinbase', status: 'failing', error: `BTC/USD: unreachable (other side closed)` },
        { name: 'kraken', status: 'failing', error: 'BTC/USD: answered with status 200 but not JSON (starts "<html><head><title>Service Unavailable</")' },
        { name: 'bitstamp', status: 'failing', error: 'BTC/USD: answered HTTP 403' },
        { name: 'coingecko', status: 'ok', error: null },
      ],
    );
  });

  test('skips a price of zero and a negative one', async () => {
    source('coinbase').prices.set('BTC/USD', '0');
    source('kraken').prices.set('BTC/USD', '-64000.00000');
    source('bitstamp').prices.set('BTC/USD', '64000');
    source('coingecko').prices.set('BTC/USD', '-1');
    const rates = book(['coinbase', 'kraken', 'bitstamp', 'coingecko']);
    assert.deepEqual(await rates.rate('BTC', 'USD'), { value: '64000', currency: 'USD', sources: ['bitstamp'], at });
    assert.deepEqual(
      rates.health().map(({ name, error }) => ({ name, error })),
      [
        { name: 'coinbase', error: 'BTC/USD: price "0" is not positive' },
        { name: 'kraken', error: 'BTC/USD: price "-64000.00000" is not positive' },
        { name: 'bitstamp', error: null },
        { name: 'coingecko', error: 'BTC/USD: price -1 is not positive' },
      ],
    );
  });

  test('converts stablecoins from their own quotes, never assuming 1.00', async () => {
    source('coinbase').prices.set('USDT/USD', '0.99980000');
    source('kraken').prices.set('USDT/USD', '0.99970');
    source('bitstamp').prices.set('USDT/USD', '1.00010');
    const rates = book(['coinbase', 'kraken', 'bitstamp']);
    assert.deepEqual(await rates.rate('USDT', 'USD'), { value: '0.9998', currency: 'USD', sources: ['coinbase', 'kraken', 'bitstamp'], at });
    assert.deepEqual(source('kraken').requests, ['/0/public/Ticker?pair=USDTUSD']);
  });

  test('a burst of asks for a new pair makes one request per source, and later asks none', async () => {
    source('coinbase').prices.set('BTC/JPY', '9500000');
    source('kraken').prices.set('BTC/JPY', '9500100');
    const rates = book(['coinbase', 'kraken']);
    const answers = await Promise.all(Array.from({ length: 50 }, () => rates.rate('BTC', 'JPY')));
    assert.equal(new Set(answers.map((a) => a.value)).size, 1);
    assert.equal(answers[0]!.value, '9500050');
    await rates.rate('BTC', 'JPY');
    assert.deepEqual(source('coinbase').requests, ['/v2/exchange-rates?currency=BTC']);
    assert.deepEqual(source('kraken').requests, ['/0/public/Ticker?pair=XBTJPY']);
  });

  test('stops using quotes older than RATE_MAX_AGE_SECONDS, and a refresh brings the moved price in', async () => {
    source('coinbase').prices.set('BTC/USD', '64000');
    const rates = book(['coinbase'], { RATE_MAX_AGE_SECONDS: '120' });
    assert.equal((await rates.rate('BTC', 'USD')).value, '64000');
    clock.advance(120_000);
    assert.equal((await rates.rate('BTC', 'USD')).value, '64000', 'exactly the maximum age is still fresh');
    clock.advance(1);
    await assert.rejects(rates.rate('BTC', 'USD'), (err: unknown) => err instanceof RatesUnavailable && err.retryAfterSeconds === 60);
    source('coinbase').prices.set('BTC/USD', '65000');
    await rates.refresh();
    assert.deepEqual(await rates.rate('BTC', 'USD'), { value: '65000', currency: 'USD', sources: ['coinbase'], at: at + 120_001 });
    // The refresh asked for every served ticker in the currency in use: one request per asset on Coinbase.
    assert.deepEqual(source('coinbase').requests.toSorted(), ['/v2/exchange-rates?currency=BTC', '/v2/exchange-rates?currency=BTC', '/v2/exchange-rates?currency=ETH', '/v2/exchange-rates?currency=USDT']);
  });

  test('a rate read again is the one worked out before, until a quote changes or one it used grows too old', async () => {
    source('coinbase').prices.set('BTC/USD', '64000');
    source('kraken').fault = 'html';
    const rates = book(['coinbase', 'kraken'], { RATE_MAX_AGE_SECONDS: '120' });
    const first = await rates.rate('BTC', 'USD');
    assert.deepEqual(first, { value: '64000', currency: 'USD', sources: ['coinbase'], at });
    assert.equal(await rates.rate('BTC', 'USD'), first, 'nothing changed: the same rate, not worked out again');
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.sources), 'shared by every caller, so nobody may change it');

    // Kraken answers 60 s later and Coinbase fails (its quote stays, one minute old): both are used.
    clock.advance(60_000);
    source('kraken').fault = 'none';
    source('kraken').prices.set('BTC/USD', '66000');
    source('coinbase').fault = 'html';
    await rates.refresh();
    const both = await rates.rate('BTC', 'USD');
    assert.deepEqual(both, { value: '65000', currency: 'USD', sources: ['coinbase', 'kraken'], at });
    assert.equal(await rates.rate('BTC', 'USD'), both);

    // Coinbase's quote passes the maximum age: the rate is Kraken's alone from then on.
    clock.advance(60_001);
    assert.deepEqual(await rates.rate('BTC', 'USD'), { value: '66000', currency: 'USD', sources: ['kraken'], at: at + 60_000 });
    // A clock set back (an NTP step) makes Coinbase's quote fresh again.
    clock.set(at + 100_000);
    assert.deepEqual(await rates.rate('BTC', 'USD'), both);
  });

  test('with no fresh quote from any source, says rates-unavailable naming the currency, the asset and when to retry', async () => {
    source('coinbase').fault = 'forbidden';
    source('kraken').fault = 'html';
    const rates = book(['coinbase', 'kraken'], { RATE_REFRESH_SECONDS: '30' });
    await assert.rejects(rates.rate('BTC', 'EUR'), {
      name: 'RatesUnavailable',
      message:
        'No fresh EUR rate for BTC: none of the rate sources (coinbase, kraken) gave a usable quote recently. Try again in 30 seconds; nothing was created. Amounts given in BTC itself keep working.',
      retryAfterSeconds: 30,
    });
    // Asked once: the next asks wait for the background refresh instead of fetching per request.
    await assert.rejects(rates.rate('BTC', 'EUR'), RatesUnavailable);
    assert.equal(source('coinbase').requests.length, 1);
  });

  test('a currency every source answers for but none quotes for the asset is unsupported-currency', async () => {
    source('coinbase').prices.set('BTC/USD', '64000');
    source('kraken').prices.set('BTC/USD', '64000');
    const rates = book(['coinbase', 'kraken']);
    await assert.rejects(rates.rate('BTC', 'MNT'), (err: unknown) => err instanceof UnsupportedCurrency && err.message === 'No rate source quotes BTC in MNT. Give the amount in another currency, or in BTC itself.');
    // One source down means nobody can tell: unavailable, not unsupported.
    source('kraken').fault = 'down';
    const partly = book(['coinbase', 'kraken']);
    await assert.rejects(partly.rate('BTC', 'MNT'), RatesUnavailable);
  });

  test('a 404 or 400 counts as "not quoted" only when the source itself says so, not a proxy page or a wrong address', async () => {
    for (const name of ['coinbase', 'bitstamp'] as const) source(name).prices.set('BTC/USD', '64000');
    // Both sources at their real addresses: an asset or pair they do not list is theirs to say.
    await assert.rejects(book(['coinbase', 'bitstamp']).rate('BTC', 'MNT'), UnsupportedCurrency);
    // A wrong address (or a proxy) answering its own 404 and 400 pages: the sources are failing,
    // the answer is "try again", never "unsupported", and /health says why.
    const pages = http.createServer((req, res) => {
      const status = req.url?.includes('exchange-rates') ? 400 : 404;
      res.writeHead(status, { 'Content-Type': 'text/html' }).end(`<h1>${status}</h1>nginx`);
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    try {
      const wrong = `http://127.0.0.1:${(pages.address() as AddressInfo).port}/proxy`;
      const rates = book(['coinbase', 'bitstamp'], { RATE_SOURCE_COINBASE_URL: wrong, RATE_SOURCE_BITSTAMP_URL: wrong });
      await assert.rejects(rates.rate('BTC', 'USD'), RatesUnavailable);
      assert.deepEqual(
        rates.health().map(({ name, status, error }) => ({ name, status, error })),
        [
          { name: 'coinbase', status: 'failing', error: 'BTC/USD: answered HTTP 400' },
          { name: 'bitstamp', status: 'failing', error: 'BTC/USD: answered HTTP 404, and its list of markets answered HTTP 404' },
        ],
      );
    } finally {
      await new Promise<void>((resolve) => pages.close(() => resolve()));
    }
    // Coinbase itself at a wrong path (its own 404 JSON, not "invalid currency"), and a market
    // Bitstamp lists whose ticker 404s: failing too, not unsupported.
    source('bitstamp').prices.set('BTC/CHF', '57000');
    const odd = book(['coinbase', 'bitstamp'], { RATE_SOURCE_COINBASE_URL: `${source('coinbase').url}/v2` });
    await assert.rejects(odd.rate('BTC', 'CHF'), RatesUnavailable);
    assert.deepEqual(
      odd.health().map(({ name, status, error }) => ({ name, status, error })),
      [
        { name: 'coinbase', status: 'failing', error: 'BTC/CHF: answered HTTP 404' },
        { name: 'bitstamp', status: 'failing', error: 'BTC/CHF: answered HTTP 404 for btcchf, a market it lists' },
      ],
    );
  });

  test('an endless answer (chunked, no length) is cut off at 1 MiB: the source is failing, nothing more is read', async () => {
    let sent = 0;
    const endless = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = () => {
        while (sent < 64 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
        if (sent < 64 * 1024 * 1024) res.once('drain', more);
        else res.end();
      };
      res.on('close', () => res.removeAllListeners('drain'));
      more();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    try {
      const rates = book(['coinbase'], { RATE_SOURCE_COINBASE_URL: `http://127.0.0.1:${(endless.address() as AddressInfo).port}` });
      await assert.rejects(rates.rate('BTC', 'USD'), RatesUnavailable);
      assert.deepEqual(rates.health().map(({ status, error }) => ({ status, error })), [{ status: 'failing', error: 'BTC/USD: answered more than 1048576 bytes, more than a price needs' }]);
      assert.ok(sent < 16 * 1024 * 1024, `stopped reading early (${sent} bytes sent)`);
    } finally {
      endless.closeAllConnections();
      await new Promise<void>((resolve) => endless.close(() => resolve()));
    }
  });

  test('JPY quotes, whose currency has no minor digits, are used as they come', async () => {
    source('bitstamp').prices.set('ETH/JPY', '450000');
    const rates = book(['bitstamp']);
    assert.deepEqual(await rates.rate('ETH', 'JPY'), { value: '450000', currency: 'JPY', sources: ['bitstamp'], at });
  });

  test('a slow source is cut off after 3 s and the others still serve', async () => {
    source('coinbase').fault = 'slow';
    source('kraken').prices.set('BTC/USD', '64000');
    const rates = book(['coinbase', 'kraken']);
    assert.deepEqual(await rates.rate('BTC', 'USD'), { value: '64000', currency: 'USD', sources: ['kraken'], at });
    assert.deepEqual(
      rates.health().map(({ name, status, error }) => ({ name, status, error })),
      [
        { name: 'coinbase', status: 'failing', error: 'BTC/USD: no answer within the time allowed' },
        { name: 'kraken', status: 'ok', error: null },
      ],
    );
  });
});
