import { Router } from 'express';
import { readListQuery } from '../http/list-query.ts';
import { parseOrThrow } from '../shared/validation.ts';
import type { MerchantAuth } from '../merchants/merchant-auth.ts';
import { ListRefundsQuery, RefundActionInput } from './refund.schema.ts';
import type { RefundService } from './refund.service.ts';

const ARRAY_FILTERS = ['ids', 'paymentIds', 'statuses'] as const;
const SCALARS = ['page', 'limit'] as const;

/** POST /payment/:id/refund, and the refund endpoints with their approve/cancel actions; mounted at /v2. */
export function refundRoutes(refunds: RefundService, auth: MerchantAuth): Router {
  const router = Router();
  router.post('/payment/:id/refund', ...auth.signedJson, async (req, res) => {
    res.json(await refunds.create(res.locals.merchant, req.params.id as string, req.body as unknown));
  });
  router.get('/refund', ...auth.apiKey, async (req, res) => {
    res.json(await refunds.list(res.locals.merchant, parseOrThrow(ListRefundsQuery, readListQuery(req.originalUrl, ARRAY_FILTERS, SCALARS))));
  });
  router.get('/refund/:id', ...auth.apiKey, async (req, res) => {
    res.json(await refunds.get(res.locals.merchant, req.params.id as string));
  });
  router.post('/refund/:id/approve', ...auth.signedJson, async (req, res) => {
    parseOrThrow(RefundActionInput, req.body);
    res.json(await refunds.approve(res.locals.merchant, req.params.id as string));
  });
  router.post('/refund/:id/cancel', ...auth.signedJson, async (req, res) => {
    parseOrThrow(RefundActionInput, req.body);
    res.json(await refunds.cancel(res.locals.merchant, req.params.id as string));
  });
  return router;
}
