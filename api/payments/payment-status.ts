/**
 * @module The payment state machine, as pure functions of a payment, its transactions and the time.
 *
 * OPEN → CONFIRMING → COMPLETE, OPEN → COMPLETE, OPEN → EXPIRED, CONFIRMING → OPEN (a transaction
 * dropped). Only transactions seen before expiry count towards the amount; later ones are `late`.
 */
import { Amount, parseAmount, sumAmounts, ZERO } from '../shared/money.ts';

/** Every payment status; the specification shows OPEN and EXPIRED, the other two are extensions. */
export const PAYMENT_STATUSES = ['OPEN', 'CONFIRMING', 'COMPLETE', 'EXPIRED'] as const;
/** A payment status. */
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** What the state machine needs to know about a payment. */
export interface PaymentTerms {
  status: PaymentStatus;
  amount: string;
  confirmsNeeded: number;
  expiresAt: number;
  /** The share (percent, a decimal string) the payment may fall short by and still count as paid (PAYMENT_TOLERANCE_PERCENT when it was created). */
  tolerancePercent: string;
}

/** What the state machine needs to know about a received transaction. */
export interface ReceivedFunds {
  amount: string;
  confirmations: number;
  late: boolean;
}

/** Whether a payment's time is up at `now`: its expiry is the first instant it no longer takes payments. */
export function isPastExpiry(payment: Pick<PaymentTerms, 'expiresAt'>, now: number): boolean {
  return now >= payment.expiresAt;
}

/**
 * The one rule of time: a stored OPEN payment past its expiry reads as EXPIRED, even before the sweep
 * stores it so. The SQL of the lists names the same rule `OPEN_PAST_EXPIRY` (payment-list.store.ts).
 */
export function readsExpired(payment: Pick<PaymentTerms, 'status' | 'expiresAt'>, now: number): boolean {
  return payment.status === 'OPEN' && isPastExpiry(payment, now);
}

/** The status reported at `now` (see `readsExpired`). */
export function effectiveStatus(payment: Pick<PaymentTerms, 'status' | 'expiresAt'>, now: number): PaymentStatus {
  return readsExpired(payment, now) ? 'EXPIRED' : payment.status;
}

/** The least that pays a payment in full: `amount × (1 − tolerance/100)`, exact. */
export function paidThreshold(payment: Pick<PaymentTerms, 'amount' | 'tolerancePercent'>): Amount {
  return parseAmount(payment.amount).times(new Amount(100).minus(payment.tolerancePercent)).dividedBy(100);
}

/** What arrived before expiry: the only funds that count towards the amount. */
export function receivedOnTime(transactions: readonly ReceivedFunds[]): Amount {
  return sumAmounts(transactions.filter((t) => !t.late).map((t) => t.amount));
}

/** The status a payment moves to given all its transactions at `now`. COMPLETE never changes here: only a reorganisation reopens it (payment-receipts decides again as from CONFIRMING). */
export function decideStatus(payment: PaymentTerms, transactions: readonly ReceivedFunds[], now: number): PaymentStatus {
  if (payment.status === 'COMPLETE') return 'COMPLETE';
  const onTime = transactions.filter((t) => !t.late);
  const threshold = paidThreshold(payment);
  const confirmed = sumAmounts(onTime.filter((t) => t.confirmations >= payment.confirmsNeeded).map((t) => t.amount));
  if (confirmed.gte(threshold)) return 'COMPLETE';
  if (receivedOnTime(onTime).gte(threshold)) return 'CONFIRMING';
  return payment.status === 'EXPIRED' || isPastExpiry(payment, now) ? 'EXPIRED' : 'OPEN';
}

/** Amount minus what arrived before expiry, never below zero; zero once that is within the tolerance. */
export function amountDue(payment: Pick<PaymentTerms, 'amount' | 'tolerancePercent'>, transactions: readonly ReceivedFunds[]): Amount {
  const onTime = receivedOnTime(transactions);
  if (onTime.gte(paidThreshold(payment))) return ZERO;
  const due = parseAmount(payment.amount).minus(onTime);
  return due.isNegative() ? ZERO : due;
}

/** Whether a transaction first seen at `seenAt` came after expiry, so it does not count towards the amount. */
export function isLate(payment: Pick<PaymentTerms, 'expiresAt'>, seenAt: number): boolean {
  return isPastExpiry(payment, seenAt);
}

/** Whether no further status change can happen (the payer page stops listening). */
export function isTerminal(status: PaymentStatus): boolean {
  return status === 'COMPLETE' || status === 'EXPIRED';
}
