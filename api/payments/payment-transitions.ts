/**
 * @module The one place a payment's stored status moves. Each move compares the status before and
 * after, and announces a real change to the merchant's webhooks in the same transaction, so an
 * event goes out exactly when the status changed (receiving, confirmations, a dropped transaction,
 * the expiry sweep: all of them come through here).
 */
import type { Merchant } from '../merchants/merchant.store.ts';
import type { AssetRegistry } from '../networks/asset-registry.ts';
import type { Stores } from '../unit-of-work.ts';
import type { WebhookEventType } from '../webhooks/webhook.schema.ts';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.ts';
import type { PaymentException } from './payment-exception.ts';
import type { PaymentStatus } from './payment-status.ts';
import type { Payment } from './payment.store.ts';
import { toPaymentOutput } from './payment.view.ts';

/** The webhook event a status change announces, if any. */
export function paymentEventFor(from: PaymentStatus, to: PaymentStatus): WebhookEventType | undefined {
  if (from === to) return undefined;
  // A reorganisation took back what completed it.
  if (from === 'COMPLETE') return 'payment.reopened';
  switch (to) {
    case 'CONFIRMING':
      return 'payment.confirming';
    case 'COMPLETE':
      return 'payment.completed';
    case 'EXPIRED':
      return 'payment.expired';
    case 'OPEN':
      return from === 'CONFIRMING' ? 'payment.reopened' : undefined;
  }
}

const EXCEPTION_EVENTS: Partial<Record<PaymentException, WebhookEventType>> = { OVERPAID: 'payment.overpaid', PAID_LATE: 'payment.paid-late' };

/** Creates the transitions over the registry (for rendering) and the outbox. */
export function createPaymentTransitions(deps: {
  registry: AssetRegistry;
  publicUrl: string;
  outbox: WebhookOutbox;
  /** Queues the payer's receipt mail when a payment completes, in the same transaction. */
  mail?: { paymentCompleted(stores: Stores, payment: Payment): Promise<void> };
}) {
  const { outbox } = deps;

  // The record as GET /v2/payment/:id returns it at `now`, read inside the caller's transaction.
  async function render(stores: Stores, paymentId: string, now: number): Promise<object> {
    const payment = (await stores.payments.findById(paymentId))!;
    const merchant = (await stores.merchants.findById(payment.merchantId)) as Merchant;
    return toPaymentOutput(deps, payment, await stores.payments.transactionsOf(paymentId), merchant, now, await stores.refunds.pendingAmountsOf(paymentId));
  }

  function announce(stores: Stores, merchantId: string, paymentId: string, type: WebhookEventType, now: number): Promise<void> {
    return outbox.emit(stores, { merchantId, subjectId: paymentId, type, at: now, render: () => render(stores, paymentId, now) });
  }

  return {
    /**
     * Stores `to` on a locked payment (touching updated_at either way) and announces a change;
     * `transactionSeen` first announces the new transaction that led here. Both carry the record as
     * it is after the move.
     */
    async move(stores: Stores, payment: Payment, to: PaymentStatus, now: number, options: { transactionSeen?: boolean } = {}): Promise<void> {
      await stores.payments.setStatus(payment.id, to, now);
      if (options.transactionSeen) await announce(stores, payment.merchantId, payment.id, 'payment.transaction-seen', now);
      const type = paymentEventFor(payment.status, to);
      if (type) await announce(stores, payment.merchantId, payment.id, type, now);
      if (type === 'payment.completed') await deps.mail?.paymentCompleted(stores, payment);
    },

    /**
     * Records the payment's exception after a change of its funds or status, announcing
     * payment.overpaid or payment.paid-late when it has just become that (once: a repeat of the same
     * exception is no news). Carries the record as it is now.
     */
    async noteException(stores: Stores, payment: Payment, exception: PaymentException | null, now: number): Promise<void> {
      if (payment.exception === exception) return;
      await stores.payments.setException(payment.id, exception);
      const type = exception === null ? undefined : EXCEPTION_EVENTS[exception];
      if (type) await announce(stores, payment.merchantId, payment.id, type, now);
    },

    /** Stores EXPIRED on every OPEN payment past its expiry and announces each; returns their ids. */
    async expireDue(stores: Stores, now: number): Promise<string[]> {
      const expired = await stores.payments.expireDue(now);
      for (const { id, merchantId } of expired) await announce(stores, merchantId, id, 'payment.expired', now);
      return expired.map((p) => p.id);
    },
  };
}

/** The payment status transitions. */
export type PaymentTransitions = ReturnType<typeof createPaymentTransitions>;
