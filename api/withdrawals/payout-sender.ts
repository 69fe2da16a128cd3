/**
 * @module The payout job: broadcasts approved withdrawals' payouts through their network's adapter,
 * once each, and follows up those sent but unconfirmed. Approving a withdrawal asks it to send at
 * once; the job (started by `startJobs`) retries whatever is still waiting after a failure or a restart.
 */
import { ledgerOf } from '../balance/ledger.ts';
import type { AssetRegistry } from '../networks/asset-registry.ts';
import { type NetworkAdapter, PayoutWaiting } from '../networks/network-adapter.ts';
import type { Clock } from '../shared/clock.ts';
import type { Logger } from '../shared/logger.ts';
import { parseAmount } from '../shared/money.ts';
import type { UnitOfWork } from '../unit-of-work.ts';
import type { Withdrawal } from './withdrawal.store.ts';

/** What the payout job needs. */
export interface PayoutSenderDeps {
  uow: UnitOfWork;
  registry: AssetRegistry;
  clock: Clock;
  adapter: (network: string) => NetworkAdapter;
  logger: Logger;
}

/** Creates the payout job. */
export function createPayoutSender(deps: PayoutSenderDeps) {
  const { uow, registry, clock, logger } = deps;

  // The payout is recorded as sent, and its amount leaves the reserve, in one transaction.
  function recordSent(withdrawal: Withdrawal, txnId: string, addressFrom: string): Promise<void> {
    return uow.transaction(async (stores) => {
      if (!(await stores.withdrawals.markSent(withdrawal.id, txnId, addressFrom, clock()))) return;
      // A payout signed again after one reverted: the reservation left the ledger with the first.
      if (await stores.ledger.hasWithdrawalStep(withdrawal.id, 'withdrawal-send')) return;
      const asset = registry.byId(withdrawal.assetId);
      await ledgerOf(stores.ledger, clock).send({ merchantId: withdrawal.merchantId, asset }, parseAmount(withdrawal.amount), withdrawal.id);
    });
  }

  /** Broadcasts an approved withdrawal's payout, once; safe to call again after a crash. */
  async function send(id: string): Promise<void> {
    const withdrawal = await uow.stores.withdrawals.findById(id);
    if (!withdrawal || withdrawal.status !== 'APPROVED' || withdrawal.txnId) return;
    const asset = registry.byId(withdrawal.assetId);
    let sent;
    try {
      sent = await deps.adapter(asset.network).send({
        reference: withdrawal.id,
        asset,
        addressTo: withdrawal.addressTo,
        destTag: withdrawal.destTag,
        amount: withdrawal.receivedAmount,
      });
    } catch (err) {
      if (!(err instanceof PayoutWaiting)) throw err;
      // Stays APPROVED, saying why, until it can go: logged when the reason is new.
      if (await uow.stores.withdrawals.setFailureReason(id, err.message, clock())) logger.warn({ withdrawalId: id, reason: err.message }, 'payout waiting');
      return;
    }
    await recordSent(withdrawal, sent.txnId, sent.addressFrom);
  }

  return {
    send,
    /** Broadcasts every approved payout still waiting (after a restart or a failed broadcast), and follows up those sent but unconfirmed. */
    async sendPending(): Promise<void> {
      for (const sent of await uow.stores.withdrawals.sentUnconfirmed()) {
        const adapter = deps.adapter(registry.byId(sent.assetId).network);
        if (!adapter.resend) continue;
        try {
          const now = await adapter.resend(sent.id);
          if (now !== undefined && now !== sent.txnId && (await uow.stores.withdrawals.replaceTxnId(sent.id, sent.txnId, now, clock()))) {
            logger.warn({ withdrawalId: sent.id, from: sent.txnId, to: now }, 'payout transaction replaced');
          }
        } catch (err) {
          logger.error({ err, withdrawalId: sent.id }, 'following up a sent payout failed; it will be retried');
        }
      }
      for (const id of await uow.stores.withdrawals.awaitingSend()) {
        try {
          await send(id);
        } catch (err) {
          logger.error({ err, withdrawalId: id }, 'payout broadcast failed; it will be retried');
        }
      }
    },
  };
}

/** The payout job's interface. */
export type PayoutSender = ReturnType<typeof createPayoutSender>;
