/**
 * GET /dashboard/api/events: Server-Sent Events for the signed-in merchant's dashboard, one
 * `payment` event with `{"id"}` whenever one of its payments changes; the page then reads what it
 * shows again through the ordinary routes. Nothing but ids crosses the stream, and only while its
 * session lives: the session is checked again before every event and heartbeat, so a sign-out, a
 * password reset or a deleted user (on any instance) ends the stream instead of feeding it ids.
 */
import { Router } from 'express';
import type { DashboardAuth } from './dashboard-auth.ts';
import type { MerchantFeed } from './merchant-feed.ts';
import type { Sessions } from './sessions.ts';

const HEARTBEAT_MS = 15_000;

/** The event stream route. */
export function dashboardEventRoutes(deps: { feed: MerchantFeed; auth: DashboardAuth; sessions: Pick<Sessions, 'isLive'> }): Router {
  const router = Router();
  router.get('/', ...deps.auth.following, (req, res) => {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.write('retry: 3000\n\n');
    const token: string = res.locals.sessionToken;
    let open = true;
    // Written only if the session still lives (a database that cannot tell keeps the stream).
    const writeIfLive = (text: string) => {
      void deps.sessions.isLive(token).then(
        (live) => {
          if (!open) return;
          if (live) res.write(text);
          else close();
        },
        () => open && res.write(text),
      );
    };
    const stop = deps.feed.subscribe(res.locals.merchant.id, (id) => writeIfLive(`event: payment\ndata: ${JSON.stringify({ id })}\n\n`));
    const heartbeat = setInterval(() => writeIfLive(': heartbeat\n\n'), HEARTBEAT_MS).unref();
    function close(): void {
      if (!open) return;
      open = false;
      stop();
      clearInterval(heartbeat);
      res.end();
    }
    req.on('close', close);
  });
  return router;
}
