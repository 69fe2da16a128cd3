/**
 * @module Bitstamp: `GET {base}/api/v2/ticker/btcusd/` answers `{"last": "64123", "bid": …,
 * "ask": …, "timestamp": "…", …}`; the price is `last`. A pair it does not list is a 404, an HTML
 * page like any other 404; so a 404 counts as "not listed" only for a market absent from its list of
 * markets (`GET {base}/api/v2/trading-pairs-info/`, a JSON array of `{"url_symbol": "btcusd", …}`)
 * read at the same address, not for a wrong RATE_SOURCE_BITSTAMP_URL or a proxy's page.
 */
import { eachLimited, getJson, member, outcomeOf, positivePrice, SOURCE_CONCURRENCY, SourceError } from './source-http.ts';
import type { PairOutcome, RateSource } from './rate-source.ts';

/** Bitstamp's public API. */
export const BITSTAMP_URL = 'https://www.bitstamp.net';

/** How long the list of markets is trusted before it is read again. */
const MARKETS_TTL_MS = 3_600_000;

/** The Bitstamp source over `base` (its real address, or RATE_SOURCE_BITSTAMP_URL). */
export function bitstampSource(base = BITSTAMP_URL): RateSource {
  let markets: { symbols: ReadonlySet<string>; at: number } | undefined;

  // The markets Bitstamp lists (their url_symbol, "btcusd"), read at most once an hour; a string
  // saying why when the list could not be read at `base` (so a 404 says nothing of a pair).
  async function listed(signal: AbortSignal): Promise<ReadonlySet<string> | string> {
    if (markets && Date.now() - markets.at < MARKETS_TTL_MS) return markets.symbols;
    let body;
    try {
      body = await getJson(`${base}/api/v2/trading-pairs-info/`, signal);
    } catch (err) {
      return `its list of markets ${(err as Error).message}`;
    }
    if (!Array.isArray(body)) return 'its list of markets is not a JSON array';
    const symbols = new Set(body.map((market) => member(market, 'url_symbol')).filter((symbol): symbol is string => typeof symbol === 'string'));
    markets = { symbols, at: Date.now() };
    return symbols;
  }

  return {
    name: 'bitstamp',
    async quote(pairs, signal) {
      const outcomes: PairOutcome[] = Array.from(pairs, () => ({ kind: 'failed', reason: 'not asked' }));
      const missing: Array<{ index: number; market: string }> = [];
      await eachLimited([...pairs.keys()], SOURCE_CONCURRENCY, async (index) => {
        const pair = pairs[index]!;
        const market = `${pair.short}${pair.currency}`.toLowerCase();
        try {
          const body = await getJson(`${base}/api/v2/ticker/${encodeURIComponent(market)}/`, signal);
          outcomes[index] = outcomeOf(() => positivePrice(member(body, 'last')));
        } catch (err) {
          if (err instanceof SourceError && err.status === 404) missing.push({ index, market });
          else outcomes[index] = { kind: 'failed', reason: (err as Error).message };
        }
      });
      if (missing.length > 0) {
        // A 404 is "not listed" only for a market the list lacks: a listed one (or any, when the list
        // cannot be read) that 404s is the source failing, never an unsupported currency.
        const symbols = await listed(signal);
        for (const { index, market } of missing) {
          if (typeof symbols === 'string') outcomes[index] = { kind: 'failed', reason: `answered HTTP 404, and ${symbols}` };
          else outcomes[index] = symbols.has(market) ? { kind: 'failed', reason: `answered HTTP 404 for ${market}, a market it lists` } : { kind: 'not-quoted' };
        }
      }
      return outcomes;
    },
  };
}
