/**
 * GET /dashboard/api/events: Server-Sent Events for the signed-in merchant's dashboard, one
 * `payment` event with `{"id"}` whenever one of its payments changes; the page then reads what it
 * shows again through the ordinary routes. Nothing but ids crosses the stream.
 */
import { Router } from 'express';
import type { DashboardAuth } from './dashboard-auth.ts';
import type { MerchantFeed } from './merchant-feed.ts';

const HEARTBEAT_MS = 15_000;

/** The event stream route. */
export function dashboardEventRoutes(deps: { feed: MerchantFeed; auth: DashboardAuth }): Router {
  const router = Router();
  router.get('/', ...deps.auth.signedIn, (req, res) => {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.write('retry: 3000\n\n');
    const stop = deps.feed.subscribe(res.locals.merchant.id, (id) => res.write(`event: payment\ndata: ${JSON.stringify({ id })}\n\n`));
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS).unref();
    req.on('close', () => {
      stop();
      clearInterval(heartbeat);
    });
  });
  return router;
}
