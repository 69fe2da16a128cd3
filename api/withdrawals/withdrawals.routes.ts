import { Router } from 'express';
import type { MerchantAuth } from '../merchants/merchant-auth.ts';
import { readListQuery } from '../http/list-query.ts';
import { parseOrThrow } from '../shared/validation.ts';
import { ListWithdrawalsQuery, WithdrawalActionInput } from './withdrawal.schema.ts';
import type { WithdrawalService } from './withdrawal.service.ts';

const ARRAY_FILTERS = ['txnIds', 'ids', 'invoices', 'statuses'] as const;
const SCALARS = ['page', 'limit'] as const;
// Invoices are the merchant's free text and may hold a comma, sent as %2C.
const FREE_TEXT_FILTERS = ['invoices'] as const;

/** The withdrawal endpoints and their approve/cancel actions, mounted at /v2/withdrawal. */
export function withdrawalRoutes(withdrawals: WithdrawalService, auth: MerchantAuth): Router {
  const router = Router();
  router.post('/', ...auth.signedJson, async (req, res) => {
    res.json(await withdrawals.create(res.locals.merchant, await withdrawals.read(req.body)));
  });
  router.get('/', ...auth.apiKey, async (req, res) => {
    res.json(await withdrawals.list(res.locals.merchant, parseOrThrow(ListWithdrawalsQuery, readListQuery(req.originalUrl, ARRAY_FILTERS, SCALARS, FREE_TEXT_FILTERS))));
  });
  router.get('/:id', ...auth.apiKey, async (req, res) => {
    res.json(await withdrawals.get(res.locals.merchant, req.params.id as string));
  });
  router.post('/:id/approve', ...auth.signedJson, async (req, res) => {
    parseOrThrow(WithdrawalActionInput, req.body);
    res.json(await withdrawals.approve(res.locals.merchant, req.params.id as string));
  });
  router.post('/:id/cancel', ...auth.signedJson, async (req, res) => {
    parseOrThrow(WithdrawalActionInput, req.body);
    res.json(await withdrawals.cancel(res.locals.merchant, req.params.id as string));
  });
  return router;
}
