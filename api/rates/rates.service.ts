/** Fiat-price use cases: convert a price to an asset amount at the current rate, and list the rates. */
import type { Asset, AssetRegistry } from '../networks/asset-registry.ts';
import { isoTime } from '../shared/clock.ts';
import { assetAmountFor } from './price-conversion.ts';
import type { Rate, RateBook } from './rate-book.ts';
import type { PriceInput, RatesOutput } from './rates.schema.ts';

/** What the rate use cases need. */
export interface RateServiceDeps {
  book: RateBook;
  registry: AssetRegistry;
  /** RATE_SPREAD_PERCENT, a decimal string. */
  spreadPercent: string;
}

/** Creates the rate use cases. */
export function createRateService(deps: RateServiceDeps) {
  const { book, registry } = deps;
  const served = () => registry.assets().filter((asset) => registry.isServed(asset));
  return {
    /**
     * The amount of `asset` that pays `price` now (the spread added, rounded up to the asset's
     * decimals) and the rate used; throws UnsupportedCurrency or RatesUnavailable.
     */
    async priceInAsset(price: PriceInput, asset: Asset): Promise<{ amount: string; rate: Rate }> {
      const rate = await book.rate(asset.short, price.currency);
      return { amount: assetAmountFor(price.amount, deps.spreadPercent, rate.value, asset.decimals), rate };
    },

    /**
     * The amount of `asset` a refund of `price` sends now: at the current rate, without the spread
     * (the spread is the merchant's margin on sales, not on what they give back), rounded up to the
     * asset's decimals like a payment's, so the payer gets at least the price. Throws like priceInAsset.
     */
    async refundInAsset(price: PriceInput, asset: Asset): Promise<{ amount: string; rate: Rate }> {
      const rate = await book.rate(asset.short, price.currency);
      return { amount: assetAmountFor(price.amount, '0', rate.value, asset.decimals), rate };
    },

    /** GET /v2/rates: every served asset with a fresh rate in `currency`. */
    async list(currency: string): Promise<RatesOutput> {
      const assets = served();
      const rates = await book.rates(currency, [...new Set(assets.map((asset) => asset.short))]);
      return {
        currency,
        data: assets.flatMap((asset) => {
          const rate = rates.get(asset.short);
          return rate ? [{ asset: { short: asset.short, network: asset.network }, rate: rate.value, sources: [...rate.sources], at: isoTime(rate.at) }] : [];
        }),
      };
    },

    /** How each rate source stands, for /health. */
    health() {
      return Object.fromEntries(
        book.health().map(({ name, status, lastSuccessAt, error }) => [name, { status, lastSuccessAt: lastSuccessAt === null ? null : isoTime(lastSuccessAt), error }]),
      );
    },
  };
}

/** The rate use cases' interface. */
export type RateService = ReturnType<typeof createRateService>;
