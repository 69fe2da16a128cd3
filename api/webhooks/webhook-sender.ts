/**
 * @module Sending one webhook: Standard Webhooks headers and signature over the exact body bytes,
 * one POST with a deadline, no redirect followed, the answer's body read only up to a small cap,
 * and the public-address rule applied to the address actually connected to.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { hostOf, isPublicAddress, publicOnlyLookup } from './webhook-address.ts';

/** How much of an endpoint's answer is read (the rest is discarded with the connection). */
const MAX_ANSWER_BYTES = 1024;
const USER_AGENT = 'crypto-checkout-webhooks/1';

/** The signing key of a `whsec_…` secret: the base64 after the prefix. */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/** The `webhook-signature` header value: `v1,` and the base64 HMAC-SHA256 of "id.timestamp.body". */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** What one attempt came to. */
export interface SendOutcome {
  /** The HTTP status; null when no answer came. */
  statusCode: number | null;
  durationMs: number;
  /** What went wrong; null on a 2xx. */
  error: string | null;
}

/** How to send. */
export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

function describe(err: NodeJS.ErrnoException, timeoutMs: number): string {
  if (err.code === 'ETIMEDOUT') return `no answer within ${timeoutMs / 1000} s`;
  if (err.code === 'ECONNREFUSED') return 'connection refused';
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return 'the host does not resolve';
  if (err.code === 'EPRIVATEADDRESS') return err.message;
  if (err.code === 'ECONNRESET') return 'connection reset before an answer';
  return err.message || String(err.code);
}

/** POSTs a signed event to `url`; never throws. `now` gives the signature's time (the wall clock). */
export function sendWebhook(url: string, event: { id: string; body: string; secret: string }, options: SendOptions, now: () => number = Date.now): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ statusCode, durationMs: elapsed(), error });
    };
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return finish(null, 'the endpoint URL is not valid');
    }
    const host = hostOf(target);
    if (!options.allowPrivate && net.isIP(host) && !isPublicAddress(host)) {
      return finish(null, `${host} is not a public address; not sent`);
    }
    const timestamp = Math.floor(now() / 1000);
    const body = Buffer.from(event.body, 'utf8');
    const transport = target.protocol === 'https:' ? https : http;
    const request = transport.request(target, {
      method: 'POST',
      agent: false,
      lookup: publicOnlyLookup(options.allowPrivate),
      headers: {
        'content-type': 'application/json',
        'content-length': body.length,
        'user-agent': USER_AGENT,
        'webhook-id': event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(event.secret, event.id, timestamp, event.body),
      },
    });
    // One deadline for the whole exchange: connecting, sending and the answer's head.
    const deadline = setTimeout(() => {
      request.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }));
    }, options.timeoutMs);
    request.on('error', (err: NodeJS.ErrnoException) => finish(null, describe(err, options.timeoutMs)));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      let read = 0;
      const done = () => {
        response.destroy();
        request.destroy();
        if (status >= 200 && status < 300) return finish(status, null);
        const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
        finish(status, `the endpoint answered ${status}${redirect}`);
      };
      // The status decides; the body is read only so that a small answer ends cleanly.
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= MAX_ANSWER_BYTES) done();
      });
      response.on('end', done);
      response.on('error', done);
      setTimeout(done, 100).unref();
    });
    request.end(body);
  });
}
