/**
 * @module Posting to the ledger: the running balance moves by each posting's deltas and never goes
 * below zero. Must run inside the caller's write transaction, which holds the account (see
 * `LedgerStore.lockAccount`) from the balance read to the new row.
 */
import type { Clock } from '../shared/clock.ts';
import { type Amount, formatAmount, parseAmount, ZERO } from '../shared/money.ts';
import type { LedgerKind, LedgerStore } from './ledger.store.ts';

/** One merchant's balance of one asset. */
export interface Balance {
  assetId: number;
  available: Amount;
  reserved: Amount;
}

/** A credit or debit to post. */
export interface LedgerPosting {
  merchantId: string;
  assetId: number;
  decimals: number;
  kind: LedgerKind;
  availableDelta: Amount;
  reservedDelta: Amount;
  paymentTransactionId?: number;
  withdrawalId?: string;
  refundId?: string;
  /** The credit round of a payment transaction's credit or reversal (default 0). */
  creditRound?: number;
  /**
   * A reversal may take the available balance below zero (the merchant already withdrew what a
   * reorganisation took back): the debt blocks withdrawals until new credits cover it.
   */
  mayGoNegative?: boolean;
}

/** A posting would take the available balance below zero. */
export class InsufficientFunds extends Error {
  override name = 'InsufficientFunds';
  constructor(
    readonly available: Amount,
    readonly needed: Amount,
  ) {
    super(`available ${available.toString()} is less than the ${needed.toString()} needed`);
  }
}

/** A merchant's current balance of one asset. */
export async function balanceOf(ledger: LedgerStore, merchantId: string, assetId: number): Promise<Balance> {
  const latest = await ledger.latest(merchantId, assetId);
  return { assetId, available: latest ? parseAmount(latest.available) : ZERO, reserved: latest ? parseAmount(latest.reserved) : ZERO };
}

/** Posts a row; throws InsufficientFunds rather than let the available balance go below zero. */
export async function post(ledger: LedgerStore, clock: Clock, posting: LedgerPosting): Promise<Balance> {
  await ledger.lockAccount(posting.merchantId, posting.assetId);
  const before = await balanceOf(ledger, posting.merchantId, posting.assetId);
  const available = before.available.plus(posting.availableDelta);
  const reserved = before.reserved.plus(posting.reservedDelta);
  if (available.isNegative() && !posting.mayGoNegative) throw new InsufficientFunds(before.available, posting.availableDelta.negated());
  if (reserved.isNegative()) throw new Error(`ledger: reserved balance of ${posting.merchantId}/${posting.assetId} would go negative`);
  await ledger.insert({
    merchantId: posting.merchantId,
    assetId: posting.assetId,
    kind: posting.kind,
    availableDelta: formatAmount(posting.availableDelta, posting.decimals),
    reservedDelta: formatAmount(posting.reservedDelta, posting.decimals),
    availableAfter: formatAmount(available, posting.decimals),
    reservedAfter: formatAmount(reserved, posting.decimals),
    paymentTransactionId: posting.paymentTransactionId ?? null,
    withdrawalId: posting.withdrawalId ?? null,
    refundId: posting.refundId ?? null,
    createdAt: clock(),
    creditRound: posting.creditRound ?? 0,
  });
  return { assetId: posting.assetId, available, reserved };
}

/** A merchant's account of one asset, as the vocabulary below names it. */
export interface LedgerAccount {
  merchantId: string;
  /** `countedDecimals`: the digits the ledger keeps (Monero's 12, finer than the API's 8). */
  asset: { id: number; countedDecimals: number };
}

/** Where a payment credit (or its reversal) comes from: one received transaction, in one credit round. */
export interface CreditSource {
  paymentTransactionId: number;
  creditRound: number;
}

/**
 * The ledger's vocabulary over one transaction's ledger store: every movement of a merchant's
 * money is one of these, each a posting of its own kind.
 */
export function ledgerOf(store: LedgerStore, clock: Clock) {
  const book = (account: LedgerAccount, posting: Omit<LedgerPosting, 'merchantId' | 'assetId' | 'decimals'>) =>
    post(store, clock, { merchantId: account.merchantId, assetId: account.asset.id, decimals: account.asset.countedDecimals, ...posting });
  return {
    /** A confirmed payment transaction adds its amount to the available balance. */
    credit: (account: LedgerAccount, amount: Amount, source: CreditSource) =>
      book(account, { kind: 'payment-credit', availableDelta: amount, reservedDelta: ZERO, ...source }),
    /** A credit that a reorganisation took back leaves the available balance, which may go below zero. */
    reverse: (account: LedgerAccount, amount: Amount, source: CreditSource) =>
      book(account, { kind: 'payment-reversal', availableDelta: amount.negated(), reservedDelta: ZERO, ...source, mayGoNegative: true }),
    /** A new withdrawal moves its amount from available to reserved; InsufficientFunds when it is not there. */
    reserve: (account: LedgerAccount, amount: Amount, withdrawalId: string) =>
      book(account, { kind: 'withdrawal-reserve', availableDelta: amount.negated(), reservedDelta: amount, withdrawalId }),
    /**
     * A withdrawal that will not be paid gives its amount back to the available balance: out of the
     * reserve, or, once a payout was sent (and then reverted), from the `send` that took it.
     */
    release: (account: LedgerAccount, amount: Amount, withdrawalId: string, options: { sent: boolean }) =>
      book(account, { kind: 'withdrawal-release', availableDelta: amount, reservedDelta: options.sent ? ZERO : amount.negated(), withdrawalId }),
    /** A broadcast payout takes its amount out of the reserve. */
    send: (account: LedgerAccount, amount: Amount, withdrawalId: string) =>
      book(account, { kind: 'withdrawal-send', availableDelta: ZERO, reservedDelta: amount.negated(), withdrawalId }),
    /** A refund created without an address holds its amount under its own name; InsufficientFunds when it is not there. */
    reserveRefund: (account: LedgerAccount, amount: Amount, refundId: string) =>
      book(account, { kind: 'refund-reserve', availableDelta: amount.negated(), reservedDelta: amount, refundId }),
    /** A refund cancelled before it had an address gives its reservation back to the available balance. */
    releaseRefund: (account: LedgerAccount, amount: Amount, refundId: string) =>
      book(account, { kind: 'refund-release', availableDelta: amount, reservedDelta: amount.negated(), refundId }),
    /**
     * A refund that got its address hands its reservation to the withdrawal that pays it out: released
     * under the refund's name and reserved under the withdrawal's, the balance unchanged, so the
     * payout machinery finds the withdrawal reserved like any other (a debt the account owes meanwhile
     * cannot block it: the amount was set aside before).
     */
    handOverRefund: async (account: LedgerAccount, amount: Amount, refundId: string, withdrawalId: string) => {
      await book(account, { kind: 'refund-release', availableDelta: amount, reservedDelta: amount.negated(), refundId });
      return book(account, { kind: 'withdrawal-reserve', availableDelta: amount.negated(), reservedDelta: amount, withdrawalId, mayGoNegative: true });
    },
  };
}

/** The ledger's vocabulary (see `ledgerOf`). */
export type Ledger = ReturnType<typeof ledgerOf>;
