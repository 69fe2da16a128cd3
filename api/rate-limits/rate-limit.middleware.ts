/**
 * @module Rate limits on routes: `RateLimit-Policy` and `RateLimit` headers (the IETF httpapi
 * draft's structured fields) on every limited answer, and `429 rate-limited` with `Retry-After`
 * past the limit.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { RateLimitResult } from './rate-limit-result.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { ApiError } from '../http/api-error.ts';

/** A limit on a group of routes. */
export interface RouteLimit {
  /** The policy's name in the headers: `merchant` or `public`. */
  policy: string;
  /** Requests per minute; 0 turns the limit off. */
  perMinute: number;
  /** Whom a request is counted against. */
  bucketOf(req: Request, res: Response): string;
}

/** Counts each request against the limit; past it, answers 429. */
export function rateLimit(limiter: RateLimiter, limit: RouteLimit): RequestHandler {
  if (limit.perMinute === 0) return (_req, _res, next) => next();
  const policy = `"${limit.policy}";q=${limit.perMinute};w=60`;
  const answer = (result: RateLimitResult, res: Response, next: NextFunction): void => {
    res.setHeader('RateLimit-Policy', policy);
    res.setHeader('RateLimit', `"${limit.policy}";r=${result.remaining};t=${result.resetSeconds}`);
    if (result.allowed) {
      next();
      return;
    }
    res.setHeader('Retry-After', String(result.resetSeconds));
    next(new ApiError(429, 'rate-limited', `Too many requests: at most ${limit.perMinute} a minute ${limit.policy === 'merchant' ? 'per API key' : 'per client address'}. Try again in ${result.resetSeconds} s.`));
  };
  return (req, res, next) => {
    // Most answers come from memory: nothing is awaited then, and next() runs in the same turn.
    const counted = limiter.hit(`${limit.policy}:${limit.bucketOf(req, res)}`, limit.perMinute);
    if (counted instanceof Promise) counted.then((result) => answer(result, res, next), next);
    else answer(counted, res, next);
  };
}
