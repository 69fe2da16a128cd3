/**
 * @module 405 for a known path asked with a method it does not serve (`DELETE /v2/payment/:id`),
 * with `Allow` listing the methods it does, instead of a 404 that says the path does not exist.
 * The paths and their methods come from the OpenAPI document, so the two cannot disagree.
 */
import type { RequestHandler } from 'express';
import { ApiError } from './api-error.ts';

/** Builds the middleware from the document's paths (relative to `prefix`, like "/v2"). */
export function methodNotAllowed(paths: Record<string, object>, prefix: string): RequestHandler {
  const routes = Object.entries(paths).map(([path, operations]) => {
    const pattern = new RegExp(`^${prefix}${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`);
    const methods = Object.keys(operations).map((m) => m.toUpperCase());
    // Express answers HEAD wherever it answers GET.
    if (methods.includes('GET')) methods.push('HEAD');
    return { pattern, allow: methods.join(', '), methods: new Set(methods) };
  });
  return (req, res, next) => {
    const route = routes.find((r) => r.pattern.test(req.path));
    if (!route || route.methods.has(req.method)) {
      next();
      return;
    }
    res.setHeader('Allow', route.allow);
    next(new ApiError(405, 'method-not-allowed', `${req.path} does not take ${req.method}; it takes ${route.allow}.`));
  };
}
