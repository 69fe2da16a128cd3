/**
 * The merchant dashboard, mounted at /dashboard: its JSON API under /dashboard/api (session auth,
 * CSRF, the same use cases as the REST API), and the web app's page and built files.
 */
import { Router } from 'express';
import type { Services } from '../services.ts';
import { createDashboardAuth } from './dashboard-auth.ts';
import { sessionRoutes } from './session.routes.ts';

/** The dashboard's routes over the services. */
export function dashboardRoutes(services: Services): Router {
  const { config, users, sessions, merchants } = services;
  const auth = createDashboardAuth({ sessions, merchants, publicUrl: config.publicUrl });
  const router = Router();
  router.use('/api/session', sessionRoutes({ users, sessions, merchants, auth, publicUrl: config.publicUrl }));
  return router;
}
