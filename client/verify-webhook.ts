/**
 * @module Verifying a webhook the service sent (Standard Webhooks 1.0): the signature over
 * "webhook-id.webhook-timestamp.raw body" with the endpoint's secret, compared in constant time,
 * and a timestamp close to now, so a captured request cannot be replayed later.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './types.ts';

/** Why a request is not a genuine webhook; `message` says what is wrong. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

/** Options of verifyWebhook. */
export interface VerifyWebhookOptions {
  /** How far webhook-timestamp may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time in milliseconds (default Date.now()). */
  now?: number;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks a webhook and returns its event. Pass the body exactly as received (a string or the raw
 * bytes, never a re-serialised object), the request's headers (a Headers object or Node's
 * `req.headers`) and the endpoint's `whsec_…` secret. Throws WebhookVerificationError otherwise.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: HeaderBag, secret: string, options: VerifyWebhookOptions = {}): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^[0-9]{1,12}$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a whole number of seconds');
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(now - Number(timestamp)) > tolerance) throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s from now (a replay, or a wrong clock)`);
  if (typeof secret !== 'string' || !secret.startsWith('whsec_')) throw new WebhookVerificationError('the secret must be the whsec_… value the service gave when the endpoint was registered');
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder('utf-8', { fatal: true }).decode(rawBody);
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${id}.${timestamp}.${body}`).digest();
  // The header may list several signatures ("v1,… v1,…") while a secret is being rotated.
  const match = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!match) throw new WebhookVerificationError('webhook-signature does not match: check the secret, and verify the raw body bytes as received');
  return JSON.parse(body) as WebhookEvent;
}
