/**
 * The dashboard's refunds, mounted at /dashboard/api: the list (all, or a payment's) and one refund
 * for everyone; refunding a payment, approving and cancelling for owners (CSRF-checked), through
 * the same use cases as /v2/refund and /v2/payment/:id/refund.
 */
import { Router } from 'express';
import { jsonBody } from '../http/json-body.ts';
import { readListQuery } from '../http/list-query.ts';
import { CreateRefundInput, ListRefundsQuery } from '../refunds/refund.schema.ts';
import type { RefundService } from '../refunds/refund.service.ts';
import { parseOrThrow } from '../shared/validation.ts';
import type { DashboardAuth } from './dashboard-auth.ts';

const ARRAY_FILTERS = ['ids', 'paymentIds', 'statuses'] as const;
const SCALARS = ['page', 'limit'] as const;

/** The refund routes of the dashboard. */
export function dashboardRefundRoutes(deps: { refunds: RefundService; auth: DashboardAuth }): Router {
  const { refunds, auth } = deps;
  const router = Router();
  router.get('/refunds', ...auth.signedIn, async (req, res) => {
    res.json(await refunds.list(res.locals.merchant, parseOrThrow(ListRefundsQuery, readListQuery(req.originalUrl, ARRAY_FILTERS, SCALARS))));
  });
  router.get('/refunds/:id', ...auth.signedIn, async (req, res) => {
    res.json(await refunds.get(res.locals.merchant, req.params.id as string));
  });
  router.post('/payments/:id/refund', ...auth.change, ...jsonBody, async (req, res) => {
    res.json(await refunds.create(res.locals.merchant, req.params.id as string, parseOrThrow(CreateRefundInput, req.body)));
  });
  router.post('/refunds/:id/approve', ...auth.change, async (req, res) => {
    res.json(await refunds.approve(res.locals.merchant, req.params.id as string));
  });
  router.post('/refunds/:id/cancel', ...auth.change, async (req, res) => {
    res.json(await refunds.cancel(res.locals.merchant, req.params.id as string));
  });
  return router;
}
