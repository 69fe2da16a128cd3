/**
 * @module Kraken: `GET {base}/0/public/Ticker?pair=XBTUSD` answers
 * `{"error": [], "result": {"XXBTZUSD": {"c": ["64123.40000", "0.0015"], …}}}`; the last trade
 * price is `c[0]` of the one pair in `result`, whatever Kraken names its key (XXBTZUSD, USDTZUSD).
 * A pair it does not list is `{"error": ["EQuery:Unknown asset pair"]}`, with status 200.
 */
import { eachLimited, getJson, isJsonObject, member, outcomeOf, positivePrice, SOURCE_CONCURRENCY, SourceError } from './source-http.ts';
import type { PairOutcome, RateSource } from './rate-source.ts';

/** Kraken's public API. */
export const KRAKEN_URL = 'https://api.kraken.com';

// Kraken's own names for the assets that differ from their tickers.
const KRAKEN_ASSET: Readonly<Record<string, string>> = { BTC: 'XBT', DOGE: 'XDG' };

/** The pair name Kraken's Ticker takes (XBTUSD for BTC in USD). */
export function krakenPair(short: string, currency: string): string {
  return `${KRAKEN_ASSET[short] ?? short}${currency}`;
}

/** The Kraken source over `base` (its real address, or RATE_SOURCE_KRAKEN_URL). */
export function krakenSource(base = KRAKEN_URL): RateSource {
  return {
    name: 'kraken',
    async quote(pairs, signal) {
      const outcomes: PairOutcome[] = Array.from(pairs, () => ({ kind: 'failed', reason: 'not asked' }));
      await eachLimited([...pairs.keys()], SOURCE_CONCURRENCY, async (index) => {
        const pair = pairs[index]!;
        try {
          const body = await getJson(`${base}/0/public/Ticker?pair=${encodeURIComponent(krakenPair(pair.short, pair.currency))}`, signal);
          const errors = member(body, 'error');
          if (!Array.isArray(errors)) throw new SourceError('answered without an "error" list');
          if (errors.some((e) => typeof e === 'string' && e.startsWith('EQuery:Unknown asset pair'))) {
            outcomes[index] = { kind: 'not-quoted' };
            return;
          }
          if (errors.length > 0) throw new SourceError(`answered ${errors.filter((e) => typeof e === 'string').join(', ')}`.slice(0, 200));
          const result = member(body, 'result');
          const keys = isJsonObject(result) ? Object.keys(result) : [];
          if (keys.length !== 1) throw new SourceError(`answered ${keys.length} pairs in "result" where one was asked`);
          const last = member(member(result, keys[0]!), 'c');
          outcomes[index] = outcomeOf(() => positivePrice(Array.isArray(last) ? last[0] : undefined));
        } catch (err) {
          outcomes[index] = { kind: 'failed', reason: (err as Error).message };
        }
      });
      return outcomes;
    },
  };
}
