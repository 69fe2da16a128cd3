/**
 * The dashboard's withdrawals, mounted at /dashboard/api/withdrawals: list and read for everyone;
 * create, approve and cancel for owners (CSRF-checked), through the same use cases as /v2/withdrawal.
 */
import { Router } from 'express';
import { jsonBody } from '../http/json-body.ts';
import { readListQuery } from '../http/list-query.ts';
import { parseOrThrow } from '../shared/validation.ts';
import { ListWithdrawalsQuery } from '../withdrawals/withdrawal.schema.ts';
import type { WithdrawalService } from '../withdrawals/withdrawal.service.ts';
import type { DashboardAuth } from './dashboard-auth.ts';

const ARRAY_FILTERS = ['statuses', 'ids', 'invoices', 'txnIds'] as const;
const SCALARS = ['page', 'limit'] as const;

/** The withdrawal routes of the dashboard. */
export function dashboardWithdrawalRoutes(deps: { withdrawals: WithdrawalService; auth: DashboardAuth }): Router {
  const { withdrawals, auth } = deps;
  const router = Router();
  router.get('/', ...auth.signedIn, async (req, res) => {
    res.json(await withdrawals.list(res.locals.merchant, parseOrThrow(ListWithdrawalsQuery, readListQuery(req.originalUrl, ARRAY_FILTERS, SCALARS, ['invoices']))));
  });
  router.get('/:id', ...auth.signedIn, async (req, res) => {
    res.json(await withdrawals.get(res.locals.merchant, req.params.id as string));
  });
  router.post('/', ...auth.change, ...jsonBody, async (req, res) => {
    res.json(await withdrawals.create(res.locals.merchant, await withdrawals.read(req.body)));
  });
  router.post('/:id/approve', ...auth.change, async (req, res) => {
    res.json(await withdrawals.approve(res.locals.merchant, req.params.id as string));
  });
  router.post('/:id/cancel', ...auth.change, async (req, res) => {
    res.json(await withdrawals.cancel(res.locals.merchant, req.params.id as string));
  });
  return router;
}
