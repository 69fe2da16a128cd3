/**
 * @module The demo store's HTTP surface, mounted at /demo: server-rendered pages, two form posts,
 * a JSON status for the page's script, and the store's static files.
 */
import express, { type ErrorRequestHandler, type RequestHandler, type Response, Router } from 'express';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DemoStore } from './demo-store.ts';
import { StoreError } from './store-error.ts';
import type { Order } from './fulfilment.ts';
import { type Payouts, readPayoutForm } from './payouts.ts';
import { errorPage } from './views/error.page.ts';
import { renderPage, type PageContent, type StoreFrame } from './views/layout.ts';
import { orderPage } from './views/order.page.ts';
import { ordersPage, statusFilter } from './views/orders.page.ts';
import { shopPage } from './views/shop.page.ts';
import type { StoreWebhooks } from './store-webhooks.ts';

const PUBLIC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'public');

/** What the routes need besides the store. */
export interface DemoRouteOptions {
  frame: () => StoreFrame;
  /** The payment service's public URL, where the browser loads the widget and reaches the API. */
  publicUrl: string;
  /** The store's webhook endpoint. */
  webhooks: StoreWebhooks;
  /** Unexpected errors go here before the shopper gets a generic page. */
  onError: (err: unknown) => void;
}

/** The Content-Security-Policy of the store's pages: files only, from here and the payment service. */
export function demoCsp(publicUrl: string): string {
  const service = new URL(publicUrl).origin;
  return [
    "default-src 'none'",
    `script-src 'self' ${service}`,
    "style-src 'self'",
    `img-src 'self' ${service} data:`,
    `connect-src 'self' ${service}`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

// A shopper's browser may post only from the store's own pages.
const sameOriginPosts: RequestHandler = (req, _res, next) => {
  const site = req.get('Sec-Fetch-Site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    next(new StoreError(403, 'Not allowed', 'Orders can only be placed from the store\'s own pages.'));
    return;
  }
  next();
};

/** How many webhook attempts the orders page lists. */
const DELIVERIES_SHOWN = 20;

const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });

