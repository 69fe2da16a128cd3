import { type RequestHandler, Router } from 'express';
import { DatabaseUnavailable } from '../db/database.ts';
import { ApiError } from '../http/api-error.ts';
import type { CheckoutService, CheckoutSnapshot } from './checkout.service.ts';

/** Timing of the live stream; tests shorten it. */
export interface EventStreamTiming {
  /** Comment lines that keep proxies from closing an idle stream. */
  heartbeatMs: number;
  /** Re-reads the payment even without a notification (another process may have changed it). */
  resyncMs: number;
}

const DEFAULT_TIMING: EventStreamTiming = { heartbeatMs: 15_000, resyncMs: 5_000 };

/** How the payer's routes are bounded. */
export interface CheckoutRouteOptions {
  timing?: EventStreamTiming | undefined;
  /** The public rate limit (per client address), on every route. */
  limit?: RequestHandler;
  /** Open event streams this instance serves at most, and per client address. */
  maxStreams?: number;
  maxStreamsPerClient?: number;
}

// Over a stream cap the widget keeps polling the view with ETags; it may try a stream again later.
const STREAM_RETRY_SECONDS = 30;

// The payer's view is public by design (the unguessable id is the bearer link), so any site may
// embed it; nothing private is in it.
const openCors: RequestHandler = (req, res, next) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', 'ETag, X-Request-Id');
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'If-None-Match, Cache-Control, Last-Event-ID');
    res.setHeader('Access-Control-Max-Age', '86400');
    res.status(204).end();
    return;
  }
  next();
};

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

/** GET /checkout/:id (ETag, 304) and GET /checkout/:id/events (server-sent events). */
export function checkoutRoutes(checkout: CheckoutService, options: CheckoutRouteOptions = {}): Router {
  const timing = options.timing ?? DEFAULT_TIMING;
  const maxStreams = options.maxStreams ?? Infinity;
  const maxStreamsPerClient = options.maxStreamsPerClient ?? Infinity;
  const router = Router();
  router.use(openCors);
  if (options.limit) router.use(options.limit);

  // Open streams, in all and per client address.
  let openStreams = 0;
  const streamsByClient = new Map<string, number>();

  router.get('/:id', async (req, res) => {
    const snapshot = await checkout.snapshot(req.params.id);
    res.setHeader('ETag', snapshot.etag);
    res.setHeader('Cache-Control', 'no-cache');
    if (matches(req.headers['if-none-match'], snapshot.etag)) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.json(snapshot.view);
  });

  router.get('/:id/events', async (req, res) => {
    const id = req.params.id;
    const client = req.ip ?? 'unknown';
    if (openStreams >= maxStreams || (streamsByClient.get(client) ?? 0) >= maxStreamsPerClient) {
      res.setHeader('Retry-After', String(STREAM_RETRY_SECONDS));
      const whose = openStreams >= maxStreams ? 'this server holds' : 'your address holds';
      throw new ApiError(429, 'rate-limited', `Too many live payment streams are open (${whose} the most allowed). Poll GET /v2/checkout/:id with If-None-Match instead, or try again in ${STREAM_RETRY_SECONDS} s.`);
    }
    let last = await checkout.snapshot(id); // an unknown id is a plain JSON 404, before any stream starts
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    const send = (snapshot: CheckoutSnapshot) => {
      res.write(`id: ${snapshot.etag}\nevent: payment\ndata: ${JSON.stringify(snapshot.view)}\n\n`);
    };
    res.write('retry: 3000\n\n');
    send(last);
    if (last.terminal) {
      res.end();
      return;
    }
    openStreams++;
    streamsByClient.set(client, (streamsByClient.get(client) ?? 0) + 1);

    let expiryTimer: NodeJS.Timeout | undefined;
    // One read at a time; a change announced during a read is read again right after it.
    let reading = false;
    let again = false;
    const refresh = async (): Promise<void> => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          let next: CheckoutSnapshot;
          try {
            next = await checkout.snapshot(id);
          } catch (err) {
            // The database is briefly unavailable: keep the stream, try again on the next resync.
            if (err instanceof DatabaseUnavailable) return;
            close();
            return;
          }
          if (closed) return;
          if (next.etag !== last.etag) send(next);
          last = next;
          if (next.terminal) {
            close();
            return;
          }
          scheduleExpiry();
        } while (again);
      } finally {
        reading = false;
      }
    };
    const scheduleExpiry = () => {
      clearTimeout(expiryTimer);
      if (last.expiresAt === null) return;
      // The status turns EXPIRED by time alone; look again just after that moment.
      const wait = Math.max(0, last.expiresAt - Date.parse(last.view.serverTime)) + 50;
      if (wait < 2 ** 31) expiryTimer = setTimeout(() => void refresh(), wait);
    };
    const unsubscribe = checkout.subscribe(id, () => void refresh());
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), timing.heartbeatMs);
    const resync = setInterval(() => void refresh(), timing.resyncMs);
    scheduleExpiry();
    let closed = false;
    function close() {
      if (closed) return;
      closed = true;
      openStreams--;
      const left = (streamsByClient.get(client) ?? 1) - 1;
      if (left > 0) streamsByClient.set(client, left);
      else streamsByClient.delete(client);
      unsubscribe();
      clearInterval(heartbeat);
      clearInterval(resync);
      clearTimeout(expiryTimer);
      res.end();
    }
    req.on('close', close);
  });

  return router;
}
