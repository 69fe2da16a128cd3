import { type RequestHandler, type Response, Router } from 'express';
import { DatabaseUnavailable } from '../db/database.ts';
import { ApiError } from '../http/api-error.ts';
import { sendCompressed } from '../http/send-compressed.ts';
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

/** The open streams of one payment and what they were last sent. */
interface PaymentChannel {
  streams: Set<Response>;
  last: CheckoutSnapshot;
  reading: boolean;
  again: boolean;
  /** Stops following the payment (the last stream closed, or the payment reached its end). */
  dispose(): void;
}

/** One server-sent event with the payer's view: the same bytes for every stream of the payment. */
function eventText(snapshot: CheckoutSnapshot): string {
  return `id: ${snapshot.etag}\nevent: payment\ndata: ${JSON.stringify(snapshot.view)}\n\n`;
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
    res.setHeader('Vary', 'Accept-Encoding');
    if (matches(req.headers['if-none-match'], snapshot.etag)) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    sendCompressed(req, res, JSON.stringify(snapshot.view));
  });

  // Streams of one payment share one channel: a change is read and rendered once, and the same
  // bytes go to every stream of it. Resyncs and expiry checks are per payment, heartbeats one timer
  // for all streams, so a thousand payers watching one payment cost what one does.
  const channels = new Map<string, PaymentChannel>();
  const everyStream = new Set<Response>();
  let heartbeat: NodeJS.Timeout | undefined;

  function openChannel(id: string, first: CheckoutSnapshot): PaymentChannel {
    const channel: PaymentChannel = { streams: new Set(), last: first, reading: false, again: false, dispose: () => {} };
    const refresh = async (): Promise<void> => {
      if (channel.reading) {
        channel.again = true;
        return;
      }
      channel.reading = true;
      try {
        do {
          channel.again = false;
          let next: CheckoutSnapshot;
          try {
            next = await checkout.snapshot(id);
          } catch (err) {
            // The database is briefly unavailable: keep the streams, try again on the next resync.
            if (err instanceof DatabaseUnavailable) return;
            closeChannel();
            return;
          }
          if (channels.get(id) !== channel) return;
          if (next.etag !== channel.last.etag) {
            const event = eventText(next);
            for (const stream of channel.streams) stream.write(event);
          }
          channel.last = next;
          if (next.terminal) {
            closeChannel();
            return;
          }
          scheduleExpiry();
        } while (channel.again);
      } finally {
        channel.reading = false;
      }
    };
    let expiryTimer: NodeJS.Timeout | undefined;
    const scheduleExpiry = () => {
      clearTimeout(expiryTimer);
      const { expiresAt, view } = channel.last;
      if (expiresAt === null) return;
      // The status turns EXPIRED by time alone; look again just after that moment.
      const wait = Math.max(0, expiresAt - Date.parse(view.serverTime)) + 50;
      if (wait < 2 ** 31) expiryTimer = setTimeout(() => void refresh(), wait);
    };
    const unsubscribe = checkout.subscribe(id, () => void refresh());
    const resync = setInterval(() => void refresh(), timing.resyncMs);
    scheduleExpiry();
    const closeChannel = () => {
      channel.dispose();
      // A copy: ending a stream removes it from the channel.
      for (const stream of Array.from(channel.streams)) stream.end();
    };
    let disposed = false;
    channel.dispose = () => {
      if (disposed) return;
      disposed = true;
      if (channels.get(id) === channel) channels.delete(id);
      unsubscribe();
      clearInterval(resync);
      clearTimeout(expiryTimer);
    };
    channels.set(id, channel);
    return channel;
  }

  router.get('/:id/events', async (req, res) => {
    const id = req.params.id;
    const client = req.ip ?? 'unknown';
    if (openStreams >= maxStreams || (streamsByClient.get(client) ?? 0) >= maxStreamsPerClient) {
      res.setHeader('Retry-After', String(STREAM_RETRY_SECONDS));
      const whose = openStreams >= maxStreams ? 'this server holds' : 'your address holds';
      throw new ApiError(429, 'rate-limited', `Too many live payment streams are open (${whose} the most allowed). Poll GET /v2/checkout/:id with If-None-Match instead, or try again in ${STREAM_RETRY_SECONDS} s.`);
    }
    // Counted before anything is awaited: streams asked for together each see the others' places
    // taken (counted after the read, a hundred opened at once all passed the check).
    openStreams++;
    streamsByClient.set(client, (streamsByClient.get(client) ?? 0) + 1);
    // Set once the stream joins its payment's channel (after the read); `close` reads it before then too.
    let channel: PaymentChannel | undefined = undefined;
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      openStreams--;
      const left = (streamsByClient.get(client) ?? 1) - 1;
      if (left > 0) streamsByClient.set(client, left);
      else streamsByClient.delete(client);
      if (!channel) return;
      everyStream.delete(res);
      channel.streams.delete(res);
      if (channel.streams.size === 0) channel.dispose();
      if (everyStream.size === 0) {
        clearInterval(heartbeat);
        heartbeat = undefined;
      }
    };
    res.on('close', close);
    req.on('close', close);

    // A payment already watched is sent as last read (kept current by its channel); an unknown id
    // is a plain JSON 404, before any stream starts.
    let first: CheckoutSnapshot;
    try {
      first = channels.get(id)?.last ?? (await checkout.snapshot(id));
    } catch (err) {
      close();
      throw err;
    }
    // The client left while the payment was read.
    if (closed) return;
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
      close();
      res.end();
      return;
    }
    // Another stream may have opened the channel while this one read.
    channel = channels.get(id) ?? openChannel(id, first);
    channel.streams.add(res);
    everyStream.add(res);
    heartbeat ??= setInterval(() => {
      for (const stream of everyStream) stream.write(': keep-alive\n\n');
    }, timing.heartbeatMs);
  });

  return router;
}
