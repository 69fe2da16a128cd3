/** What an operator gives to create a merchant. */
import { z } from 'zod';
import { httpUrl, plainString, text } from '../shared/validation.ts';

// An optional http(s) scheme, a host name (letters, digits, hyphens, dots), an optional port, then
// an optional path, query or fragment.
const SITE_ADDRESS = /^(https?:\/\/)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::[0-9]{1,5})?(?:[/?#]\S*)?$/i;

/** Input of `merchant create`. */
export const CreateMerchantInput = z.strictObject({
  name: text(200),
  email: z.email('must be an e-mail address').max(254).optional(),
  // The specification lets a site address come without a scheme ("shop.example.com"); any scheme
  // other than http(s) (javascript:, data:) is refused, since a payer's page may link to it.
  siteUrl: plainString()
    .max(2000)
    .regex(SITE_ADDRESS, 'must be a site address such as shop.example.com or https://shop.example.com')
    .optional(),
  logoUrl: httpUrl().optional(),
});
/** A validated merchant creation request. */
export type CreateMerchantInput = z.output<typeof CreateMerchantInput>;
