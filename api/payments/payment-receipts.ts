/**
 * @module What a payment does with the funds a network reports: record each transaction (late if it
 * came after expiry), follow its confirmations, forget it if the network drops it, credit the
 * merchant's balance once it is confirmed, and move the payment's status. Runs inside the chain
 * watcher's transaction, with the payment row locked.
 *
 * A reorganisation can take back what was counted: a credited transaction whose confirmations fall
 * below what the payment needs (its block left the chain) or that is dropped has its credit
 * reversed by a posting of its own, and the status is decided again, COMPLETE included
 * (COMPLETE → CONFIRMING, or → OPEN/EXPIRED). Mined again, it is credited again, in a new round.
 * A dropped transaction the ledger names is kept as history, out of the payment.
 */
import { ledgerOf } from '../balance/ledger.ts';
import type { AssetRegistry } from '../networks/asset-registry.ts';
import type { IncomingTransaction } from '../networks/network-adapter.ts';
import type { Clock } from '../shared/clock.ts';
import type { Logger } from '../shared/logger.ts';
import { Amount, formatAmount, parseAmount } from '../shared/money.ts';
import type { Stores } from '../unit-of-work.ts';
import { reckon } from './payment-exception.ts';
import { decideStatus, isLate } from './payment-status.ts';
import type { PaymentTransitions } from './payment-transitions.ts';
import type { Payment } from './payment.store.ts';

/** What receiving needs. */
export interface PaymentReceiptsDeps {
  registry: AssetRegistry;
  clock: Clock;
  logger: Logger;
  transitions: PaymentTransitions;
}

/** Creates the receiving use cases; each takes the stores of the caller's transaction. */
export function createPaymentReceipts(deps: PaymentReceiptsDeps) {
  const { registry, clock, logger, transitions } = deps;

  /** Reverses a credited transaction's credit by a posting of its own (the balance may go below zero). */
  async function reverse(stores: Stores, payment: Payment, transaction: { id: number; amount: string; txnId: string }, round: number): Promise<void> {
    const asset = registry.byId(payment.assetId);
    await ledgerOf(stores.ledger, clock).reverse({ merchantId: payment.merchantId, asset }, parseAmount(transaction.amount), {
      paymentTransactionId: transaction.id,
      creditRound: round,
    });
    logger.warn({ paymentId: payment.id, txnId: transaction.txnId, amount: transaction.amount }, 'a reorganisation took back a credited transaction; its credit is reversed');
  }

  /**
   * Credits newly confirmed transactions, reverses credits whose confirmations a reorganisation took
   * back, and moves the status; always touches updated_at. `reconsider` (something was taken back)
   * lets a COMPLETE payment move again.
   */
  async function settle(stores: Stores, payment: Payment, now: number, options: { transactionSeen?: boolean; reconsider?: boolean } = {}): Promise<void> {
    const asset = registry.byId(payment.assetId);
    const transactions = await stores.payments.transactionsOf(payment.id);
    for (const transaction of transactions) {
      const confirmed = transaction.confirmations >= payment.confirmsNeeded;
      const state = await stores.ledger.creditState(transaction.id);
      if (confirmed && !state.credited) {
        await ledgerOf(stores.ledger, clock).credit({ merchantId: payment.merchantId, asset }, parseAmount(transaction.amount), {
          paymentTransactionId: transaction.id,
          creditRound: state.round,
        });
      } else if (!confirmed && state.credited) {
        await reverse(stores, payment, transaction, state.round);
      }
    }
    const terms = options.reconsider && payment.status === 'COMPLETE' ? { ...payment, status: 'CONFIRMING' as const } : payment;
    const status = decideStatus(terms, transactions, now);
    await transitions.move(stores, payment, status, now, { transactionSeen: options.transactionSeen ?? false });
    await transitions.noteException(stores, payment, reckon(status, payment, transactions).exception, now);
  }

  return {
    /** Records (or updates) a transaction paying a payment's address; returns the payment id if it changed. */
    async receive(stores: Stores, incoming: IncomingTransaction): Promise<string | undefined> {
      const payment = await stores.payments.lockByAddress(incoming.network, incoming.addressTo, incoming.destTag);
      if (!payment) return undefined;
      const asset = registry.byId(payment.assetId);
      if (asset.short !== incoming.assetShort || asset.network !== incoming.network) {
        logger.warn({ paymentId: payment.id, txnId: incoming.txnId, assetShort: incoming.assetShort }, 'transaction of another asset sent to a payment address; not counted');
        return undefined;
      }
      const now = clock();
      const confirmations = Math.min(incoming.confirmations, payment.confirmsNeeded);
      const existing = await stores.payments.findTransaction(payment.id, incoming.txnId);
      if (existing?.dropped) {
        // Back after it was dropped (re-broadcast, or mined after all): counted again.
        await stores.payments.setDropped(existing.id, null, confirmations);
        await settle(stores, payment, now, { transactionSeen: true });
        return payment.id;
      }
      if (existing) {
        if (existing.confirmations === confirmations) return undefined;
        await stores.payments.setConfirmations(existing.id, confirmations);
      } else {
        // Amounts finer than the asset counts are cut, never rounded up: we never count more than arrived.
        const amount = formatAmount(parseAmount(incoming.amount).toDecimalPlaces(asset.countedDecimals, Amount.ROUND_DOWN), asset.countedDecimals);
        await stores.payments.insertTransaction({
          paymentId: payment.id,
          txnId: incoming.txnId,
          amount,
          addressFrom: incoming.addressFrom,
          addressTo: incoming.addressTo,
          destTag: incoming.destTag,
          confirmations,
          late: isLate(payment, now),
          seenAt: now,
        });
      }
      await settle(stores, payment, now, { transactionSeen: !existing, reconsider: existing !== undefined && confirmations < existing.confirmations });
      return payment.id;
    },

    /** Moves the confirmations of a network transaction on every payment it paid; returns the payments changed. */
    async confirm(stores: Stores, txnId: string, confirmations: number): Promise<string[]> {
      const now = clock();
      const changed: string[] = [];
      for (const transaction of await stores.payments.transactionsByTxnId(txnId)) {
        const payment = (await stores.payments.lockById(transaction.paymentId))!;
        const counted = Math.min(confirmations, payment.confirmsNeeded);
        if (transaction.confirmations === counted) continue;
        await stores.payments.setConfirmations(transaction.id, counted);
        await settle(stores, payment, now, { reconsider: counted < transaction.confirmations });
        changed.push(payment.id);
      }
      return changed;
    },

    /**
     * Takes a transaction the network dropped out of every payment it paid, reversing its credit if
     * it had one (kept as history when the ledger names it); returns the payments changed.
     */
    async drop(stores: Stores, txnId: string): Promise<string[]> {
      const now = clock();
      const changed: string[] = [];
      for (const transaction of await stores.payments.transactionsByTxnId(txnId)) {
        const payment = (await stores.payments.lockById(transaction.paymentId))!;
        const state = await stores.ledger.creditState(transaction.id);
        if (state.credited) await reverse(stores, payment, transaction, state.round);
        if (state.posted) await stores.payments.setDropped(transaction.id, now);
        else await stores.payments.deleteTransaction(transaction.id);
        await settle(stores, payment, now, { reconsider: true });
        changed.push(transaction.paymentId);
      }
      return changed;
    },
  };
}

/** The receiving use cases. */
export type PaymentReceipts = ReturnType<typeof createPaymentReceipts>;
