/**
 * The dashboard's webhook endpoints, mounted at /dashboard/api/webhooks: list and delivery logs for
 * everyone; add (the secret shown once), remove and redeliver for owners, through the same use cases
 * as /v2/webhooks.
 */
import { Router } from 'express';
import { jsonBody } from '../http/json-body.ts';
import { readListQuery } from '../http/list-query.ts';
import { parseOrThrow } from '../shared/validation.ts';
import { ListDeliveriesQuery } from '../webhooks/webhook.schema.ts';
import type { WebhookService } from '../webhooks/webhook.service.ts';
import type { DashboardAuth } from './dashboard-auth.ts';

/** The webhook routes of the dashboard. */
export function dashboardWebhookRoutes(deps: { webhooks: WebhookService; auth: DashboardAuth }): Router {
  const { webhooks, auth } = deps;
  const router = Router();
  router.get('/', ...auth.signedIn, async (_req, res) => {
    res.json(await webhooks.list(res.locals.merchant));
  });
  router.get('/:id/deliveries', ...auth.signedIn, async (req, res) => {
    const query = parseOrThrow(ListDeliveriesQuery, readListQuery(req.originalUrl, [], ['page', 'limit'], []));
    res.json(await webhooks.deliveries(res.locals.merchant, req.params.id as string, query));
  });
  router.post('/', ...auth.change, ...jsonBody, async (req, res) => {
    res.json(await webhooks.create(res.locals.merchant, webhooks.read(req.body)));
  });
  router.delete('/:id', ...auth.change, async (req, res) => {
    await webhooks.remove(res.locals.merchant, req.params.id as string);
    res.status(204).end();
  });
  router.post('/:id/deliveries/:deliveryId/redeliver', ...auth.change, async (req, res) => {
    res.json(await webhooks.redeliver(res.locals.merchant, req.params.id as string, req.params.deliveryId as string));
  });
  return router;
}
