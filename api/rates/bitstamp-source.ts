/**
 * @module Bitstamp: `GET {base}/api/v2/ticker/btcusd/` answers `{"last": "64123", "bid": …,
 * "ask": …, "timestamp": "…", …}`; the price is `last`. A pair it does not list is a 404, an HTML
 * page like any other 404; so a round whose pairs were all 404 asks for the list of markets
 * (`GET {base}/api/v2/trading-pairs-info/`, a JSON array) at the same address: only if that answers
 * were the 404s "not listed" rather than a wrong RATE_SOURCE_BITSTAMP_URL or a proxy's page.
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
      if (outcomes.some((o) => o.kind === 'not-quoted') && !outcomes.some((o) => o.kind === 'quote')) {
        const reason = await marketsUnreadable(base, signal);
        if (reason) return outcomes.map((o) => (o.kind === 'not-quoted' ? { kind: 'failed', reason: `answered HTTP 404, and ${reason}` } : o));
      }
      return outcomes;
    },
  };
}

// Why the list of markets could not be read at `base` (so the 404s say nothing of the pairs), or
// undefined when it could.
async function marketsUnreadable(base: string, signal: AbortSignal): Promise<string | undefined> {
  try {
    const markets = await getJson(`${base}/api/v2/trading-pairs-info/`, signal);
    return Array.isArray(markets) ? undefined : 'its list of markets is not a JSON array';
  } catch (err) {
    return `its list of markets ${(err as Error).message}`;
  }
}
