/**
 * @module Notifications that a payment changed, for the payer's live view. Published through the
 * database (PostgreSQL NOTIFY reaches every instance; SQLite stays in this process) and fanned out
 * here to whoever listens for that payment.
 */
import type { Database } from '../db/database.ts';

type Listener = () => void;

const CHANNEL = 'payment_changed';

/** Creates the fan-out, subscribed to the database's channel. */
export async function createPaymentEvents(db: Pick<Database, 'notify' | 'listen'>) {
  const listeners = new Map<string, Set<Listener>>();
  const anyListeners = new Set<(paymentId: string) => void>();

  function deliver(paymentId: string): void {
    for (const listener of Array.from(anyListeners)) listener(paymentId);
    // '*': the connection that carries other instances' changes was lost; anything may have moved.
    const sets = paymentId === '*' ? [...listeners.values()] : [listeners.get(paymentId)];
    // A copy of each set: a listener may unsubscribe while it runs.
    for (const set of sets) if (set) for (const listener of Array.from(set)) listener();
  }
  await db.listen(CHANNEL, deliver);

  return {
    /** Says that a payment changed (after the change is committed), to every instance. */
    changed(paymentId: string): Promise<void> {
      return db.notify(CHANNEL, paymentId);
    },
    /** Calls `listener` whenever the payment changes; returns the unsubscribe function. */
    subscribe(paymentId: string, listener: Listener): () => void {
      let set = listeners.get(paymentId);
      if (!set) {
        set = new Set();
        listeners.set(paymentId, set);
      }
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(paymentId);
      };
    },
    /** Calls `listener` with the id of every payment that changes ('*': any may have); returns the unsubscribe function. */
    subscribeAll(listener: (paymentId: string) => void): () => void {
      anyListeners.add(listener);
      return () => anyListeners.delete(listener);
    },
    /** How many listeners are attached, for tests and shutdown. */
    listenerCount(): number {
      let n = 0;
      for (const set of listeners.values()) n += set.size;
      return n + anyListeners.size;
    },
  };
}

/** The payment events' interface. */
export type PaymentEvents = Awaited<ReturnType<typeof createPaymentEvents>>;
