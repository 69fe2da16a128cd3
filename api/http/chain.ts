/**
 * @module Several middlewares run as one router layer. Express matches every layer's path and
 * dispatches through its own `next` for each; a group always used together (an API key and its rate
 * limit, the headers of every response) costs one layer instead. Behaves as the handlers would as
 * layers: an error (thrown, rejected or passed to `next`) skips the rest and reaches the error
 * handler; `next('route')` and `next('router')` go to Express as they are.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** The handlers in order, as one middleware. */
export function chain(...handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined || index === handlers.length) {
        next(error);
        return;
      }
      const handler = handlers[index++]!;
      try {
        const returned: unknown = handler(req, res, step);
        if (returned instanceof Promise) returned.catch((rejected: unknown) => step(rejected ?? new Error('a middleware rejected without a reason')));
      } catch (thrown) {
        step(thrown);
      }
    };
    step();
  };
}
