/** A broadcast payout following its confirmations to COMPLETE. Runs inside the chain watcher's transaction. */
import type { AssetRegistry } from '../networks/asset-registry.ts';
import type { Clock } from '../shared/clock.ts';
import type { Stores } from '../unit-of-work.ts';
import type { WithdrawalTransitions } from './withdrawal-transitions.ts';

/** Creates the payout tracker. */
export function createPayoutTracker(deps: { registry: AssetRegistry; clock: Clock; transitions: WithdrawalTransitions }) {
  const { registry, clock, transitions } = deps;
  return {
    /** Records a payout transaction's confirmations; the withdrawal completes once the network's are reached. */
    async confirm(stores: Stores, network: string, txnId: string, confirmations: number): Promise<void> {
      const withdrawal = await stores.withdrawals.findByTxnId(txnId);
      if (!withdrawal) return;
      const needed = registry.network(network).confirmationsNeeded;
      const counted = Math.min(confirmations, needed);
      if (withdrawal.confirmations === counted) return;
      const now = clock();
      await stores.withdrawals.setConfirmations(withdrawal.id, counted, now);
      if (counted >= needed) await transitions.move(stores, withdrawal.id, 'APPROVED', 'COMPLETE', now);
    },
  };
}

/** The payout tracker. */
export type PayoutTracker = ReturnType<typeof createPayoutTracker>;
