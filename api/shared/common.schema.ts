/** Schemas shared by several resources, in requests and responses. */
import { z } from 'zod';
import { AMOUNT_PATTERN, isAboveZero, isAtMostMaxAmount, MAX_AMOUNT_TEXT } from './money.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from './list-page.ts';
import { plainString, text } from './validation.ts';

/** A request amount: a decimal string, positive, at most one billion. */
export const AmountInput = z
  .string({
    error: (issue) =>
      issue.input === undefined
        ? 'is required'
        : typeof issue.input === 'number'
          ? 'must be a decimal number in a string, like "10.50" (JSON numbers lose precision, so they are refused)'
          : 'must be a decimal number in a string, like "10.50"',
  })
  .max(40, 'must be at most 40 characters')
  .regex(AMOUNT_PATTERN, 'must be digits with an optional decimal point, like "10.50" (no sign, exponent or spaces)')
  .refine((s) => !AMOUNT_PATTERN.test(s) || isAboveZero(s), 'must be greater than zero')
  .refine((s) => !AMOUNT_PATTERN.test(s) || isAtMostMaxAmount(s), `must be at most ${MAX_AMOUNT_TEXT}`)
  .meta({ description: 'Decimal amount in a string, at most the asset\'s `decimals` fractional digits.', examples: ['0.015'] });

/** The asset of a request: only `short` and `network` are read. */
export const AssetInput = z
  .strictObject({
    short: plainString().min(1, 'must not be empty').max(20, 'must be at most 20 characters').meta({ examples: ['BTC'] }),
    network: plainString().min(1, 'must not be empty').max(40, 'must be at most 40 characters').meta({ examples: ['bitcoin'] }),
    name: plainString().max(200).optional().meta({ description: 'Ignored: accepted so a client may send back an asset it received.' }),
    logoUrl: plainString().max(2000).optional().meta({ description: 'Ignored, like `name`.' }),
    decimals: z.number().optional().meta({ description: 'Ignored, like `name`.' }),
  })
  .meta({ description: 'Which asset, on which network. See GET /v2/assets for the served pairs.' });

/** The customer object of requests and responses. */
export const Customer = z
  .strictObject({
    id: z.number().int('must be a whole number').min(0, 'must not be negative').max(Number.MAX_SAFE_INTEGER).optional(),
    name: text(200).optional(),
    email: z.email('must be an e-mail address').max(254, 'must be at most 254 characters').optional(),
  })
  .meta({ id: 'Customer', description: 'The merchant\'s customer; every field optional.' });

/** The full asset object of responses. */
export const AssetOutput = z
  .object({
    short: z.string(),
    network: z.string(),
    name: z.string(),
    logoUrl: z.url(),
    decimals: z.number().int().min(0).meta({ description: 'Extension: fractional digits of every amount in this asset.' }),
  })
  .meta({ id: 'Asset' });

/** The merchant object of responses. */
export const MerchantOutput = z
  .object({
    id: z.uuid(),
    name: z.string(),
    siteUrl: z.string().nullable(),
    logoUrl: z.string().nullable(),
    email: z.email().nullable(),
  })
  .meta({ id: 'Merchant' });

/** The contract's error body. */
export const ErrorOutput = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'Stable, kebab-case.', examples: ['validation-failed'] }),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .meta({ id: 'Error' });

/** An ISO 8601 UTC timestamp with milliseconds. */
export const Timestamp = z.iso.datetime().meta({ examples: ['2026-11-21T10:15:30.123Z'] });

/** The largest page number a list query takes. */
const MAX_PAGE = 999_999_999;

/** A page/limit pair of list queries, as strings straight from the query string. */
export function pageQuery(minPage: number) {
  const whole = (min: number, max: number) =>
    z
      .string({ error: 'must be given once, as a whole number' })
      .regex(/^[0-9]+$/, `must be a whole number from ${min} to ${max}`)
      .refine((s) => s.length <= 9 && Number(s) >= min && Number(s) <= max, `must be from ${min} to ${max}`)
      .transform(Number);
  return {
    page: whole(minPage, MAX_PAGE).optional().meta({ description: `Page number, from ${minPage}.`, type: 'integer', minimum: minPage, maximum: MAX_PAGE }),
    limit: whole(1, MAX_LIMIT).optional().meta({ description: `Records per page, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`, type: 'integer', minimum: 1, maximum: MAX_LIMIT }),
  };
}

/** An array filter of a list query. */
export function filterValues<T extends z.ZodType>(description: string, item: T) {
  return z.array(item).max(100, 'at most 100 values').optional().meta({ description });
}

/** A free-form value of an array filter. */
export const FilterValue = plainString().max(200, 'each value must be at most 200 characters');
