/** Request and response schemas of fiat prices and GET /v2/rates; the OpenAPI document is generated from these. */
import { z } from 'zod';
import { AmountInput, Timestamp } from '../shared/common.schema.ts';
import { fractionDigits } from '../shared/money.ts';
import { isCurrencyCode, isNonCurrencyCode, minorDigits } from './currencies.ts';

/** An ISO 4217 currency code, upper case. */
export const CurrencyCode = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be an ISO 4217 currency code in a string, like "USD"') })
  .refine(isCurrencyCode, {
    error: (issue) =>
      isNonCurrencyCode(String(issue.input))
        ? `is the ISO 4217 code of a precious metal, fund or testing unit, not a currency prices are given in: use one like "USD", "EUR" or "JPY"`
        : 'must be an ISO 4217 currency code in upper case, like "USD", "EUR" or "JPY"',
  })
  .meta({ description: 'ISO 4217 currency code, upper case.', examples: ['USD'] });

/** A price in a fiat currency, with at most the currency's minor digits. */
export const PriceInput = z
  .strictObject({ amount: AmountInput.meta({ description: 'Decimal amount in a string, at most the currency\'s minor digits (2 for USD and EUR, 0 for JPY).', examples: ['19.99'] }), currency: CurrencyCode })
  .superRefine((price, ctx) => {
    const digits = minorDigits(price.currency);
    if (digits !== undefined && fractionDigits(price.amount) > digits) {
      ctx.addIssue({ code: 'custom', path: ['amount'], message: `must have at most ${digits} decimal places for ${price.currency}` });
    }
  })
  .meta({ id: 'PriceInput', description: 'Extension: the price in a fiat currency, converted to the asset at the current rate (instead of `amount`).' });
/** A validated fiat price. */
export type PriceInput = z.output<typeof PriceInput>;

/** A price as the record shows it: as sent. */
export const PriceOutput = z
  .object({ amount: z.string(), currency: z.string() })
  .meta({ id: 'Price', description: 'Extension: the price the merchant set in a fiat currency, as sent; null on a payment priced in the asset.' });

/** The rate a payment was converted at, locked for its life. */
export const RateOutput = z
  .object({
    value: z.string().meta({ description: 'Currency units per one asset unit: the median of the fresh quotes, before any spread.', examples: ['64123.45'] }),
    currency: z.string(),
    sources: z.array(z.string()).meta({ description: 'The sources whose quotes the median used.', examples: [['coinbase', 'kraken']] }),
    at: Timestamp.meta({ description: 'When the oldest quote used was fetched.' }),
  })
  .meta({ id: 'Rate', description: 'Extension: the rate the payment was converted at; null on a payment priced in the asset.' });

/** Query of GET /v2/rates. */
export const RatesQuery = z.object({
  currency: CurrencyCode.optional().meta({ description: 'ISO 4217 currency code, upper case (default USD).' }),
});

/** Response of GET /v2/rates. */
export const RatesOutput = z
  .object({
    currency: z.string(),
    data: z.array(
      z.object({
        asset: z.object({ short: z.string(), network: z.string() }),
        rate: z.string().meta({ description: 'Currency units per one asset unit: the median of the fresh quotes, before any spread.' }),
        sources: z.array(z.string()),
        at: Timestamp.meta({ description: 'When the oldest quote used was fetched.' }),
      }),
    ),
  })
  .meta({ id: 'RateList', description: 'Every served asset that has a fresh rate in the currency.' });
/** The rate list as the API returns it. */
export type RatesOutput = z.output<typeof RatesOutput>;
