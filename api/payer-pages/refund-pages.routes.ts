import express, { type Request, type RequestHandler, type Response, Router } from 'express';
import { payPageCsp, type PageAssets } from '../checkout/pay-page.ts';
import { sendCompressed } from '../http/send-compressed.ts';
import { payerPageStyles } from './page-shell.ts';
import { REFUND_FOLLOW_SCRIPT, REFUND_FOLLOW_SCRIPT_PATH } from './refund-follow-script.ts';
import type { Asset } from '../networks/asset-registry.ts';
import { networkName } from '../../widget/checkout-format.ts';
import { RefundCancelled, type RefundClaims } from '../refunds/refund-claims.ts';
import { DestinationInput } from '../refunds/refund.schema.ts';
import { isOwnAddressRefusal } from '../withdrawals/withdrawal-request.ts';
import { Conflict, DomainError, InvalidInput, InvalidState, NotFound, NotYet } from '../shared/errors.ts';
import type { PayerMessages } from './payer-messages.ts';
import { payerMessages } from './payer-locale.ts';
import { type FormState, renderClaimPage, renderNoticePage, renderRequestPage } from './refund-pages.ts';

const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });
const field = (req: Request, name: string) => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

/** The form's problem in the payer's words, or undefined when it is not the payer's to fix. */
function formError(err: unknown, view: { asset: Asset; needsTag: boolean }, m: PayerMessages, sent: { addressTo: string; destTag: string }): Pick<FormState, 'error' | 'errorField'> | undefined {
  const { asset } = view;
  const { destTag } = sent;
  if (err instanceof InvalidInput) {
    const path = err.details?.[0]?.path;
    if (path === 'destTag') return { error: view.needsTag && destTag === '' ? m.tagRequired : m.tagInvalid, errorField: 'destTag' };
    if (isOwnAddressRefusal(err)) return { error: m.addressOwn(networkName(asset.network)), errorField: 'addressTo' };
    return { error: (sent.addressTo === '' ? m.addressRequired : m.addressInvalid)(networkName(asset.network)), errorField: 'addressTo' };
  }
  if (err instanceof Conflict && err.code === 'refund-already-requested') return { error: m.alreadyRequested };
  return undefined;
}

/**
 * The payer's refund pages (no API key: a claim link's token, or the payment id, is the bearer):
 * GET/POST /refund (the claim page and its address form) and GET/POST /refund/request (the request
 * of an UNDERPAID or PAID_LATE payment). Forms post back here and answer with a redirect (303) to
 * the claim page, or with the form again saying what to fix.
 */
export function refundPageRoutes(claims: RefundClaims, publicUrl: string, limit: RequestHandler, assets: PageAssets): Router {
  const router = Router();
  const csp = payPageCsp(publicUrl, payerPageStyles(assets));
  const send = (req: Request, res: Response, status: number, page: string) => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.status(status).type('html');
    sendCompressed(req, res, page);
  };
  const invalidLink = (req: Request, res: Response, m: PayerMessages) => send(req, res, 404, renderNoticePage(m, assets, m.invalidLink, m.invalidLinkDetail));

  async function showClaim(req: Request, res: Response, id: string, token: string, status = 200, state: FormState = {}) {
    const m = payerMessages(req);
    try {
      send(req, res, status, renderClaimPage(await claims.view(id, token), token, m, assets, state));
    } catch (err) {
      if (!(err instanceof NotFound)) throw err;
      invalidLink(req, res, m);
    }
  }

  router.get(REFUND_FOLLOW_SCRIPT_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/javascript').send(REFUND_FOLLOW_SCRIPT);
  });

  router.get('/refund', limit, async (req, res) => {
    await showClaim(req, res, String(req.query.id ?? ''), String(req.query.token ?? ''));
  });

  router.post('/refund', limit, form, async (req, res) => {
    const id = field(req, 'id');
    const token = field(req, 'token');
    const state = { addressTo: field(req, 'addressTo').trim(), destTag: field(req, 'destTag').trim() };
    const m = payerMessages(req);
    let view;
    try {
      view = await claims.view(id, token);
    } catch (err) {
      if (!(err instanceof NotFound)) throw err;
      return invalidLink(req, res, m);
    }
    try {
      const parsed = DestinationInput.safeParse(state);
      if (!parsed.success) throw new InvalidInput('validation-failed', 'bad destination', [{ path: String(parsed.error.issues[0]?.path[0] ?? 'addressTo'), message: '' }]);
      await claims.claim(id, token, parsed.data);
    } catch (err) {
      if (err instanceof InvalidState) return showClaim(req, res, id, token, 409, { error: err instanceof RefundCancelled ? m.refundCancelledNoAddress : m.addressAlreadySet });
      const shown = formError(err, view, m, state);
      if (shown === undefined) throw err;
      return showClaim(req, res, id, token, 400, { ...state, ...shown });
    }
    res.redirect(303, `/refund?id=${encodeURIComponent(id)}&token=${encodeURIComponent(token)}&lang=${m.locale}`);
  });

  async function showRequest(req: Request, res: Response, paymentId: string, status = 200, state: FormState = {}) {
    const m = payerMessages(req);
    try {
      send(req, res, status, renderRequestPage(await claims.requestable(paymentId), m, assets, state));
    } catch (err) {
      if (err instanceof NotFound) return invalidLink(req, res, m);
      if (err instanceof Conflict && err.code === 'refund-already-requested') return send(req, res, 409, renderNoticePage(m, assets, m.alreadyRequested, ''));
      if (err instanceof Conflict && err.code === 'refund-awaiting-address') return send(req, res, 409, renderNoticePage(m, assets, m.shopRefunding, m.shopRefundingDetail));
      if (err instanceof Conflict && err.code === 'refund-made') return send(req, res, 409, renderNoticePage(m, assets, m.alreadyRefunded, ''));
      if (err instanceof NotYet) return send(req, res, 409, renderNoticePage(m, assets, m.fundsConfirming, m.fundsConfirmingDetail));
      if (err instanceof InvalidState) return send(req, res, 409, renderNoticePage(m, assets, m.nothingToRefund, m.invalidLinkDetail));
      throw err;
    }
  }

  router.get('/refund/request', limit, async (req, res) => {
    await showRequest(req, res, String(req.query.payment ?? ''));
  });

  router.post('/refund/request', limit, form, async (req, res) => {
    const paymentId = field(req, 'payment');
    const state = { addressTo: field(req, 'addressTo').trim(), destTag: field(req, 'destTag').trim() };
    const m = payerMessages(req);
    let view;
    try {
      view = await claims.requestable(paymentId);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      return showRequest(req, res, paymentId);
    }
    let created;
    try {
      const parsed = DestinationInput.safeParse(state);
      if (!parsed.success) throw new InvalidInput('validation-failed', 'bad destination', [{ path: String(parsed.error.issues[0]?.path[0] ?? 'addressTo'), message: '' }]);
      created = await claims.request(paymentId, parsed.data);
    } catch (err) {
      // The payment changed meanwhile (asked for by another, or no longer owed): its page says how it stands.
      if (err instanceof InvalidState) return showRequest(req, res, paymentId);
      const shown = formError(err, view, m, state);
      if (shown === undefined) throw err;
      return showRequest(req, res, paymentId, err instanceof Conflict ? 409 : 400, { ...state, ...shown });
    }
    res.redirect(303, `/refund?id=${created.id}&token=${created.token}&lang=${m.locale}`);
  });
  return router;
}
