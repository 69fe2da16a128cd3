/** createApp: the whole HTTP surface over the services, without listening (tests use port 0). */
import express, { type Router } from 'express';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { balanceRoutes } from './balance/balance.routes.ts';
import { checkoutRoutes, type EventStreamTiming } from './checkout/checkout.routes.ts';
import { payPageRoutes } from './checkout/pay-page.routes.ts';
import { loadPageAssets } from './checkout/page-assets.ts';
import { dashboardRoutes } from './dashboard/dashboard.routes.ts';
import { loadDashboardAssets } from './dashboard/dashboard-page.ts';
import { chain } from './http/chain.ts';
import { takeHotRoutesFirst } from './http/hot-routes.ts';
import { errorHandler, notFoundHandler } from './http/error-handler.ts';
import { createMerchantAuth } from './merchants/merchant-auth.ts';
import { methodNotAllowed } from './http/method-not-allowed.ts';
import { buildOpenApi } from './openapi.ts';
import { rateLimit } from './rate-limits/rate-limit.middleware.ts';
import { rateRoutes } from './rates/rates.routes.ts';
import { requestId } from './http/request-id.ts';
import { securityHeaders } from './http/security-headers.ts';
import { staticFiles } from './http/static-files.ts';
import { assetRoutes, logoRoutes } from './networks/assets.routes.ts';
import { paymentRoutes } from './payments/payments.routes.ts';
import { receiptPageRoutes } from './payer-pages/receipt-page.routes.ts';
import { refundPageRoutes } from './payer-pages/refund-pages.routes.ts';
import { refundRoutes } from './refunds/refunds.routes.ts';
import { reportRoutes } from './payments/payment-export.routes.ts';
import type { Services } from './services.ts';
import { findProjectRoot } from './shared/project-root.ts';
import { simulatorRoutes } from './simulator/simulator.routes.ts';
import { webhookRoutes } from './webhooks/webhooks.routes.ts';
import { withdrawalRoutes } from './withdrawals/withdrawals.routes.ts';

/** Where `npm run build` writes the widget bundle and the hosted page's assets. */
export const DIST_DIR = path.join(findProjectRoot(path.dirname(fileURLToPath(import.meta.url))), 'dist');

/**
 * Timeouts suited to a JSON API. Node checks the header and request deadlines only every
 * `connectionsCheckingInterval`, so a deadline holds within its value plus that interval: headers
 * within 7 + 2 = 9 s (a second of margin under the 10 s the contract allows: the check itself runs late
 * under load), a whole request (a body sent a byte at a time) within 30 + 2 = 32 s, where
 * Node's defaults let one run for 5 minutes. Idle keep-alive connections close after 5 s. Live
 * event streams are responses, which these do not bound.
 */
export const SERVER_TIMEOUTS: Readonly<ServerTimeouts> = { headersTimeout: 7_000, requestTimeout: 30_000, connectionsCheckingInterval: 2_000 };

/** The HTTP server's deadlines, in milliseconds. */
export interface ServerTimeouts {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
}

/** The HTTP server's options with the timeouts above (tests pass shorter ones to watch them act). */
export function applyServerTimeouts(options: http.ServerOptions, timeouts: Partial<ServerTimeouts> = {}): http.ServerOptions {
  return { ...options, ...SERVER_TIMEOUTS, ...timeouts };
}

/** Options for parts that tests or main configure. */
export interface AppOptions {
  /** Timing of the checkout event stream. */
  eventTiming?: EventStreamTiming;
  /** More routers (the payer page, the demo store), mounted before the 404 handler. */
  mounts?: Array<[string, Router]>;
}

/**
 * What the HTTP surface routes to: the use cases and the few facts it reports (health), nothing of
 * the wiring behind them. `Services` has all of it; tests may pass their own.
 */
export type AppServices = Pick<
  Services,
  | 'config'
  | 'logger'
  | 'merchants'
  | 'rateLimiter'
  | 'idempotency'
  | 'checkout'
  | 'simulator'
  | 'payments'
  | 'withdrawals'
  | 'refunds'
  | 'refundClaims'
  | 'balance'
  | 'webhooks'
  | 'users'
  | 'sessions'
  | 'paymentExport'
  | 'merchantFeed'
  | 'rates'
  | 'registry'
  | 'sources'
  | 'followers'
>;

