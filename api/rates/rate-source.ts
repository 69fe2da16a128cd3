/** @module The seam every rate source implements: ask for pairs, get one outcome per pair. */

import type { RateSourceName } from '../config.ts';

export type { RateSourceName };

/** An asset ticker (BTC, USDT) priced in an ISO 4217 currency (USD). */
export interface RatePair {
  short: string;
  currency: string;
}

/**
 * What a source said about one pair: a price (currency units per one asset unit, a positive
 * decimal string); that it does not quote the pair (it answered, and the pair is not among its
 * markets); or that it could not be used (down, slow, an error page, a price that is not positive).
 */
export type PairOutcome = { kind: 'quote'; value: string } | { kind: 'not-quoted' } | { kind: 'failed'; reason: string };

/** One rate source. */
export interface RateSource {
  readonly name: RateSourceName;
  /** Asks for `pairs` (batched as the source's API allows); one outcome per pair, in order. */
  quote(pairs: readonly RatePair[], signal: AbortSignal): Promise<PairOutcome[]>;
}
