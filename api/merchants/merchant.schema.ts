/** What an operator gives to create a merchant. */
import { z } from 'zod';
import { httpUrl, text } from '../http/validate.ts';

/** Input of `merchant create`. */
export const CreateMerchantInput = z.strictObject({
  name: text(200),
  email: z.email('must be an e-mail address').max(254).optional(),
  // The specification lets a site address come without a scheme ("shop.example.com").
  siteUrl: z
    .string()
    .max(2000)
    .regex(/^(https?:\/\/)?[^\s/$.?#][^\s]*$/i, 'must be a site address such as shop.example.com or https://shop.example.com')
    .optional(),
  logoUrl: httpUrl().optional(),
});
/** A validated merchant creation request. */
export type CreateMerchantInput = z.output<typeof CreateMerchantInput>;
