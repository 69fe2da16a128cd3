/**
 * @module Rendered views of payments, reused while nothing they show can have changed. A view is
 * a function of the payment row, its transactions and one fact of time: whether a stored OPEN
 * payment is past its expiry (it is then reported EXPIRED). The payment's version moves with every
 * change to the first two (database triggers, so in every process), so a view is exact while the
 * version and that fact stand. Bounded; the least recently used view leaves first.
 */
import { Lru } from '../shared/lru.ts';
import { type PaymentStatus, readsExpired } from './payment-status.ts';

/** What decides whether a rendered view still holds: read from the payment row, cheaply. */
export interface PaymentStamp {
  version: number;
  status: PaymentStatus;
  expiresAt: number;
}

interface Entry<V> {
  version: number;
  expiredByTime: boolean;
  view: V;
}

/** A bounded cache of one kind of payment view (the merchant's record, the payer's view). */
export function createPaymentViewCache<V>(capacity: number) {
  const entries = new Lru<string, Entry<V>>(capacity);
  return {
    /** The view rendered for this stamp at `now`, if there is one. */
    get(id: string, stamp: PaymentStamp, now: number): V | undefined {
      const entry = entries.get(id);
      if (!entry || entry.version !== stamp.version || entry.expiredByTime !== readsExpired(stamp, now)) return undefined;
      return entry.view;
    },
    /** Remembers the view rendered from a payment row (its stamp) at `now`. */
    set(id: string, stamp: PaymentStamp, now: number, view: V): void {
      entries.set(id, { version: stamp.version, expiredByTime: readsExpired(stamp, now), view });
    },
    /** Forgets every view (something they all show, a merchant's profile, may have changed). */
    clear(): void {
      entries.clear();
    },
    /** How many views are held. */
    size(): number {
      return entries.size;
    },
  };
}

/** A cache of one kind of payment view. */
export type PaymentViewCache<V> = ReturnType<typeof createPaymentViewCache<V>>;
