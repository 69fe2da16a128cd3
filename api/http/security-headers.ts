import type { RequestHandler } from 'express';

/** Headers every response carries. Pages add their own Content-Security-Policy. */
export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'strict-origin-when-cross-origin');
  next();
};
