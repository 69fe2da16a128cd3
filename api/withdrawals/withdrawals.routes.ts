import { Router } from 'express';
import type { MerchantAuth } from '../http/merchant-auth.ts';
import { readListQuery } from '../http/list-query.ts';
import type { WithdrawalService } from './withdrawal.service.ts';

const ARRAY_FILTERS = ['txnIds', 'ids', 'invoices', 'statuses'] as const;
const SCALARS = ['page', 'limit'] as const;

/** The withdrawal endpoints, their approve/cancel actions, and GET /balance. */
export function withdrawalRoutes(withdrawals: WithdrawalService, auth: MerchantAuth): Router {
  const router = Router();
  router.post('/withdrawal', ...auth.signedJson, (req, res) => {
    res.json(withdrawals.create(res.locals.merchant, req.body));
  });
  router.get('/withdrawal', auth.apiKey, (req, res) => {
    res.json(withdrawals.list(res.locals.merchant, readListQuery(req.originalUrl, ARRAY_FILTERS, SCALARS)));
  });
  router.get('/withdrawal/:id', auth.apiKey, (req, res) => {
    res.json(withdrawals.get(res.locals.merchant, req.params.id as string));
  });
  router.post('/withdrawal/:id/approve', ...auth.signedJson, async (req, res) => {
    res.json(await withdrawals.approve(res.locals.merchant, req.params.id as string, req.body));
  });
  router.post('/withdrawal/:id/cancel', ...auth.signedJson, (req, res) => {
    res.json(withdrawals.cancel(res.locals.merchant, req.params.id as string, req.body));
  });
  router.get('/balance', auth.apiKey, (_req, res) => {
    res.json(withdrawals.balances(res.locals.merchant));
  });
  return router;
}
