import { type RequestHandler, Router } from 'express';
import type { CheckoutService } from '../checkout/checkout.service.ts';
import { payPageCsp, type PageAssets } from '../checkout/pay-page.ts';
import { sendCompressed } from '../http/send-compressed.ts';
import { payerPageStyles } from './page-shell.ts';
import { NotFound } from '../shared/errors.ts';
import { payerMessages } from './payer-locale.ts';
import { hasReceipt, renderReceiptPage } from './receipt-page.ts';
import { renderNoticePage } from './refund-pages.ts';

/**
 * GET /receipt?id=<payment id>: the receipt of a COMPLETE or PAID_LATE payment, in `lang`, else the
 * language last chosen on its payer page, else the browser's; any other payment (or none) is 404.
 */
export function receiptPageRoutes(checkout: CheckoutService, publicUrl: string, limit: RequestHandler, assets: PageAssets): Router {
  const router = Router();
  const csp = payPageCsp(publicUrl, payerPageStyles(assets));
  router.get('/receipt', limit, async (req, res) => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('Cache-Control', 'no-store');
    res.type('html');
    const id = typeof req.query.id === 'string' ? req.query.id : '';
    let view;
    try {
      view = (await checkout.snapshot(id)).view;
    } catch (err) {
      if (!(err instanceof NotFound)) throw err;
    }
    const m = payerMessages(req, view && (await checkout.payerLocaleOf(view.id)));
    res.setHeader('Content-Language', m.locale);
    if (!view || !hasReceipt(view)) {
      res.status(404);
      return sendCompressed(req, res, renderNoticePage(m, assets, m.invalidLink, m.invalidLinkDetail));
    }
    sendCompressed(req, res, renderReceiptPage(view, m, assets));
  });
  return router;
}