/** Builds the Express application. */
export function createApp(services: AppServices, options: AppOptions = {}): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  // Who the client is behind a reverse proxy (TRUST_PROXY): every per-client rule uses req.ip.
  app.set('trust proxy', services.config.trustProxy);
  const everyResponse = chain(requestId, securityHeaders(services.config.publicUrl));

  const { config } = services;
  const auth = createMerchantAuth(services.merchants, {
    rateLimiter: services.rateLimiter,
    perMinute: config.rateLimitMerchant,
    idempotency: services.idempotency,
    logger: services.logger,
  });
  // The payer's public routes, per client address.
  // Without a trusted proxy the client is the socket's peer: read there, not through req.ip's header parsing.
  const clientOf: (req: express.Request) => string = config.trustProxy === false ? (req) => req.socket.remoteAddress ?? 'unknown' : (req) => req.ip ?? 'unknown';
  const publicLimit = rateLimit(services.rateLimiter, { policy: 'public', perMinute: config.rateLimitPublic, bucketOf: clientOf });
  const openApi = buildOpenApi({ publicUrl: services.config.publicUrl, simulator: services.simulator !== undefined });

  const checkout = checkoutRoutes(services.checkout, {
    timing: options.eventTiming,
    limit: publicLimit,
    maxStreams: config.sseMaxStreams,
    maxStreamsPerClient: config.sseMaxStreamsPerClient,
  });
  const payments = paymentRoutes(services.payments, services.registry, auth);
  const errors = errorHandler(services.logger);
  // The polled GETs and the create go straight to the handlers the routers below run for them,
  // before the router is entered at all (http/hot-routes.ts).
  takeHotRoutesFirst(
    app,
    [
      { prefix: '/v2/checkout/', handler: chain(everyResponse, checkout.view) },
      { prefix: '/v2/payment/', handler: chain(everyResponse, payments.record) },
      { path: '/v2/payment', handler: chain(everyResponse, payments.list) },
      { path: '/v2/payment', method: 'POST', handler: chain(everyResponse, payments.create) },
    ],
    errors,
  );
  app.use(everyResponse);

  // Each network says what serves it (node, simulator, unserved); one on a node also how its
  // follower stands: ok, behind, unreachable, stalled (with the last block). Each rate source says
  // whether its last round answered (ok, failing with why, unused until a fiat price is asked for).
  app.get('/health', (_req, res) => {
    const networks = Object.fromEntries([...services.sources].map(([name, source]) => [name, { source, ...services.followers.get(name)?.status() }]));
    res.json({ status: 'ok', networks, rateSources: services.rates.health() });
  });
  app.get('/v2/openapi.json', (_req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.json(openApi);
  });
  app.use('/v2/checkout', checkout.router);
  if (services.simulator) app.use('/v2/dev', simulatorRoutes(services.simulator));
  // Each resource at its own prefix, so a request enters only the router that serves it.
  app.use('/v2/payment', payments.router);
  app.use('/v2/withdrawal', withdrawalRoutes(services.withdrawals, auth));
  app.use('/v2/balance', balanceRoutes(services.balance, auth));
  app.use('/v2/reports', reportRoutes(services.paymentExport, auth));
  app.use('/v2/webhooks', webhookRoutes(services.webhooks, auth));
  app.use('/v2/rates', rateRoutes(services.rates, auth));
  app.use('/v2/assets', publicLimit, assetRoutes(services.registry));
  app.use('/v2', refundRoutes(services.refunds, auth));

  app.use('/logos', logoRoutes());
  // Precompressed at build time; merchant sites load the widget module from this origin (CORS).
  app.use('/widget', staticFiles(path.join(DIST_DIR, 'widget'), { cors: true }));
  app.use('/hosted', staticFiles(path.join(DIST_DIR, 'hosted')));
  app.use('/dashboard', dashboardRoutes(services, DIST_DIR, loadDashboardAssets(DIST_DIR)));
  const pageAssets = loadPageAssets(DIST_DIR);
  app.use(payPageRoutes(services.checkout, services.refundClaims, services.config.publicUrl, publicLimit, pageAssets));
  app.use(refundPageRoutes(services.refundClaims, services.config.publicUrl, publicLimit, pageAssets));
  app.use(receiptPageRoutes(services.checkout, services.config.publicUrl, publicLimit, pageAssets));
  for (const [mountPath, router] of options.mounts ?? []) app.use(mountPath, router);

  app.use(methodNotAllowed(openApi.paths as Record<string, object>, '/v2'));
  app.use(notFoundHandler);
  app.use(errors);
  return app;
}

