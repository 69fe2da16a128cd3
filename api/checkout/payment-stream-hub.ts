/**
 * @module The payer stream hub: every open event stream of this instance, grouped by payment. The
 * streams of one payment share one channel: a change is read and rendered once and the same bytes go
 * to every stream of it; resyncs and expiry checks are per payment, heartbeats one timer for all, so
 * a thousand payers watching one payment cost what one does. It also keeps the stream caps, in all
 * and per client address.
 */
import type { Response } from 'express';
import { DatabaseUnavailable } from '../db/database.ts';
import type { CheckoutService, CheckoutSnapshot } from './checkout.service.ts';

/** Timing of the live stream; tests shorten it. */
export interface EventStreamTiming {
  /** Comment lines that keep proxies from closing an idle stream. */
  heartbeatMs: number;
  /** Re-reads the payment even without a notification (another process may have changed it). */
  resyncMs: number;
}

/** The production timing. */
export const DEFAULT_TIMING: EventStreamTiming = { heartbeatMs: 15_000, resyncMs: 5_000 };

/** The open streams of one payment and what they were last sent. */
interface PaymentChannel {
  streams: Set<Response>;
  last: CheckoutSnapshot;
  reading: boolean;
  again: boolean;
  /** Stops following the payment (the last stream closed, or the payment reached its end). */
  dispose(): void;
}

/** A place taken for one stream; `leave` gives it back (once, however the stream ends). */
export interface StreamPlace {
  /** Joins the payment's channel: the stream's headers and first event are written. */
  join(res: Response, first: CheckoutSnapshot): void;
  leave(): void;
  /** Whether the place was given back (the client left). */
  readonly left: boolean;
}

/** One server-sent event with the payer's view: the same bytes for every stream of the payment. */
export function eventText(snapshot: CheckoutSnapshot): string {
  return `id: ${snapshot.etag}\nevent: payment\ndata: ${JSON.stringify(snapshot.view)}\n\n`;
}

/** Creates the hub over the checkout use cases. */
export function createPaymentStreamHub(checkout: CheckoutService, options: { timing: EventStreamTiming; maxStreams: number; maxStreamsPerClient: number }) {
  const { timing, maxStreams, maxStreamsPerClient } = options;
  // Open streams, in all and per client address.
  let openStreams = 0;
  const streamsByClient = new Map<string, number>();
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

  return {
    /**
     * Takes a place for a stream of `client`, counted before anything is awaited (streams asked for
     * together each see the others' places taken); or says which cap is full.
     */
    admit(id: string, client: string): StreamPlace | 'server-full' | 'client-full' {
      if (openStreams >= maxStreams) return 'server-full';
      if ((streamsByClient.get(client) ?? 0) >= maxStreamsPerClient) return 'client-full';
      openStreams++;
      streamsByClient.set(client, (streamsByClient.get(client) ?? 0) + 1);
      // Set once the stream joins its payment's channel; `leave` works before then too.
      let channel: PaymentChannel | undefined = undefined;
      let stream: Response | undefined = undefined;
      let left = false;
      return {
        get left() {
          return left;
        },
        join(res, first) {
          stream = res;
          // Another stream may have opened the channel while this one read.
          channel = channels.get(id) ?? openChannel(id, first);
          channel.streams.add(res);
          everyStream.add(res);
          heartbeat ??= setInterval(() => {
            for (const open of everyStream) open.write(': keep-alive\n\n');
          }, timing.heartbeatMs);
        },
        leave() {
          if (left) return;
          left = true;
          openStreams--;
          const others = (streamsByClient.get(client) ?? 1) - 1;
          if (others > 0) streamsByClient.set(client, others);
          else streamsByClient.delete(client);
          if (!channel || !stream) return;
          everyStream.delete(stream);
          channel.streams.delete(stream);
          if (channel.streams.size === 0) channel.dispose();
          if (everyStream.size === 0) {
            clearInterval(heartbeat);
            heartbeat = undefined;
          }
        },
      };
    },

    /** A payment's view as its streams were last sent it (kept current by its channel), else read now. */
    current: (id: string): Promise<CheckoutSnapshot> => {
      const known = channels.get(id)?.last;
      return known ? Promise.resolve(known) : checkout.snapshot(id);
    },
  };
}

/** The payer stream hub's interface. */
export type PaymentStreamHub = ReturnType<typeof createPaymentStreamHub>;
