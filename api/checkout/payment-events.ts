/** In-process notifications that a payment changed, for the payer's live view. */
type Listener = () => void;

/** Fans payment changes out to whoever listens for that payment. */
export function createPaymentEvents() {
  const listeners = new Map<string, Set<Listener>>();
  return {
    /** Says that a payment changed (after the change is committed). */
    changed(paymentId: string): void {
      const set = listeners.get(paymentId);
      if (set) for (const listener of [...set]) listener();
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
    /** How many listeners are attached, for tests and shutdown. */
    listenerCount(): number {
      let n = 0;
      for (const set of listeners.values()) n += set.size;
      return n;
    },
  };
}

/** The payment events' interface. */
export type PaymentEvents = ReturnType<typeof createPaymentEvents>;
