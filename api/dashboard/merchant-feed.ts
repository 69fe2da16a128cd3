/**
 * @module The dashboard's live feed: the ids of a merchant's payments as they change (chain events,
 * expiry, from any instance), for its open dashboards to read again. One subscription to the
 * payment events for the whole process; a payment's merchant is looked up once and remembered.
 * Creations are not announced by the payment events, so each open merchant is also checked for a
 * newer payment every `pollMs`.
 */
import type { PaymentEvents } from '../checkout/payment-events.ts';
import { Lru } from '../shared/lru.ts';
import type { UnitOfWork } from '../unit-of-work.ts';

type FeedListener = (paymentId: string) => void;

/** Creates the feed over the payment events. */
export function createMerchantFeed(deps: { uow: UnitOfWork; events: PaymentEvents; pollMs?: number; now: () => number }) {
  const { uow, events } = deps;
  const byMerchant = new Map<string, Set<FeedListener>>();
  const ownerOf = new Lru<string, string>(10_000);
  const newest = new Map<string, string | undefined>();
  let unsubscribe: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;

  function send(merchantId: string, paymentId: string): void {
    for (const listener of Array.from(byMerchant.get(merchantId) ?? [])) listener(paymentId);
  }

  async function changed(paymentId: string): Promise<void> {
    if (paymentId === '*') {
      for (const merchantId of byMerchant.keys()) send(merchantId, '*');
      return;
    }
    let merchantId = ownerOf.get(paymentId);
    if (merchantId === undefined) {
      merchantId = (await uow.stores.payments.findById(paymentId))?.merchantId;
      if (merchantId === undefined) return;
      ownerOf.set(paymentId, merchantId);
    }
    send(merchantId, paymentId);
  }

  async function poll(): Promise<void> {
    for (const merchantId of byMerchant.keys()) {
      const [latest] = await uow.stores.payments.page(merchantId, {}, deps.now(), 0, 1);
      if (newest.has(merchantId) && newest.get(merchantId) !== latest?.id && latest) send(merchantId, latest.id);
      newest.set(merchantId, latest?.id);
    }
  }

  return {
    /** Calls `listener` with each changed payment id of the merchant; returns the unsubscribe function. */
    subscribe(merchantId: string, listener: FeedListener): () => void {
      unsubscribe ??= events.subscribeAll((id) => void changed(id).catch(() => {}));
      timer ??= setInterval(() => void poll().catch(() => {}), deps.pollMs ?? 2_000).unref();
      let set = byMerchant.get(merchantId);
      if (!set) byMerchant.set(merchantId, (set = new Set()));
      set.add(listener);
      void poll().catch(() => {});
      return () => {
        set.delete(listener);
        if (set.size > 0) return;
        byMerchant.delete(merchantId);
        newest.delete(merchantId);
        if (byMerchant.size > 0) return;
        unsubscribe?.();
        unsubscribe = undefined;
        clearInterval(timer);
        timer = undefined;
      };
    },
  };
}

/** The merchant feed. */
export type MerchantFeed = ReturnType<typeof createMerchantFeed>;