/** Creates the store's router. */
export function demoRoutes(store: DemoStore, payouts: Payouts | undefined, options: DemoRouteOptions): Router {
  const router = Router();
  const csp = demoCsp(options.publicUrl);
  const widgetScript = `${options.publicUrl}/widget/crypto-checkout.js`;
  const apiBase = `${options.publicUrl}/v2`;

  const sendPage = (res: Response, page: PageContent, status = 200) => {
    res.status(status).setHeader('Content-Security-Policy', csp);
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(renderPage(options.frame(), page));
  };
  const withdrawalsUrl = (changedId: string) => `${options.frame().basePath}/orders?changed=${encodeURIComponent(changedId)}#withdrawals-title`;
  const orderUrl = (order: Pick<Order, 'payment'> | string) => `${options.frame().basePath}/orders/${typeof order === 'string' ? order : order.payment.id}`;

  router.use('/assets', express.static(PUBLIC_DIR, { maxAge: '10m', index: false, fallthrough: false }));

  // Called by the payment service, not a browser: verified by signature over the raw bytes.
  router.post('/webhooks', express.raw({ type: () => true, limit: '256kb' }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const answer = await options.webhooks.receive(raw, req.headers);
    res.status(answer.status).type('text').send(answer.text);
  });

  router.get('/', async (_req, res) => {
    const frame = options.frame();
    sendPage(res, { title: 'Shop', current: 'shop', body: shopPage(frame, await store.catalogue()) });
  });

  router.post('/orders', sameOriginPosts, form, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const payment = await store.placeOrder(body.product, body.asset);
    res.redirect(303, orderUrl(payment.id));
  });

  router.get('/orders', async (req, res) => {
    const status = statusFilter(req.query.status);
    const changedId = typeof req.query.changed === 'string' ? req.query.changed : undefined;
    const frame = options.frame();
    const [overview, deliveries] = await Promise.all([store.overview(status), options.webhooks.deliveries(DELIVERIES_SHOWN)]);
    sendPage(res, { title: 'Orders', current: 'orders', body: ordersPage(frame, overview, status, { changedId }, deliveries) });
  });

  if (payouts) {
    router.post('/withdrawals', sameOriginPosts, form, async (req, res) => {
      const payoutForm = readPayoutForm((req.body ?? {}) as Record<string, unknown>);
      const result = await payouts.request(payoutForm);
      if (result.ok) {
        res.redirect(303, withdrawalsUrl(result.withdrawal.id));
        return;
      }
      const frame = options.frame();
      const body = ordersPage(frame, await store.overview(undefined), undefined, { refused: { result, form: payoutForm } }, await options.webhooks.deliveries(DELIVERIES_SHOWN));
      sendPage(res, { title: 'Orders', current: 'orders', body }, 422);
    });

    router.post('/withdrawals/:id/:action', sameOriginPosts, form, async (req, res, next) => {
      const id = req.params.id as string;
      if (req.params.action === 'approve') await payouts.approve(id);
      else if (req.params.action === 'cancel') await payouts.cancel(id);
      else {
        next();
        return;
      }
      res.redirect(303, withdrawalsUrl(id));
    });
  } else {
    // The store has no owner login, so it moves only simulated funds.
    router.post(['/withdrawals', '/withdrawals/:id/:action'], (_req, _res, next) => {
      next(new StoreError(404, 'No payouts here', 'The demo store pays out only on simulated networks (SIMULATOR=on), since it has no owner login.'));
    });
  }

  router.get('/orders/:id', async (req, res) => {
    const order = await store.order(req.params.id);
    const frame = options.frame();
    sendPage(res, {
      title: `Order ${order.payment.invoice}`,
      body: orderPage(frame, order, { apiBase, simulated: req.query.simulated === '1', fulfilment: options.webhooks.fulfilment(order.payment.id) }),
      widgetScript,
    });
  });

  router.get('/orders/:id/status', async (req, res) => {
    const order = await store.order(req.params.id);
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      state: order.state.kind,
      label: order.state.label,
      message: order.state.message,
      paymentStatus: order.payment.status,
      received: `${order.payment.totalReceivedAmount} ${order.payment.asset.short}`,
      checkedAt: order.checkedAt,
    });
  });

  router.post('/orders/:id/simulate', sameOriginPosts, form, async (req, res) => {
    const id = req.params.id as string;
    const simulated = await store.simulatePayment(id);
    if (req.accepts(['html', 'json']) === 'json') res.status(202).json(simulated);
    else res.redirect(303, `${orderUrl(id)}?simulated=1`);
  });

  router.get('/return', async (req, res) => {
    const invoice = typeof req.query.invoice === 'string' ? req.query.invoice : '';
    res.redirect(303, orderUrl(await store.orderByInvoice(invoice)));
  });

  const pageErrors: ErrorRequestHandler = (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const known = err instanceof StoreError ? err : fromExpress(err);
    if (!known) options.onError(err);
    const status = known?.status ?? 500;
    const title = known?.title ?? 'Something went wrong';
    const message = known?.message ?? 'The store hit an unexpected error; nothing was charged. Try again in a moment.';
    if (req.accepts(['html', 'json']) === 'json') {
      res.status(status).json({ error: { title, message } });
      return;
    }
    sendPage(res, { title, body: errorPage(options.frame(), title, message) }, status);
  };
  router.use((_req, _res, next) => next(new StoreError(404, 'Page not found', 'The store has no such page.')));
  router.use(pageErrors);
  return router;
}

/** Errors of Express's own parts (static files, form bodies) with a status meant for the client. */
function fromExpress(err: unknown): StoreError | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const status = (err as { status?: unknown }).status;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  return status === 404 ? new StoreError(404, 'Page not found', 'The store has no such page.') : new StoreError(status, 'Bad request', 'The store could not read that request.');
}
