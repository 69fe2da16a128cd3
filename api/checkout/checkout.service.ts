/** The payer's side of a payment: the public view, its ETag, and expiry sweeps that notify viewers. */
import { createHash } from 'node:crypto';
import { ApiError } from '../http/api-error.ts';
import type { MerchantService } from '../merchants/merchant.service.ts';
import type { AssetRegistry } from '../networks/asset-registry.ts';
import { isTerminal } from '../payments/payment-status.ts';
import type { Payment, PaymentStore } from '../payments/payment.store.ts';
import { paymentFigures } from '../payments/payment.view.ts';
import { type Clock, isoTime } from '../shared/clock.ts';
import { isUuid } from '../shared/ids.ts';
import { formatAmount } from '../shared/money.ts';
import type { CheckoutOutput } from './checkout.schema.ts';
import type { PaymentEvents } from './payment-events.ts';

/** A view with the validator that changes exactly when the view (bar serverTime) changes. */
export interface CheckoutSnapshot {
  view: CheckoutOutput;
  etag: string;
  terminal: boolean;
  /** When the status will change by time alone (expiry), if it can. */
  expiresAt: number | null;
}

/** Creates the checkout use cases. */
export function createCheckoutService(deps: {
  payments: PaymentStore;
  merchants: Pick<MerchantService, 'findById'>;
  registry: AssetRegistry;
  clock: Clock;
  events: PaymentEvents;
}) {
  const { payments, merchants, registry, clock, events } = deps;

  function snapshotOf(payment: Payment): CheckoutSnapshot {
    const now = clock();
    const transactions = payments.transactionsOf(payment.id);
    const figures = paymentFigures(registry, payment, transactions, now);
    const merchant = merchants.findById(payment.merchantId)!;
    const body: Omit<CheckoutOutput, 'serverTime'> = {
      id: payment.id,
      status: figures.status,
      amount: figures.amount,
      amountDue: figures.amountDue,
      totalReceivedAmount: figures.totalReceivedAmount,
      asset: registry.toJson(figures.asset),
      addressTo: payment.addressTo,
      destTag: payment.destTag,
      paymentUri: figures.paymentUri,
      confirmsNeeded: payment.confirmsNeeded,
      timeout: payment.timeout,
      expiresAt: isoTime(payment.expiresAt),
      createdAt: isoTime(payment.createdAt),
      invoice: payment.invoice,
      checkoutUrl: payment.checkoutUrl,
      merchant: { name: merchant.name, siteUrl: merchant.siteUrl, logoUrl: merchant.logoUrl },
      transactions: transactions.map((t) => ({
        txnId: t.txnId,
        receivedAmount: formatAmount(t.amount, figures.asset.decimals),
        confirmations: t.confirmations,
        date: isoTime(t.seenAt),
        late: t.late,
      })),
    };
    const etag = `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 32)}"`;
    return {
      view: { ...body, serverTime: isoTime(now) },
      etag,
      terminal: isTerminal(figures.status),
      expiresAt: figures.status === 'OPEN' ? payment.expiresAt : null,
    };
  }

  return {
    /** The payer-safe view of a payment; 404 payment-not-found for an unknown id. */
    snapshot(id: string): CheckoutSnapshot {
      const payment = isUuid(id) ? payments.findById(id) : undefined;
      if (!payment) throw new ApiError(404, 'payment-not-found', `No payment with id "${id}" exists.`);
      return snapshotOf(payment);
    },

    /** Stores EXPIRED on overdue payments and tells their viewers; returns how many expired. */
    sweepExpired(): number {
      const expired = payments.expireDue(clock());
      for (const id of expired) events.changed(id);
      return expired.length;
    },

    /** Subscribes to a payment's changes. */
    subscribe: events.subscribe,
  };
}

/** The checkout use cases' interface. */
export type CheckoutService = ReturnType<typeof createCheckoutService>;
