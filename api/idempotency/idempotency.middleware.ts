/**
 * @module Idempotency-Key on signed POSTs: placed after the signature check (the body bytes are
 * known and authentic) and before the body is parsed, so a first attempt that failed validation is
 * kept and replayed as that failure. Answers below 500 are kept; a 5xx frees the key for a retry.
 */
import type { RequestHandler } from 'express';
import type { IdempotencyService } from './idempotency.service.ts';
import type { Logger } from '../shared/logger.ts';

/** The middleware; requests without the header pass through untouched. */
export function idempotentPost(idempotency: IdempotencyService, logger: Logger): RequestHandler {
  return async (req, res, next) => {
    const key = req.headers['idempotency-key'] as string | undefined;
    if (key === undefined) {
      next();
      return;
    }
    const merchantId = res.locals.merchant.id;
    const body: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const outcome = await idempotency.begin(merchantId, key, req.method, req.originalUrl, body);
    if (outcome.kind === 'replay') {
      res.setHeader('Idempotent-Replayed', 'true');
      res.status(outcome.statusCode).type('application/json').send(outcome.body);
      return;
    }
    // The answer is recorded before it is sent: a retry that arrives after the answer always replays it.
    const send = res.send.bind(res);
    let recorded = false;
    res.send = (sent: unknown) => {
      if (recorded) return send(sent);
      recorded = true;
      const status = res.statusCode;
      const text = typeof sent === 'string' ? sent : Buffer.isBuffer(sent) ? sent.toString('utf8') : JSON.stringify(sent);
      const keep = status >= 500 ? idempotency.release(merchantId, key, outcome.requestHash) : idempotency.complete(merchantId, key, outcome.requestHash, status, text);
      keep
        .catch((err: unknown) => logger.warn({ err, requestId: res.getHeader('X-Request-Id') }, 'could not record the answer to an idempotent request; its key frees itself in a minute'))
        .finally(() => send(sent));
      return res;
    };
    next();
  };
}
