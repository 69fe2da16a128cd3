/**
 * @module A refund's claim token: HMAC-SHA256 of its id under a key derived from the server key, so it
 * is never stored (a copied database does not reveal it), is the same on every instance, and is
 * checked in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Derives and checks claim tokens. */
export function createClaimTokens(serverKey: Buffer) {
  const key = createHmac('sha256', serverKey).update('refund-claim-tokens/v1').digest();
  const tokenOf = (refundId: string) => createHmac('sha256', key).update(refundId).digest('base64url');
  return {
    /** The token of a refund. */
    tokenOf,
    /** Whether `token` is the refund's: lengths first, then the bytes in constant time. */
    matches(refundId: string, token: string): boolean {
      const expected = Buffer.from(tokenOf(refundId));
      const given = Buffer.from(token);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

/** Claim tokens. */
export type ClaimTokens = ReturnType<typeof createClaimTokens>;
