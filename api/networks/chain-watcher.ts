/**
 * @module The chain watcher: turns what network adapters report into payment transactions, status
 * changes, ledger credits and completed payouts. It is the same code for the simulator and for a
 * real chain; each event is applied in one immediate transaction and announced after commit.
 */
import type { Ledger } from '../balance/ledger.store.ts';
import type { PaymentEvents } from '../checkout/payment-events.ts';
import type { Db } from '../db/open-database.ts';
import { decideStatus, isLate } from '../payments/payment-status.ts';
import type { Payment, PaymentStore } from '../payments/payment.store.ts';
import type { Clock } from '../shared/clock.ts';
import type { Logger } from '../shared/logger.ts';
import { Amount, formatAmount, parseAmount } from '../shared/money.ts';
import type { WithdrawalStore } from '../withdrawals/withdrawal.store.ts';
import type { AssetRegistry } from './asset-registry.ts';
import type { ChainEvent, IncomingTransaction } from './network-adapter.ts';

/** What the watcher needs. */
export interface ChainWatcherDeps {
  db: Db;
  payments: PaymentStore;
  withdrawals: WithdrawalStore;
  ledger: Ledger;
  registry: AssetRegistry;
  clock: Clock;
  events: PaymentEvents;
  logger: Logger;
}

/**
 * Creates the watcher; adapters call `handle` with every event. Confirmations are counted up to
 * what the payment (or, for a payout, the network) needs: once a transaction has them it is
 * final here, and adapters stop reporting it.
 */
export function createChainWatcher(deps: ChainWatcherDeps) {
  const { db, payments, withdrawals, ledger, registry, clock, logger } = deps;

  /** Credits newly confirmed transactions and moves the status; always touches updated_at. */
  function settle(payment: Payment, now: number): void {
    const asset = registry.byId(payment.assetId);
    const transactions = payments.transactionsOf(payment.id);
    for (const transaction of transactions) {
      if (transaction.confirmations >= payment.confirmsNeeded && !ledger.isCredited(transaction.id)) {
        ledger.post({
          merchantId: payment.merchantId,
          assetId: asset.id,
          decimals: asset.decimals,
          kind: 'payment-credit',
          availableDelta: parseAmount(transaction.amount),
          reservedDelta: new Amount(0),
          paymentTransactionId: transaction.id,
        });
      }
    }
    payments.setStatus(payment.id, decideStatus(payment, transactions, now), now);
  }

  const applyTransaction = db.transaction((incoming: IncomingTransaction): string | undefined => {
    const payment = payments.findByAddress(incoming.network, incoming.addressTo, incoming.destTag);
    if (!payment) return undefined;
    const asset = registry.byId(payment.assetId);
    if (asset.short !== incoming.assetShort || asset.network !== incoming.network) {
      logger.warn({ paymentId: payment.id, txnId: incoming.txnId, assetShort: incoming.assetShort }, 'transaction of another asset sent to a payment address; not counted');
      return undefined;
    }
    const now = clock();
    const confirmations = Math.min(incoming.confirmations, payment.confirmsNeeded);
    const existing = payments.findTransaction(payment.id, incoming.txnId);
    if (existing) {
      if (existing.confirmations === confirmations) return undefined;
      payments.setConfirmations(existing.id, confirmations);
    } else {
      // Amounts finer than the asset's decimals are cut, never rounded up: we never count more than arrived.
      const amount = formatAmount(parseAmount(incoming.amount).toDecimalPlaces(asset.decimals, Amount.ROUND_DOWN), asset.decimals);
      payments.insertTransaction({
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
    settle(payment, now);
    return payment.id;
  });

  const applyConfirmations = db.transaction((network: string, updates: { txnId: string; confirmations: number }[]): string[] => {
    const now = clock();
    const needed = registry.network(network).confirmationsNeeded;
    const changed = new Map<string, Payment>();
    for (const { txnId, confirmations } of updates) {
      for (const transaction of payments.transactionsByTxnId(txnId)) {
        const payment = changed.get(transaction.paymentId) ?? payments.findById(transaction.paymentId)!;
        const counted = Math.min(confirmations, payment.confirmsNeeded);
        if (transaction.confirmations === counted) continue;
        payments.setConfirmations(transaction.id, counted);
        changed.set(payment.id, payment);
      }
      const withdrawal = withdrawals.findByTxnId(txnId);
      const counted = Math.min(confirmations, needed);
      if (withdrawal && withdrawal.confirmations !== counted) {
        withdrawals.setConfirmations(withdrawal.id, counted, now);
        if (counted >= needed) withdrawals.transition(withdrawal.id, 'APPROVED', 'COMPLETE', now);
      }
    }
    for (const payment of changed.values()) settle(payment, now);
    return [...changed.keys()];
  });

  const applyDrop = db.transaction((txnId: string): string[] => {
    const now = clock();
    const changed: string[] = [];
    for (const transaction of payments.transactionsByTxnId(txnId)) {
      if (ledger.isCredited(transaction.id)) {
        logger.error({ txnId, paymentId: transaction.paymentId }, 'a credited transaction was reported dropped; left in place for review');
        continue;
      }
      payments.deleteTransaction(transaction.id);
      settle(payments.findById(transaction.paymentId)!, now);
      changed.push(transaction.paymentId);
    }
    return changed;
  });

  return {
    /** Applies one chain event, then tells live views which payments changed. */
    handle(event: ChainEvent): void {
      let changed: string[];
      switch (event.kind) {
        case 'transaction': {
          const id = applyTransaction.immediate(event.transaction);
          changed = id ? [id] : [];
          break;
        }
        case 'confirmations':
          changed = applyConfirmations.immediate(event.network, event.updates);
          break;
        case 'dropped':
          changed = applyDrop.immediate(event.txnId);
          break;
      }
      for (const id of changed) deps.events.changed(id);
    },
  };
}

/** The chain watcher's interface. */
export type ChainWatcher = ReturnType<typeof createChainWatcher>;
