/**
 * @module Merchant authentication: the API-KEY header on every merchant endpoint, and on POSTs an
 * X-HMAC signature over the exact body bytes, checked before the body is parsed.
 */
import type { RequestHandler } from 'express';
import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { Merchant, MerchantCredentials } from './merchant.store.ts';
import type { IdempotencyService } from '../idempotency/idempotency.service.ts';
import { hashApiKey } from './merchant-keys.ts';
import type { MerchantService } from './merchant.service.ts';
import type { RateLimiter } from '../rate-limits/rate-limiter.ts';
import type { Logger } from '../shared/logger.ts';
import { ApiError } from '../http/api-error.ts';
import { chain } from '../http/chain.ts';
import { idempotentPost } from '../idempotency/idempotency.middleware.ts';
import { parseJsonBody, readRawBody, requireJsonContentType } from '../http/json-body.ts';
import { rateLimit } from '../rate-limits/rate-limit.middleware.ts';

/** What merchant requests go through besides the keys. */
export interface MerchantGuards {
  rateLimiter: RateLimiter;
  /** Requests per minute per API key; 0 turns the limit off. */
  perMinute: number;
  idempotency: IdempotencyService;
  logger: Logger;
}

declare global {
  namespace Express {
    interface Locals {
      /** The authenticated merchant. */
      merchant: Merchant;
      /** Its credentials, for signature checks. */
      credentials: MerchantCredentials;
      /** The hash of the API key it came with (its rate-limit bucket). */
      apiKeyHash: string;
    }
  }
}

const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/i;

/** Creates the authentication middleware for merchant endpoints. */
export function createMerchantAuth(merchants: MerchantService, guards: MerchantGuards) {
  const authenticate: RequestHandler = async (req, res, next) => {
    // Merchant answers (customers' names and e-mails, balances, and the refusals too) must not sit in any cache.
    res.setHeader('Cache-Control', 'no-store');
    const key = req.headers['api-key'] as string | undefined;
    if (!key) {
      next(new ApiError(401, 'missing-api-key', 'Send your API key in the API-KEY header.'));
      return;
    }
    const keyHash = hashApiKey(key);
    // A key recognised a moment ago answers without awaiting anything.
    const credentials = merchants.recognised(keyHash) ?? (await merchants.authenticate(key));
    if (!credentials) {
      next(new ApiError(401, 'invalid-api-key', 'The API key in the API-KEY header is not valid.'));
      return;
    }
    res.locals.merchant = credentials.merchant;
    res.locals.credentials = credentials;
    res.locals.apiKeyHash = keyHash;
    next();
  };
  // Counted per API key, once the key is known to be valid (an unknown key is refused before it costs a count).
  const limited = rateLimit(guards.rateLimiter, { policy: 'merchant', perMinute: guards.perMinute, bucketOf: (_req, res) => res.locals.apiKeyHash });
  const apiKeyGuard = chain(authenticate, limited);

  // The secret as a key object, made once per remembered credentials rather than on every POST.
  const signingKeys = new WeakMap<MerchantCredentials, KeyObject>();
  const signingKeyOf = (credentials: MerchantCredentials): KeyObject => {
    let key = signingKeys.get(credentials);
    if (!key) {
      key = createSecretKey(Buffer.from(merchants.secretKeyOf(credentials), 'utf8'));
      signingKeys.set(credentials, key);
    }
    return key;
  };

  const verifySignature: RequestHandler = (req, res, next) => {
    const signature = (req.headers['x-hmac'] as string | undefined)?.trim();
    if (!signature) {
      next(new ApiError(401, 'missing-signature', 'POST and DELETE requests must carry X-HMAC: the hex HMAC-SHA256 of the body bytes as sent (of no bytes when there is no body), keyed with your secret key.'));
      return;
    }
    const body: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const expected = createHmac('sha256', signingKeyOf(res.locals.credentials)).update(body).digest();
    // The pattern is the length check before the constant-time comparison.
    if (!SIGNATURE_PATTERN.test(signature) || !timingSafeEqual(Buffer.from(signature, 'hex'), expected)) {
      next(
        new ApiError(
          401,
          'invalid-signature',
          'X-HMAC does not match the body. Sign the exact body bytes as sent (not a re-serialised copy) with HMAC-SHA256 and your secret key, hex-encoded.',
        ),
      );
      return;
    }
    next();
  };

  return {
    /** Requires a valid API-KEY (every merchant endpoint), counted against the merchant rate limit. */
    apiKey: [apiKeyGuard] as RequestHandler[],
    /**
     * For POSTs: API key and rate limit, JSON content type, size limit, signature over the raw bytes,
     * the Idempotency-Key (if sent), then parsing.
     */
    signedJson: [chain(apiKeyGuard, requireJsonContentType, readRawBody, verifySignature, idempotentPost(guards.idempotency, guards.logger), parseJsonBody)] as RequestHandler[],
    /** For requests whose body is not read (a DELETE, a redelivery): API key, rate limit and X-HMAC over the bytes sent, usually none. */
    signed: [chain(apiKeyGuard, readRawBody, verifySignature)] as RequestHandler[],
  };
}

/** The merchant authentication middleware. */
export type MerchantAuth = ReturnType<typeof createMerchantAuth>;
