import { Router } from 'express';
import { readListQuery } from '../http/list-query.ts';
import type { MerchantAuth } from '../merchants/merchant-auth.ts';
import { parseOrThrow } from '../shared/validation.ts';
import { ListDeliveriesQuery } from './webhook.schema.ts';
import type { WebhookService } from './webhook.service.ts';

const SCALARS = ['page', 'limit'] as const;

/** The webhook endpoints and their delivery log, mounted at /v2/webhooks. */
export function webhookRoutes(webhooks: WebhookService, auth: MerchantAuth): Router {
  const router = Router();
  router.post('/', ...auth.signedJson, async (req, res) => {
    res.json(await webhooks.create(res.locals.merchant, webhooks.read(req.body)));
  });
  router.get('/', ...auth.apiKey, async (_req, res) => {
    res.json(await webhooks.list(res.locals.merchant));
  });
  router.delete('/:id', ...auth.signed, async (req, res) => {
    await webhooks.remove(res.locals.merchant, req.params.id as string);
    res.status(204).end();
  });
  router.get('/:id/deliveries', ...auth.apiKey, async (req, res) => {
    const query = parseOrThrow(ListDeliveriesQuery, readListQuery(req.originalUrl, [], SCALARS, []));
    res.json(await webhooks.deliveries(res.locals.merchant, req.params.id as string, query));
  });
  router.post('/:id/deliveries/:deliveryId/redeliver', ...auth.signed, async (req, res) => {
    res.json(await webhooks.redeliver(res.locals.merchant, req.params.id as string, req.params.deliveryId as string));
  });
  return router;
}
