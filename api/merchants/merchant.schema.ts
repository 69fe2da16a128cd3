/** What an operator gives to create a merchant. */
import { z } from 'zod';
import { httpUrl, plainString, text } from '../shared/validation.ts';

// An optional http(s) scheme, a host name (letters, digits, hyphens, dots), an optional port, then
// an optional path, query or fragment.
const SITE_ADDRESS = /^(https?:\/\/)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::[0-9]{1,5})?(?:[/?#]\S*)?$/i;

/** Input of `merchant create`. */
export const CreateMerchantInput = z.strictObject({
  name: text(200),
  // Missing (where required: the settings' edit) is told as such, not as a malformed address.
  email: z.email({ error: (issue) => (issue.input === undefined ? undefined : 'must be an e-mail address') }).max(254).optional(),
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

/** The shop's profile as the dashboard's settings edit it: every field given, null clears an optional one. */
export const UpdateMerchantInput = z.strictObject({
  name: CreateMerchantInput.shape.name,
  email: CreateMerchantInput.shape.email.unwrap().nullable(),
  siteUrl: CreateMerchantInput.shape.siteUrl.unwrap().nullable(),
  logoUrl: CreateMerchantInput.shape.logoUrl.unwrap().nullable(),
});
/** A validated profile update. */
export type UpdateMerchantInput = z.output<typeof UpdateMerchantInput>;

/** Body of a key rotation from the dashboard: how long the old pair keeps working. */
export const RotateKeysInput = z.strictObject({
  graceSeconds: z
    .number()
    .int('must be a whole number of seconds')
    .min(0, 'must be at least 0')
    .max(90 * 86400, 'must be at most 7776000 seconds (90 days)'),
});
/** A validated key rotation. */
export type RotateKeysInput = z.output<typeof RotateKeysInput>;
