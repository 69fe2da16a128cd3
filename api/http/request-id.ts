import type { RequestHandler } from 'express';
import { randomUUID } from 'node:crypto';

/** Gives every response an X-Request-Id, so a merchant can quote it and we can find the log line. */
export const requestId: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Request-Id', randomUUID());
  next();
};
