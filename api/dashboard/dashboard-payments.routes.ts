/**
 * The dashboard's payments, mounted at /dashboard/api/payments: the list (statuses, search, pages),
 * one payment, and the webhook deliveries of its events. The same use cases as /v2/payment, for the
 * session's merchant only: another merchant's id is a 404 like an unknown one.
 */
import { Router } from 'express';
import { readListQuery } from '../http/list-query.ts';
import { sendJsonList, sendJsonText } from '../http/send-json.ts';
import { parseOrThrow } from '../shared/validation.ts';
import { SearchPaymentsQuery } from '../payments/payment.schema.ts';
import type { PaymentService } from '../payments/payment.service.ts';
import type { WebhookService } from '../webhooks/webhook.service.ts';
import type { DashboardAuth } from './dashboard-auth.ts';

const ARRAY_FILTERS = ['statuses'] as const;
const SCALARS = ['page', 'limit', 'search'] as const;

/** The payment routes of the dashboard. */
export function dashboardPaymentRoutes(deps: { payments: PaymentService; webhooks: WebhookService; auth: DashboardAuth }): Router {
  const { payments, webhooks, auth } = deps;
  const router = Router();
  router.get('/', ...auth.signedIn, async (req, res) => {
    const query = parseOrThrow(SearchPaymentsQuery, readListQuery(req.originalUrl, ARRAY_FILTERS, SCALARS, []));
    sendJsonList(res, await payments.list(res.locals.merchant, query));
  });
  router.get('/:id', ...auth.signedIn, async (req, res) => {
    sendJsonText(res, await payments.get(res.locals.merchant, req.params.id as string));
  });
  router.get('/:id/deliveries', ...auth.signedIn, async (req, res) => {
    const id = req.params.id as string;
    // Checked first: the deliveries of a payment that is not this merchant's are as unknown as it.
    await payments.get(res.locals.merchant, id);
    res.json({ data: await webhooks.deliveriesAbout(res.locals.merchant, id.toLowerCase()) });
  });
  return router;
}
