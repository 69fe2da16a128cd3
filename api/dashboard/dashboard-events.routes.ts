/**
 * GET /dashboard/api/events: Server-Sent Events for the signed-in merchant's dashboard, one
 * `payment` event with `{"id"}` whenever one of its payments changes; the page then reads what it
 * shows again through the ordinary routes. Nothing but ids crosses the stream, and only while its
 * session lives: the session is checked again after every event and heartbeat arrives and before it
 * is written, so a sign-out, a password reset or a deleted user (on any instance) ends the stream
 * instead of feeding it ids.
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
    // Written only if the session still lives, asked after the text arrived (a database that cannot
    // tell keeps the stream). One ask at a time per stream: texts arriving while one runs wait for
    // the next, which answers for all of them, so a burst of changes costs a query, not one each.
    let waiting: string[] = [];
    let asking = false;
    const ask = () => {
      asking = true;
      const texts = waiting;
      waiting = [];
      const answered = (live: boolean) => {
        asking = false;
        if (!open) return;
        if (!live) return close();
        res.write(texts.join(''));
        if (waiting.length > 0) ask();
      };
      void deps.sessions.isLive(token).then(answered, () => answered(true));
    };
    const writeIfLive = (text: string) => {
      waiting.push(text);
      if (!asking) ask();
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
