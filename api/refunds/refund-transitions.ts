/**
 * @module The one place a refund's status moves: a conditional update (of two racing moves, one
 * changes the row) and the webhook event announcing it, in the same transaction. A refund being
 * paid out follows its withdrawal: COMPLETE with it, CANCELLED with it (an operator's cancel of an
 * approved withdrawal included).
 */
import type { Stores } from '../unit-of-work.ts';
import type { WebhookEventType } from '../webhooks/webhook.schema.ts';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.ts';
import type { Withdrawal } from '../withdrawals/withdrawal.store.ts';
import type { RefundStatus } from './refund.store.ts';
import { type RefundViewDeps, toRefundOutput } from './refund.view.ts';

const EVENTS: Record<RefundStatus, WebhookEventType | undefined> = {
  AWAITING_ADDRESS: undefined,
  REQUESTED: 'refund.requested',
  APPROVED: 'refund.approved',
  COMPLETE: 'refund.completed',
  CANCELLED: 'refund.cancelled',
};

/** Creates the refund transitions over the outbox. */
export function createRefundTransitions(deps: { view: RefundViewDeps; outbox: WebhookOutbox }) {
  const { view, outbox } = deps;

  /** Announces a refund's status now (its event), with the record as GET returns it. */
  async function announce(stores: Stores, refundId: string, at: number): Promise<void> {
    const refund = (await stores.refunds.findById(refundId))!;
    const type = EVENTS[refund.status];
    if (type) await outbox.emit(stores, { merchantId: refund.merchantId, type, at, render: async () => toRefundOutput(view, refund) });
  }

  /** Moves a refund from `from` to `to` and announces it; false (nothing announced) if it was not in `from`. */
  async function move(stores: Stores, id: string, from: RefundStatus, to: RefundStatus, at: number): Promise<boolean> {
    if (!(await stores.refunds.transition(id, from, to, at))) return false;
    await announce(stores, id, at);
    return true;
  }

  return {
    announce,
    move,
    /** Follows the withdrawal that pays a refund out (wired with `WithdrawalTransitions.follow`). */
    async withdrawalMoved(stores: Stores, withdrawal: Withdrawal, at: number): Promise<void> {
      if (withdrawal.status !== 'COMPLETE' && withdrawal.status !== 'CANCELLED') return;
      const refund = await stores.refunds.findByWithdrawal(withdrawal.id);
      if (refund) await move(stores, refund.id, 'APPROVED', withdrawal.status, at);
    },
  };
}

/** The refund transitions. */
export type RefundTransitions = ReturnType<typeof createRefundTransitions>;
