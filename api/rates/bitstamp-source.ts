/**
 * @module Bitstamp: `GET {base}/api/v2/ticker/btcusd/` answers `{"last": "64123", "bid": …,
 * "ask": …, "timestamp": "…", …}`; the price is `last`. A pair it does not list is a 404.
 */
import { eachLimited, getJson, member, outcomeOf, positivePrice, SOURCE_CONCURRENCY, SourceError } from './source-http.ts';
import type { PairOutcome, RateSource } from './rate-source.ts';

/** Bitstamp's public API. */
export const BITSTAMP_URL = 'https://www.bitstamp.net';

/** The Bitstamp source over `base` (its real address, or RATE_SOURCE_BITSTAMP_URL). */
export function bitstampSource(base = BITSTAMP_URL): RateSource {
  return {
    name: 'bitstamp',
    async quote(pairs, signal) {
      const outcomes: PairOutcome[] = Array.from(pairs, () => ({ kind: 'failed', reason: 'not asked' }));
      await eachLimited([...pairs.keys()], SOURCE_CONCURRENCY, async (index) => {
        const pair = pairs[index]!;
        const market = `${pair.short}${pair.currency}`.toLowerCase();
        try {
          const body = await getJson(`${base}/api/v2/ticker/${encodeURIComponent(market)}/`, signal);
          outcomes[index] = outcomeOf(() => positivePrice(member(body, 'last')));
        } catch (err) {
          outcomes[index] = err instanceof SourceError && err.status === 404 ? { kind: 'not-quoted' } : { kind: 'failed', reason: (err as Error).message };
        }
      });
      return outcomes;
    },
  };
}
