import { type Request, type RequestHandler, type Response, Router } from 'express';
import { ALL_MESSAGES } from '../../widget/i18n/all-messages.ts';
import { acceptedLanguages, type Locale, lookupLocale, matchLocale } from '../../widget/i18n/locales.ts';
import { sendCompressed } from '../http/send-compressed.ts';
import type { CheckoutService } from './checkout.service.ts';
import { type PageAssets, payPageCsp, renderNotFoundPage, renderPayPage, UNBUILT_ASSETS } from './pay-page.ts';
import { Conflict, InvalidState, NotFound, NotYet } from '../shared/errors.ts';
import { PAYER_MESSAGES } from '../payer-pages/payer-messages-all.ts';
import { payerLinks, type RequestStanding } from '../payer-pages/payer-links.ts';
import { shownPayerLinks } from '../../hosted/payer-link-rules.ts';
import type { CheckoutOutput } from './checkout.schema.ts';

/** The cookie that remembers a language chosen on the page. */
export const LANGUAGE_COOKIE = 'checkout_lang';
const YEAR_SECONDS = 31_536_000;

function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/**
 * The page's language: `?lang=` (remembered in a cookie when it names a supported language), else
 * the remembered one, else the browser's Accept-Language, else English.
 */
function chooseLocale(req: Request, res: Response): Locale {
  const asked = typeof req.query.lang === 'string' ? lookupLocale(req.query.lang) : undefined;
  if (asked) {
    res.append('Set-Cookie', `${LANGUAGE_COOKIE}=${encodeURIComponent(asked)}; Path=/pay; Max-Age=${YEAR_SECONDS}; SameSite=Lax`);
    return asked;
  }
  const remembered = cookie(req, LANGUAGE_COOKIE);
  return (remembered && lookupLocale(remembered)) || matchLocale(acceptedLanguages(req.get('Accept-Language')));
}

/** What the page asks of refund requests: the one a payer could file now (throws InvalidState when nothing is owed). */
export interface RefundRequests {
  requestable(paymentId: string): Promise<unknown>;
}

/**
 * Where a payment whose state offers a refund request stands for one: `nothing` left to ask for
 * (refunded in full, or less owed than a payout lets go: its page shows no link to a form that could
 * only say so), `requested` already (the page says it waits for the shop instead of offering
 * another), or `open`.
 */
async function requestStanding(refunds: RefundRequests, view: Pick<CheckoutOutput, 'id' | 'status' | 'exception'>): Promise<RequestStanding> {
  if (!shownPayerLinks(view).refund) return 'open';
  try {
    await refunds.requestable(view.id);
    return 'open';
  } catch (err) {
    // Asked for by the payer already; refunded (or being refunded) by the shop: no link to ask.
    if (err instanceof Conflict) return err.code === 'refund-already-requested' ? 'requested' : 'nothing';
    // What still confirms is not refundable yet, but will be, and the page stops following an expired
    // payment half an hour past its expiry: it keeps the link, whose page says to come back once what
    // arrived is confirmed.
    if (err instanceof NotYet) return 'open';
    return err instanceof InvalidState ? 'nothing' : 'open';
  }
}

/** GET /pay?id=<payment id>[&lang=<tag>]: the hosted payer page, or a friendly 404 page for an unknown id. */
export function payPageRoutes(checkout: CheckoutService, refunds: RefundRequests, publicUrl: string, limit: RequestHandler, assets: PageAssets = UNBUILT_ASSETS): Router {
  const router = Router();
  const csp = payPageCsp(publicUrl, assets.styles);
  router.get('/pay', limit, async (req, res) => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('Cache-Control', 'no-store');
    res.type('html');
    const messages = ALL_MESSAGES[chooseLocale(req, res)];
    res.setHeader('Content-Language', messages.locale);
    const id = req.query.id;
    let page: string | undefined;
    try {
      // The service answers 404 for malformed ids too; a repeated ?id= is not a string at all.
      if (typeof id === 'string') {
        const view = (await checkout.snapshot(id)).view;
        // A language chosen on the page is kept with the payment: its receipt and mail speak it.
        if (typeof req.query.lang === 'string' && lookupLocale(req.query.lang)) await checkout.rememberLocale(view.id, messages.locale);
        const links = payerLinks(view, PAYER_MESSAGES[messages.locale], { request: await requestStanding(refunds, view) });
        page = renderPayPage(view, assets, { messages }, links);
      }
    } catch (err) {
      if (!(err instanceof NotFound)) throw err;
    }
    if (page === undefined) res.status(404);
    sendCompressed(req, res, page ?? renderNotFoundPage(assets, { messages }));
  });
  return router;
}
