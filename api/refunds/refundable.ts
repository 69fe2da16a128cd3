/**
 * @module How much of a payment can still be refunded, and what its payer is owed: received, less
 * every refund of it that is not CANCELLED (a pending refund counts at once, so refunds together
 * never exceed what was received). Only confirmed funds count: a refund of money still unconfirmed
 * would be paid from the merchant's other funds if the payer's transaction then left the chain
 * (replaced, dropped). Read inside the transaction that holds the payment's row.
 */
import type { Asset, AssetRegistry } from '../networks/asset-registry.ts';
import { type PaymentException, reckon } from '../payments/payment-exception.ts';
import { effectiveStatus } from '../payments/payment-status.ts';
import type { Payment } from '../payments/payment.store.ts';
import { Amount, sumAmounts, ZERO } from '../shared/money.ts';
import type { Stores } from '../unit-of-work.ts';

/** Where a payment stands for refunds. */
export interface Refundability {
  asset: Asset;
  exception: PaymentException | null;
  /** Everything received and confirmed, late transactions included. */
  received: Amount;
  /** What may still be refunded. */
  refundable: Amount;
  /** What the payer is still owed (refunds already made taken off), never below zero. */
  owed: Amount;
}

/** Whether the payer of a payment may ask for a refund themselves: expired with funds (UNDERPAID) or PAID_LATE. */
export function payerMayRequest(exception: PaymentException | null): boolean {
  return exception === 'UNDERPAID' || exception === 'PAID_LATE';
}

/** Whether a received transaction has the confirmations its payment needs (it is credited then). */
export function isConfirmed(payment: Pick<Payment, 'confirmsNeeded'>, transaction: { confirmations: number }): boolean {
  return transaction.confirmations >= payment.confirmsNeeded;
}

/** What is left to refund of a payment at `now`. */
export async function refundabilityOf(stores: Stores, registry: AssetRegistry, payment: Payment, now: number): Promise<Refundability> {
  const transactions = (await stores.payments.transactionsOf(payment.id)).filter((t) => isConfirmed(payment, t));
  const pending = sumAmounts(await stores.refunds.pendingAmountsOf(payment.id));
  const reckoning = reckon(effectiveStatus(payment, now), payment, transactions);
  const received = sumAmounts(transactions.map((t) => t.amount));
  const owed = reckoning.owed.minus(pending);
  const asset = registry.byId(payment.assetId);
  // Received amounts may be counted finer than the API's digits (Monero's 12): a refund is paid in
  // the API's digits, so what may go back is floored to them (the dust below stays with the merchant).
  const payable = (value: Amount) => value.toDecimalPlaces(asset.decimals, Amount.ROUND_DOWN);
  return {
    asset,
    exception: reckoning.exception,
    received,
    refundable: received.lt(pending) ? ZERO : payable(received.minus(pending)),
    owed: owed.isNegative() ? ZERO : payable(owed),
  };
}
