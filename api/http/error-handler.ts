import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { IncomingMessage } from 'node:http';
import { DatabaseUnavailable } from '../db/database.ts';
import type { Logger } from '../shared/logger.ts';
import { DomainError, Throttled, Unavailable } from '../shared/errors.ts';
import { ApiError, fromDomainError } from './api-error.ts';
import { markAnsweredEarly } from './client-errors.ts';

// Failures further apart than this belong to separate episodes, each logged once.
const EPISODE_GAP_MS = 60_000;

/** Answers any unmatched route with the contract's 404. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new ApiError(404, 'not-found', `There is no route ${req.method} ${req.path}.`));
};

/**
 * The one error handler: client errors become their contract body; anything else is logged and
 * answered as a generic 500 that leaks no stack, SQL or message.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  let lastUnavailableAt = 0;
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    // Answered before its body arrived (a wrong key, a body too large): Node reads on what the client
    // still sends (closing now could reset the connection before the client reads this answer), and a
    // trickle that reaches the request deadline is closed without a second answer.
    if (hasBody(req) && !req.complete) markAnsweredEarly(req);
    // An error answer is about this request at this moment: no cache keeps it.
    res.setHeader('Cache-Control', 'no-store');
    if (err instanceof Unavailable || err instanceof Throttled) res.setHeader('Retry-After', String(err.retryAfterSeconds));
    const apiError = err instanceof ApiError ? err : err instanceof DomainError ? fromDomainError(err) : (fromBodyParser(err) ?? fromPathDecoding(err, req.method, req.path));
    if (apiError) {
      res.status(apiError.status).json(apiError.toBody());
      return;
    }
    if (err instanceof DatabaseUnavailable) {
      // Logged once per episode (not per request): the cause is outside this process, every request
      // meanwhile fails the same way, and it recovers by itself.
      const now = Date.now();
      if (now - lastUnavailableAt > EPISODE_GAP_MS) logger.warn({ requestId: res.getHeader('X-Request-Id'), method: req.method, path: req.path, cause: err.message }, `${err.code}: requests answer 503 until it recovers`);
      lastUnavailableAt = now;
      res.setHeader('Retry-After', '5');
      const message =
        err.code === 'storage-unavailable'
          ? 'The database cannot be written right now (the disk may be full or read-only). Try again in a few seconds; nothing of this request was stored.'
          : 'The database is unavailable right now. Try again in a few seconds; a write that failed this way may or may not have been stored, so look it up (a withdrawal by its invoice) before sending it again.';
      res.status(503).json(new ApiError(503, err.code, message).toBody());
      return;
    }
    logger.error({ err, requestId: res.getHeader('X-Request-Id'), method: req.method, path: req.path }, 'unexpected error');
    res.status(500).json(new ApiError(500, 'internal-error', 'Something went wrong on our side; nothing was changed. Try again, and quote the X-Request-Id header if it persists.').toBody());
  };
}

/** Whether the request announced a body (a length above zero, or chunks). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Maps the errors Express's body readers throw to contract errors. */
function fromBodyParser(err: unknown): ApiError | undefined {
  if (typeof err !== 'object' || err === null || !('type' in err)) return undefined;
  switch ((err as { type: unknown }).type) {
    case 'entity.too.large':
      return new ApiError(413, 'payload-too-large', 'The request body is larger than 64 KiB.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError(415, 'unsupported-media-type', 'The request body must be UTF-8 JSON.');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new ApiError(400, 'invalid-json', 'The request body could not be read completely.');
    default:
      return undefined;
  }
}

/**
 * Express's router throws a URIError (status 400) when a path parameter is not valid
 * percent-encoded UTF-8, before any route runs; such a path names nothing, like an unknown route.
 */
function fromPathDecoding(err: unknown, method: string, path: string): ApiError | undefined {
  if (!(err instanceof URIError) || (err as URIError & { status?: unknown }).status !== 400) return undefined;
  return new ApiError(404, 'not-found', `There is no route ${method} ${path}: the path is not valid percent-encoded UTF-8.`);
}
