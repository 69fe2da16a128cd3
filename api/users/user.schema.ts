/** What an operator gives to manage dashboard users, and how a user is shown. */
import { z } from 'zod';
import { plainString } from '../shared/validation.ts';

/** An e-mail address as a sign-in name: trimmed, lower-cased. */
export const UserEmail = z.email('must be an e-mail address').max(254).transform((e) => e.trim().toLowerCase());

/** Input of `user create`. */
export const CreateUserInput = z.strictObject({
  merchantId: z.uuid('must be a merchant id (a UUID)'),
  email: UserEmail,
  role: z.enum(['owner', 'viewer'], { error: 'must be owner or viewer' }),
});
/** A validated `user create`. */
export type CreateUserInput = z.output<typeof CreateUserInput>;

/** Body of a sign-in: an e-mail and a password (any text up to 1,000 characters; checked, never echoed). */
export const SignInInput = z.strictObject({
  email: plainString().max(254, 'must be at most 254 characters'),
  password: z.string().min(1, 'is required').max(1000, 'must be at most 1000 characters'),
});
/** A validated sign-in. */
export type SignInInput = z.output<typeof SignInInput>;

/** A dashboard user as the CLI and the dashboard show it. */
export interface UserOutput {
  id: string;
  merchantId: string;
  email: string;
  role: 'owner' | 'viewer';
  createdAt: string;
}
