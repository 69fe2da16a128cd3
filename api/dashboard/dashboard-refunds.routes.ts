/**
 * The dashboard's refunds, mounted at /dashboard/api: the list (all, or a payment's) and one refund
 * for everyone (the claim link for owners only); refunding a payment, approving and cancelling for owners (CSRF-checked), through
 * the same use cases as /v2/refund and /v2/payment/:id/refund.
 */
import { Router } from 'express';
import { jsonBody } from '../http/json-body.ts';
import { readListQuery } from '../http/list-query.ts';
import { ListRefundsQuery, type RefundOutput } from '../refunds/refund.schema.ts';
import type { RefundService } from '../refunds/refund.service.ts';
import { parseOrThrow } from '../shared/validation.ts';
import type { DashboardAuth } from './dashboard-auth.ts';

const ARRAY_FILTERS = ['ids', 'paymentIds', 'statuses'] as const;
const SCALARS = ['page', 'limit'] as const;

/**
 * A refund as a user of this role may see it. Its claim link is a bearer credential: whoever opens
 * it names where the refund goes. Owners may hand it to the payer; a viewer, who may change
 * nothing, does not get it (it would let a read-only user send an unclaimed refund to themselves).
 */
function forRole(role: string, refund: RefundOutput): RefundOutput | Omit<RefundOutput, 'claimUrl'> {
  if (role === 'owner') return refund;
  const { claimUrl: _withheld, ...rest } = refund;
  return rest;
}

/** The refund routes of the dashboard. */
export function dashboardRefundRoutes(deps: { refunds: RefundService; auth: DashboardAuth }): Router {
  const { refunds, auth } = deps;
  const router = Router();
  router.get('/refunds', ...auth.signedIn, async (req, res) => {
    const page = await refunds.list(res.locals.merchant, parseOrThrow(ListRefundsQuery, readListQuery(req.originalUrl, ARRAY_FILTERS, SCALARS)));
    res.json({ ...page, data: page.data.map((refund) => forRole(res.locals.session.user.role, refund)) });
  });
  router.get('/refunds/:id', ...auth.signedIn, async (req, res) => {
    res.json(forRole(res.locals.session.user.role, await refunds.get(res.locals.merchant, req.params.id as string)));
  });
  router.post('/payments/:id/refund', ...auth.change, ...jsonBody, async (req, res) => {
    res.json(await refunds.create(res.locals.merchant, req.params.id as string, req.body as unknown));
  });
  router.post('/refunds/:id/approve', ...auth.change, async (req, res) => {
    res.json(await refunds.approve(res.locals.merchant, req.params.id as string));
  });
  router.post('/refunds/:id/cancel', ...auth.change, async (req, res) => {
    res.json(await refunds.cancel(res.locals.merchant, req.params.id as string));
  });
  return router;
}
