/** @module The configured rate sources, in RATE_SOURCES order, each at its real address or RATE_SOURCE_<NAME>_URL. */
import type { RatesConfig, RateSourceName } from '../config.ts';
import { bitstampSource } from './bitstamp-source.ts';
import { coinbaseSource } from './coinbase-source.ts';
import { coingeckoSource } from './coingecko-source.ts';
import { krakenSource } from './kraken-source.ts';
import type { RateSource } from './rate-source.ts';

const FACTORIES: Readonly<Record<RateSourceName, (base?: string) => RateSource>> = {
  coinbase: coinbaseSource,
  kraken: krakenSource,
  bitstamp: bitstampSource,
  coingecko: coingeckoSource,
};

/** Builds the sources the configuration names. */
export function createRateSources(config: Pick<RatesConfig, 'sources' | 'urls'>): RateSource[] {
  return config.sources.map((name) => FACTORIES[name](config.urls[name]));
}
