/** The pure parts of fiat prices: the median, the conversion, JSON numbers kept as text, prices, currencies and the RATE_* variables. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Decimal from 'decimal.js';
import { loadConfig } from '../../api/config.ts';
import { isCurrencyCode, minorDigits } from '../../api/rates/currencies.ts';
import { JsonNumber, parseJsonKeepingNumbers } from '../../api/rates/json-numbers.ts';
import { median } from '../../api/rates/median.ts';
import { assetAmountFor } from '../../api/rates/price-conversion.ts';
import { positivePrice } from '../../api/rates/source-http.ts';

describe('median', () => {
  test('of three is the middle one, of two the mean of both, of one itself, in any order', () => {
    assert.equal(median(['64100', '63990.5', '64000.10']), '64000.1');
    assert.equal(median(['3000.02', '3000.01']), '3000.015');
    assert.equal(median(['0.9998']), '0.9998');
    assert.equal(median(['5', '1', '4', '2']), '3');
  });

  test('is exact where floats are not: 0.1 and 0.2 average to 0.15', () => {
    assert.equal(median(['0.1', '0.2']), '0.15');
    assert.equal(median(['64123.123456789012345678', '64123.123456789012345679']), '64123.1234567890123456785');
  });
});

describe('assetAmountFor: ceil(price × (1 + spread/100) ÷ rate) to the asset decimals', () => {
  test('rounds up once, at the end, so the payer never pays less than the price', () => {
    // 19.99 / 64000 = 0.00031234375
    assert.equal(assetAmountFor('19.99', '0', '64000', 8), '0.00031235');
    // 19.99 / 0.9998 = 19.99399879975995...
    assert.equal(assetAmountFor('19.99', '0', '0.9998', 6), '19.993999');
  });

  test('an exact quotient is not raised', () => {
    assert.equal(assetAmountFor('10', '0', '1000', 8), '0.01000000');
    assert.equal(assetAmountFor('100', '0', '50000', 8), '0.00200000');
  });

  test('adds the spread before rounding', () => {
    // 100 × 1.015 / 50000 = 0.00203
    assert.equal(assetAmountFor('100', '1.5', '50000', 8), '0.00203000');
    // 19.99 × 1.02 / 64000 = 0.0003185906...
    assert.equal(assetAmountFor('19.99', '2', '64000', 8), '0.00031860');
  });

  test('prices in JPY, which has no minor digits', () => {
    // 3000 / 9500000 = 0.000315789...
    assert.equal(assetAmountFor('3000', '0', '9500000', 8), '0.00031579');
  });

  test('agrees with 100-digit decimal arithmetic on rates longer than a float holds', () => {
    const Precise = Decimal.clone({ precision: 100 });
    for (const [price, spread, rate, decimals] of [
      ['0.01', '0', '64123.123456789012345678', 8],
      ['999999999.99', '49.9999', '0.000000123456789', 6],
      ['1', '0.0001', '3', 0],
    ] as const) {
      const exact = new Precise(price).times(new Precise(100).plus(spread)).div(100).div(rate);
      assert.equal(assetAmountFor(price, spread, rate, decimals), exact.toDecimalPlaces(decimals, Decimal.ROUND_UP).toFixed(decimals), `${price} at ${rate}`);
    }
  });
});

describe('parseJsonKeepingNumbers', () => {
  test('keeps each number as the text sent', () => {
    assert.deepEqual(parseJsonKeepingNumbers('{"bitcoin": {"usd": 64123.123456789012345678, "jpy": 1.2e-05}, "ok": [true, false, null, "a\\"b"]}'), {
      bitcoin: { usd: new JsonNumber('64123.123456789012345678'), jpy: new JsonNumber('1.2e-05') },
      ok: [true, false, null, 'a"b'],
    });
  });

  test('refuses what is not JSON: an HTML page, trailing text, a lone minus, a leading zero', () => {
    for (const text of ['<html><body>Service Unavailable</body></html>', '{"a": 1} x', '{"a": -}', '{"a": 01}', '', '{"a": 1,}', '"open']) {
      assert.throws(() => parseJsonKeepingNumbers(text), SyntaxError, text);
    }
  });

  test('keeps "__proto__" a plain key', () => {
    const value = parseJsonKeepingNumbers('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    assert.deepEqual(Object.keys(value), ['__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('positivePrice', () => {
  test('accepts decimal strings and JSON numbers, in canonical form', () => {
    assert.equal(positivePrice('64000.10'), '64000.1');
    assert.equal(positivePrice(new JsonNumber('6.4e4')), '64000');
  });

  test('refuses zero, negatives and anything that is not a number', () => {
    for (const [value, message] of [
      ['0', 'price "0" is not positive'],
      [new JsonNumber('-3'), 'price -3 is not positive'],
      ['1e5', 'price "1e5" is not a decimal number'],
      ['NaN', 'price "NaN" is not a decimal number'],
      [null, 'price null is not a decimal number'],
      [undefined, 'price missing is not a decimal number'],
    ] as const) {
      assert.throws(() => positivePrice(value), { name: 'SourceError', message });
    }
  });
});

describe('ISO 4217 currencies', () => {
  test('know their minor digits and refuse what is not an active code', () => {
    assert.deepEqual(['USD', 'EUR', 'JPY', 'KWD', 'CLF'].map(minorDigits), [2, 2, 0, 3, 4]);
    assert.deepEqual(['usd', 'XYZ', 'XAU', 'BTC', ''].map(isCurrencyCode), [false, false, false, false, false]);
  });
});

describe('the RATE_* variables', () => {
  test('default to coinbase, kraken and bitstamp, a minute, five minutes and no spread', () => {
    assert.deepEqual(loadConfig({}).rates, { sources: ['coinbase', 'kraken', 'bitstamp'], urls: {}, refreshSeconds: 60, maxAgeSeconds: 300, spreadPercent: '0', timeoutMs: 3000 });
    assert.deepEqual(loadConfig({ RATE_SOURCES: 'coingecko, kraken', RATE_SOURCE_KRAKEN_URL: 'http://127.0.0.1:8089/', RATE_SPREAD_PERCENT: '1.5' }).rates, {
      sources: ['coingecko', 'kraken'],
      urls: { kraken: 'http://127.0.0.1:8089' },
      refreshSeconds: 60,
      maxAgeSeconds: 300,
      spreadPercent: '1.5',
      timeoutMs: 3000,
    });
  });

  test('a bad value stops start-up with one line naming the variable', () => {
    for (const [env, message] of [
      [{ RATE_SOURCES: 'coinbase,binance' }, 'RATE_SOURCES must be a comma list of distinct sources among coinbase, kraken, bitstamp, coingecko, got "coinbase,binance"'],
      [{ RATE_SOURCES: 'kraken,kraken' }, 'RATE_SOURCES must be a comma list of distinct sources among coinbase, kraken, bitstamp, coingecko, got "kraken,kraken"'],
      [{ RATE_SOURCE_BITSTAMP_URL: 'ftp://proxy' }, 'RATE_SOURCE_BITSTAMP_URL must be an http(s) base URL without query, like http://127.0.0.1:8089, got "ftp://proxy"'],
      [{ RATE_REFRESH_SECONDS: '0' }, 'RATE_REFRESH_SECONDS must be a whole number from 1 to 86400, got "0"'],
      [{ RATE_MAX_AGE_SECONDS: 'soon' }, 'RATE_MAX_AGE_SECONDS must be a whole number from 1 to 86400, got "soon"'],
      [{ RATE_SPREAD_PERCENT: '50.5' }, 'RATE_SPREAD_PERCENT must be a decimal from 0 to 50 (at most 4 decimals, like 1.5), got "50.5"'],
      [{ RATE_SPREAD_PERCENT: '-1' }, 'RATE_SPREAD_PERCENT must be a decimal from 0 to 50 (at most 4 decimals, like 1.5), got "-1"'],
    ] as const) {
      assert.throws(() => loadConfig(env), { name: 'ConfigError', message });
    }
  });
});
