/**
 * @module CoinGecko: `GET {base}/api/v3/simple/price?ids=bitcoin,tether&vs_currencies=usd,eur`
 * answers `{"bitcoin": {"usd": 64123.12, "eur": 59000}, "tether": {…}}`, prices as JSON numbers
 * (read from their text, never as floats). One request covers every pair. An id or currency it
 * does not know is simply absent from the answer.
 */
import { getJson, isJsonObject, member, outcomeOf, positivePrice, SourceError } from './source-http.ts';
import type { RateSource } from './rate-source.ts';

/** CoinGecko's public API. */
export const COINGECKO_URL = 'https://api.coingecko.com';

// CoinGecko names coins by id, not by ticker.
const COINGECKO_ID: Readonly<Record<string, string>> = {
  BTC: 'bitcoin',
  LTC: 'litecoin',
  ETH: 'ethereum',
  USDT: 'tether',
  USDC: 'usd-coin',
  TRX: 'tron',
  XRP: 'ripple',
  DAI: 'dai',
  DOGE: 'dogecoin',
  XMR: 'monero',
};

/** The CoinGecko source over `base` (its real address, or RATE_SOURCE_COINGECKO_URL). */
export function coingeckoSource(base = COINGECKO_URL): RateSource {
  return {
    name: 'coingecko',
    async quote(pairs, signal) {
      const known = pairs.filter((pair) => COINGECKO_ID[pair.short] !== undefined);
      if (known.length === 0) return pairs.map(() => ({ kind: 'not-quoted' }));
      const ids = [...new Set(known.map((pair) => COINGECKO_ID[pair.short]!))].join(',');
      const currencies = [...new Set(known.map((pair) => pair.currency.toLowerCase()))].join(',');
      let body;
      try {
        body = await getJson(`${base}/api/v3/simple/price?ids=${encodeURIComponent(ids)}&vs_currencies=${encodeURIComponent(currencies)}`, signal);
        if (!isJsonObject(body)) throw new SourceError('answered JSON that is not an object of coins');
      } catch (err) {
        return pairs.map((pair) => (COINGECKO_ID[pair.short] === undefined ? { kind: 'not-quoted' } : { kind: 'failed', reason: (err as Error).message }));
      }
      return pairs.map((pair) => {
        const id = COINGECKO_ID[pair.short];
        const price = id === undefined ? undefined : member(member(body, id), pair.currency.toLowerCase());
        return price === undefined ? { kind: 'not-quoted' } : outcomeOf(() => positivePrice(price));
      });
    },
  };
}
