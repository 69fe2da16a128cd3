/**
 * @module The one place a withdrawal's status moves: a conditional update (of two racing moves, one
 * changes the row) and, when it changed, the webhook event announcing it, in the same transaction.
 * Approve and cancel (the merchant) and completion (the payout's confirmations) come through here.
 */
import type { AssetRegistry } from '../networks/asset-registry.ts';
import type { Stores } from '../unit-of-work.ts';
import type { WebhookEventType } from '../webhooks/webhook.schema.ts';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.ts';
import type { WithdrawalStatus } from './withdrawal.schema.ts';
import type { Withdrawal } from './withdrawal.store.ts';
import { toWithdrawalOutput } from './withdrawal.view.ts';

const EVENTS: Partial<Record<WithdrawalStatus, WebhookEventType>> = {
  APPROVED: 'withdrawal.approved',
  COMPLETE: 'withdrawal.completed',
  CANCELLED: 'withdrawal.cancelled',
};

/** Told, inside the same transaction, of every move a withdrawal made (a refund follows the withdrawal that pays it). */
export type WithdrawalFollower = (stores: Stores, withdrawal: Withdrawal, at: number) => Promise<void>;

/** Creates the transitions over the registry (for rendering) and the outbox. */
export function createWithdrawalTransitions(deps: { registry: AssetRegistry; outbox: WebhookOutbox }) {
  const { registry, outbox } = deps;
  const followers: WithdrawalFollower[] = [];

  /**
   * Announces a withdrawal's status now (its event, if the status has one), with the record as GET
   * returns it. A refund's payout, stored APPROVED at once, is announced here as an approve is.
   */
  async function announce(stores: Stores, withdrawal: Withdrawal, at: number): Promise<void> {
    const type = EVENTS[withdrawal.status];
    if (!type) return;
    await outbox.emit(stores, {
      merchantId: withdrawal.merchantId,
      subjectId: withdrawal.id,
      type,
      at,
      render: async () => toWithdrawalOutput(registry, withdrawal, (await stores.merchants.findById(withdrawal.merchantId))!),
    });
  }

  return {
    /** Adds a follower of every move (wired once, by services.ts). */
    follow(follower: WithdrawalFollower): void {
      followers.push(follower);
    },

    announce,

    /** Moves a withdrawal from `from` to `to`; false (and nothing announced) if it was not in `from`. */
    async move(stores: Stores, id: string, from: WithdrawalStatus, to: WithdrawalStatus, at: number): Promise<boolean> {
      if (!(await stores.withdrawals.transition(id, from, to, at))) return false;
      const withdrawal = (await stores.withdrawals.findById(id))!;
      await announce(stores, withdrawal, at);
      for (const follower of followers) await follower(stores, withdrawal, at);
      return true;
    },
  };
}

/** The withdrawal status transitions. */
export type WithdrawalTransitions = ReturnType<typeof createWithdrawalTransitions>;
