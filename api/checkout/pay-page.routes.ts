import { type RequestHandler, Router } from 'express';
import { ApiError } from '../http/api-error.ts';
import { sendCompressed } from '../http/send-compressed.ts';
import type { CheckoutService } from './checkout.service.ts';
import { type InlineStyles, payPageCsp, renderNotFoundPage, renderPayPage } from './pay-page.ts';

/** GET /pay?id=<payment id>: the hosted payer page, or a friendly 404 page for an unknown id. */
export function payPageRoutes(checkout: CheckoutService, publicUrl: string, limit: RequestHandler, styles?: InlineStyles): Router {
  const router = Router();
  const csp = payPageCsp(publicUrl, styles);
  router.get('/pay', limit, async (req, res) => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('Cache-Control', 'no-store');
    res.type('html');
    const id = req.query.id;
    let page: string | undefined;
    try {
      // The service answers 404 for malformed ids too; a repeated ?id= is not a string at all.
      if (typeof id === 'string') page = renderPayPage((await checkout.snapshot(id)).view, styles);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
    }
    if (page === undefined) res.status(404);
    sendCompressed(req, res, page ?? renderNotFoundPage(styles));
  });
  return router;
}
