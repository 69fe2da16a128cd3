/**
 * @module The chain watcher: hands what network adapters report to the use cases it concerns
 * (payments receiving funds, payouts confirming), each event in one transaction, and announces the
 * payments that changed once it committed. The same code serves the simulator and real chains.
 */
import type { PaymentEvents } from '../checkout/payment-events.ts';
import type { PaymentReceipts } from '../payments/payment-receipts.ts';
import type { UnitOfWork } from '../unit-of-work.ts';
import type { PayoutTracker } from '../withdrawals/payout-tracker.ts';
import type { ChainEvent } from '../networks/network-adapter.ts';

/** What the watcher needs. */
export interface ChainWatcherDeps {
  uow: UnitOfWork;
  receipts: PaymentReceipts;
  payouts: PayoutTracker;
  events: PaymentEvents;
}

/**
 * Creates the watcher; adapters call `handle` with every event. Confirmations are counted up to
 * what the payment (or, for a payout, the network) needs: once a transaction has them it is final
 * here, and adapters stop reporting it.
 */
export function createChainWatcher(deps: ChainWatcherDeps) {
  const { uow, receipts, payouts, events } = deps;

  async function apply(event: ChainEvent): Promise<string[]> {
    return uow.transaction(async (stores) => {
      switch (event.kind) {
        case 'transaction': {
          const id = await receipts.receive(stores, event.transaction);
          return id ? [id] : [];
        }
        case 'confirmations': {
          const changed = new Set<string>();
          for (const update of event.updates) {
            // A reverted transaction paid nothing: only a payout of ours can be one, and it never counts.
            if (!update.reverted) for (const id of await receipts.confirm(stores, update.txnId, update.confirmations)) changed.add(id);
            await payouts.confirm(stores, event.network, update);
          }
          return [...changed];
        }
        case 'dropped':
          return receipts.drop(stores, event.txnId);
      }
    });
  }

  return {
    /** Applies one chain event, then tells live views (in every instance) which payments changed. */
    async handle(event: ChainEvent): Promise<void> {
      for (const id of await apply(event)) await events.changed(id);
    },
  };
}

/** The chain watcher's interface. */
export type ChainWatcher = ReturnType<typeof createChainWatcher>;
