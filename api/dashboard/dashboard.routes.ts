/**
 * The merchant dashboard, mounted at /dashboard: its JSON API under /dashboard/api (session auth,
 * CSRF, the same use cases as the REST API), and the web app's page and built files.
 */
import { Router } from 'express';
import type { AppServices } from '../app.ts';
import { dashboardAccountRoutes } from './dashboard-account.routes.ts';
import { createDashboardAuth } from './dashboard-auth.ts';
import { dashboardPaymentRoutes } from './dashboard-payments.routes.ts';
import { dashboardWebhookRoutes } from './dashboard-webhooks.routes.ts';
import { dashboardWithdrawalRoutes } from './dashboard-withdrawals.routes.ts';
import { sessionRoutes } from './session.routes.ts';

/** The dashboard's routes over the services. */
export function dashboardRoutes(services: AppServices): Router {
  const { config, users, sessions, merchants } = services;
  const auth = createDashboardAuth({ sessions, merchants, publicUrl: config.publicUrl });
  const router = Router();
  router.use('/api/session', sessionRoutes({ users, sessions, merchants, auth, publicUrl: config.publicUrl }));
  router.use('/api/payments', dashboardPaymentRoutes({ payments: services.payments, webhooks: services.webhooks, auth }));
  router.use('/api/withdrawals', dashboardWithdrawalRoutes({ withdrawals: services.withdrawals, registry: services.registry, auth }));
  router.use('/api/webhooks', dashboardWebhookRoutes({ webhooks: services.webhooks, auth }));
  router.use('/api', dashboardAccountRoutes({ balance: services.balance, merchants, exporter: services.paymentExport, auth }));
  return router;
}
