/**
 * A broadcast payout following its confirmations to COMPLETE, or, when it was mined but reverted
 * (nothing moved), back to waiting for a new transaction. Runs inside the chain watcher's transaction.
 */
import type { AssetRegistry } from '../networks/asset-registry.ts';
import type { ConfirmationUpdate } from '../networks/network-adapter.ts';
import type { Clock } from '../shared/clock.ts';
import type { Stores } from '../unit-of-work.ts';
import type { WithdrawalTransitions } from './withdrawal-transitions.ts';

/** Creates the payout tracker. */
export function createPayoutTracker(deps: { registry: AssetRegistry; clock: Clock; transitions: WithdrawalTransitions }) {
  const { registry, clock, transitions } = deps;
  return {
    /**
     * Records a payout transaction's confirmations; the withdrawal completes once the network's are
     * reached. A reverted one moved nothing: it never counts. Once its block is final (no
     * reorganisation can mine it again, perhaps succeeding, beside a new transaction), the withdrawal
     * is released to be signed again on a new nonce.
     */
    async confirm(stores: Stores, network: string, update: ConfirmationUpdate): Promise<void> {
      const { txnId, confirmations } = update;
      const withdrawal = await stores.withdrawals.findByTxnId(txnId);
      if (!withdrawal) return;
      const now = clock();
      if (update.reverted) {
        if (!update.final) return;
        const reason = `The payout transaction ${txnId} was mined but reverted: nothing was sent (only its gas was spent). It is signed again as a new transaction.`;
        if (!(await stores.withdrawals.payoutReverted(withdrawal.id, txnId, reason, now))) return;
        // Released only with its stored payout set aside, or the payout job would broadcast the dead one again.
        if (!(await stores.wallet.retirePayout(withdrawal.id, txnId))) throw new Error(`the stored payout of withdrawal ${withdrawal.id} is not ${txnId}, which reverted; nothing released`);
        return;
      }
      const needed = registry.network(network).confirmationsNeeded;
      const counted = Math.min(confirmations, needed);
      if (withdrawal.confirmations === counted) return;
      await stores.withdrawals.setConfirmations(withdrawal.id, counted, now);
      if (counted >= needed) await transitions.move(stores, withdrawal.id, 'APPROVED', 'COMPLETE', now);
    },
  };
}

/** The payout tracker. */
export type PayoutTracker = ReturnType<typeof createPayoutTracker>;
