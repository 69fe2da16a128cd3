import type { RequestHandler } from 'express';

/**
 * Headers every response carries. Pages add their own Content-Security-Policy. Served at an https
 * PUBLIC_URL (behind a TLS proxy), browsers are told to keep to https for a year (HSTS).
 */
export function securityHeaders(publicUrl: string): RequestHandler {
  const hsts = publicUrl.startsWith('https://');
  return (_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'strict-origin-when-cross-origin');
    if (hsts) res.setHeader('Strict-Transport-Security', 'max-age=31536000');
    next();
  };
}
