/**
 * @module Coinbase: `GET {base}/v2/exchange-rates?currency=<SHORT>` answers
 * `{"data": {"currency": "BTC", "rates": {"USD": "64123.45", "EUR": "…", …}}}`: how many units of
 * each currency one unit of the asset buys, as strings. One request per asset covers every currency.
 */
import { eachLimited, getJson, member, outcomeOf, positivePrice, SOURCE_CONCURRENCY, SourceError } from './source-http.ts';
import type { PairOutcome, RatePair, RateSource } from './rate-source.ts';

/** Coinbase's public API. */
export const COINBASE_URL = 'https://api.coinbase.com';

/** The Coinbase source over `base` (its real address, or RATE_SOURCE_COINBASE_URL). */
export function coinbaseSource(base = COINBASE_URL): RateSource {
  return {
    name: 'coinbase',
    async quote(pairs, signal) {
      const outcomes = new Map<RatePair, PairOutcome>();
      const assets = [...new Set(pairs.map((pair) => pair.short))];
      await eachLimited(assets, SOURCE_CONCURRENCY, async (short) => {
        const mine = pairs.filter((pair) => pair.short === short);
        try {
          const body = await getJson(`${base}/v2/exchange-rates?currency=${encodeURIComponent(short)}`, signal);
          const data = member(body, 'data');
          if (member(data, 'currency') !== short) throw new SourceError(`answered without data.currency "${short}"`);
          const rates = member(data, 'rates');
          if (rates === undefined) throw new SourceError('answered without data.rates');
          for (const pair of mine) {
            const price = member(rates, pair.currency);
            outcomes.set(pair, price === undefined ? { kind: 'not-quoted' } : outcomeOf(() => positivePrice(price)));
          }
        } catch (err) {
          // An asset Coinbase does not know: 400 {"errors": [{"id": "invalid_request", …}]}. Anything
          // else (its own 404 {"errors": [{"id": "not_found"}]} for a wrong path, a proxy's page, a
          // wrong RATE_SOURCE_COINBASE_URL) says nothing of the asset.
          const errors = err instanceof SourceError && err.status === 400 ? member(err.body, 'errors') : undefined;
          const notQuoted = Array.isArray(errors) && member(errors[0], 'id') === 'invalid_request';
          for (const pair of mine) outcomes.set(pair, notQuoted ? { kind: 'not-quoted' } : { kind: 'failed', reason: (err as Error).message });
        }
      });
      return pairs.map((pair) => outcomes.get(pair)!);
    },
  };
}
