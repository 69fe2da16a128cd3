/**
 * The merchant dashboard, mounted at /dashboard: its JSON API under /dashboard/api (session auth,
 * CSRF, the same use cases as the REST API), and the web app's page and built files.
 */
import { Router } from 'express';
import path from 'node:path';
import { pageOf } from '../../dashboard/routes.ts';
import type { AppServices } from '../app.ts';
import { sendCompressed } from '../http/send-compressed.ts';
import { staticFiles } from '../http/static-files.ts';
import { DASHBOARD_CSP, type DashboardAssets, renderDashboardPage } from './dashboard-page.ts';
import { dashboardAccountRoutes } from './dashboard-account.routes.ts';
import { createDashboardAuth } from './dashboard-auth.ts';
import { dashboardEventRoutes } from './dashboard-events.routes.ts';
import { dashboardPaymentRoutes } from './dashboard-payments.routes.ts';
import { dashboardRefundRoutes } from './dashboard-refunds.routes.ts';
import { dashboardWebhookRoutes } from './dashboard-webhooks.routes.ts';
import { dashboardWithdrawalRoutes } from './dashboard-withdrawals.routes.ts';
import { sessionRoutes } from './session.routes.ts';

/** The dashboard's routes over the services. */
export function dashboardRoutes(services: AppServices, distDir: string, assets: DashboardAssets): Router {
  const { config, users, sessions, merchants } = services;
  const auth = createDashboardAuth({ sessions, merchants, publicUrl: config.publicUrl });
  const router = Router();
  router.use('/api/events', dashboardEventRoutes({ feed: services.merchantFeed, auth, sessions }));
  router.use('/api/session', sessionRoutes({ users, sessions, merchants, auth, publicUrl: config.publicUrl }));
  router.use('/api/payments', dashboardPaymentRoutes({ payments: services.payments, webhooks: services.webhooks, auth }));
  router.use('/api/withdrawals', dashboardWithdrawalRoutes({ withdrawals: services.withdrawals, auth }));
  router.use('/api/webhooks', dashboardWebhookRoutes({ webhooks: services.webhooks, auth }));
  router.use('/api', dashboardRefundRoutes({ refunds: services.refunds, auth }));
  router.use('/api', dashboardAccountRoutes({ balance: services.balance, merchants, exporter: services.paymentExport, auth }));
  router.use('/assets', staticFiles(path.join(distDir, 'dashboard')));
  const page = renderDashboardPage(assets).markup;
  // Every other path is the app's: it routes on the client, so a reload or a shared link works. An
  // address with no page gets the app too (it says "Page not found", with the way on), as a 404.
  router.get(/^\/(?!api\/|assets\/).*/, (req, res) => {
    // The path as a browser's location.pathname shows it (not parsed again: a request line in
    // absolute form with a bad port would make new URL throw).
    if (!pageOf(req.baseUrl + req.path)) res.status(404);
    res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
    res.setHeader('Cache-Control', 'no-store');
    res.type('html');
    sendCompressed(req, res, page);
  });
  return router;
}
