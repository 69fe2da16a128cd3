/** The store's one error type, and how the client's errors become one. */
import { CheckoutApiError } from '../client/index.ts';

/** A failure the store shows as a page (or JSON to its own script), with its HTTP status. */
export class StoreError extends Error {
  override name = 'StoreError';

  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

/** Turns a client error into the page the shopper sees; anything else passes through unchanged. */
export function toStoreError(err: unknown): unknown {
  if (!(err instanceof CheckoutApiError)) return err;
  if (err.code === 'payment-not-found') return new StoreError(404, 'Order not found', 'There is no order with that payment id.');
  if (err.code === 'withdrawal-not-found') return new StoreError(404, 'Withdrawal not found', 'There is no withdrawal with that id.');
  if (err.code === 'invalid-state') return new StoreError(409, 'Already decided', err.message);
  if (err.status === 0 || err.code === 'invalid-response') {
    return new StoreError(502, 'Payment service unreachable', `The store could not reach the payment service (${err.code}): ${err.message}`);
  }
  return new StoreError(502, 'Payment service error', `The payment service answered ${err.status} ${err.code}: ${err.message}`);
}
