/** The payer's routes: the view with its ETag, and its live event stream (the stream hub keeps the streams). */
import { type RequestHandler, Router } from 'express';
import { ApiError } from '../http/api-error.ts';
import { chain } from '../http/chain.ts';
import { sendCompressed } from '../http/send-compressed.ts';
import type { CheckoutService, CheckoutSnapshot } from './checkout.service.ts';
import { createPaymentStreamHub, DEFAULT_TIMING, type EventStreamTiming, eventText } from './payment-stream-hub.ts';

export type { EventStreamTiming } from './payment-stream-hub.ts';

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

/** The payer's routes, and the view's whole chain for direct dispatch (`http/hot-routes.ts`). */
export interface CheckoutRoutes {
  /** GET /checkout/:id (ETag, 304) and GET /checkout/:id/events (server-sent events). */
  router: Router;
  /** GET /checkout/:id as one handler: CORS, the public limit, the view (reads `req.params.id`). */
  view: RequestHandler;
}

/** The payer's routes, mounted at /v2/checkout. */
export function checkoutRoutes(checkout: CheckoutService, options: CheckoutRouteOptions = {}): CheckoutRoutes {
  const router = Router();
  const guard = options.limit ? chain(openCors, options.limit) : openCors;
  router.use(guard);

  const hub = createPaymentStreamHub(checkout, {
    timing: options.timing ?? DEFAULT_TIMING,
    maxStreams: options.maxStreams ?? Infinity,
    maxStreamsPerClient: options.maxStreamsPerClient ?? Infinity,
  });

  const view: RequestHandler = async (req, res) => {
    const snapshot = await checkout.snapshot(req.params.id as string);
    res.setHeader('ETag', snapshot.etag);
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Vary', 'Accept-Encoding');
    if (matches(req.headers['if-none-match'], snapshot.etag)) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    sendCompressed(req, res, snapshot.text);
  };
  router.get('/:id', view);

  router.get('/:id/events', async (req, res) => {
    const id = req.params.id;
    const place = hub.admit(id, req.ip ?? 'unknown');
    if (typeof place === 'string') {
      res.setHeader('Retry-After', String(STREAM_RETRY_SECONDS));
      const whose = place === 'server-full' ? 'this server holds' : 'your address holds';
      throw new ApiError(429, 'rate-limited', `Too many live payment streams are open (${whose} the most allowed). Poll GET /v2/checkout/:id with If-None-Match instead, or try again in ${STREAM_RETRY_SECONDS} s.`);
    }
    res.on('close', place.leave);
    req.on('close', place.leave);

    // An unknown id is a plain JSON 404, before any stream starts.
    let first: CheckoutSnapshot;
    try {
      first = await hub.current(id);
    } catch (err) {
      place.leave();
      throw err;
    }
    // The client left while the payment was read.
    if (place.left) return;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    res.write('retry: 3000\n\n');
    res.write(eventText(first));
    if (first.terminal) {
      place.leave();
      res.end();
      return;
    }
    place.join(res, first);
  });

  return { router, view: chain(guard, view) };
}
