/**
 * @module What is out of the ordinary about the funds a payment received (contract section 17), as
 * a pure function of its status, amount and transactions: more than the amount before expiry
 * (OVERPAID), something but not enough by expiry (UNDERPAID), or a transaction first seen after
 * expiry (PAID_LATE). The record, the payer's view, the list and the webhook payload all read it here.
 */
import { type Amount, parseAmount, sumAmounts, ZERO } from '../shared/money.ts';
import { type PaymentStatus, type PaymentTerms, type ReceivedFunds, receivedOnTime } from './payment-status.ts';

/** Every payment exception. */
export const PAYMENT_EXCEPTIONS = ['OVERPAID', 'UNDERPAID', 'PAID_LATE'] as const;
/** A payment exception. */
export type PaymentException = (typeof PAYMENT_EXCEPTIONS)[number];

/** A payment's exception and what the payer is owed because of it. */
export interface Reckoning {
  exception: PaymentException | null;
  /** How much more than the amount arrived before expiry; null unless OVERPAID. */
  overpaid: Amount | null;
  /**
   * What the payer is owed: everything received, less the amount when the payment was paid on time
   * (less what did arrive, when that was within the tolerance). Nothing while the payment is OPEN:
   * what it received so far is on its way to paying it. Refunds already made are not taken off.
   */
  owed: Amount;
}

/**
 * The exception of a payment at its (effective) `status`. OVERPAID comes first on a paid payment
 * (the merchant keeps the amount, the payer is owed the rest, late funds included); PAID_LATE comes
 * before UNDERPAID on an expired one (either way the payer is owed everything).
 */
export function reckon(status: PaymentStatus, payment: Pick<PaymentTerms, 'amount'>, transactions: readonly ReceivedFunds[]): Reckoning {
  const amount = parseAmount(payment.amount);
  const onTime = receivedOnTime(transactions);
  const total = sumAmounts(transactions.map((t) => t.amount));
  const anyLate = transactions.some((t) => t.late);
  const paid = status === 'CONFIRMING' || status === 'COMPLETE';
  const kept = paid ? (onTime.lt(amount) ? onTime : amount) : ZERO;
  // An OPEN payment's funds so far are part of a payment still being made: the payer owes the rest,
  // and is owed nothing until it expires short of the amount (UNDERPAID) or is paid beyond it.
  const owed = status === 'OPEN' ? ZERO : total.minus(kept);
  if (paid && onTime.gt(amount)) return { exception: 'OVERPAID', overpaid: onTime.minus(amount), owed };
  if (anyLate && (paid || status === 'EXPIRED')) return { exception: 'PAID_LATE', overpaid: null, owed };
  if (status === 'EXPIRED' && total.gt(ZERO)) return { exception: 'UNDERPAID', overpaid: null, owed };
  return { exception: null, overpaid: null, owed };
}
