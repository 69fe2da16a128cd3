/**
 * @module The operator's way out for an approved withdrawal that cannot go out (a recipient the
 * token blacklists, payouts that reverted): cancelled, and its amount back in the merchant's
 * available balance. Only while nothing is signed for it: a signed payout may still reach the
 * network, and cancelling then could pay and refund the same amount.
 */
import { ledgerOf } from '../balance/ledger.ts';
import type { AssetRegistry } from '../networks/asset-registry.ts';
import type { Clock } from '../shared/clock.ts';
import { parseAmount } from '../shared/money.ts';
import type { Stores, UnitOfWork } from '../unit-of-work.ts';
import type { Withdrawal } from './withdrawal.store.ts';
import type { WithdrawalTransitions } from './withdrawal-transitions.ts';

/** Why an approved withdrawal cannot be cancelled now; the message says what to do, `reason` which case it is. */
export class CancelRefused extends Error {
  override name = 'CancelRefused';
  constructor(
    message: string,
    readonly reason: 'unknown' | 'not-approved' | 'changed' | 'signed',
    /** The signed payout's transaction id, when that is the reason. */
    readonly txnId?: string,
  ) {
    super(message);
  }
}

/**
 * Cancels an APPROVED withdrawal with no payout signed and releases its amount, inside the caller's
 * transaction; throws CancelRefused otherwise. A refund's cancel uses it for the refund's withdrawal.
 */
export async function cancelApprovedIn(stores: Stores, deps: { registry: AssetRegistry; clock: Clock; transitions: WithdrawalTransitions }, id: string): Promise<Withdrawal> {
  const { registry, clock, transitions } = deps;
  const found = await stores.withdrawals.findById(id);
  if (!found) throw new CancelRefused(`No withdrawal with id "${id}".`, 'unknown');
  if (found.status !== 'APPROVED') throw new CancelRefused(`The withdrawal is ${found.status}; this command cancels an APPROVED one (the merchant cancels an OPEN one through the API).`, 'not-approved');
  const now = clock();
  // The conditional move takes the row, so a payout being signed now either committed before
  // (and is found below) or finds the withdrawal cancelled and signs nothing.
  if (!(await transitions.move(stores, id, 'APPROVED', 'CANCELLED', now))) throw new CancelRefused('The withdrawal changed meanwhile; look at it again.', 'changed');
  const signed = found.txnId ?? (await stores.wallet.payout(id))?.txnId ?? (await stores.chains.byReference(id))?.txnId;
  if (signed) throw new CancelRefused(`A payout transaction (${signed}) is signed for this withdrawal and may reach the network; it cannot be cancelled while it stands.`, 'signed', signed);
  const asset = registry.byId(found.assetId);
  const amount = parseAmount(found.amount);
  // Before any broadcast the amount is still reserved; after one that reverted it left the ledger then.
  const sent = await stores.ledger.hasWithdrawalStep(id, 'withdrawal-send');
  await ledgerOf(stores.ledger, clock).release({ merchantId: found.merchantId, asset }, amount, id, { sent });
  return (await stores.withdrawals.findById(id))!;
}

/** Creates the operator's cancel. */
export function createWithdrawalCancel(deps: { uow: UnitOfWork; registry: AssetRegistry; clock: Clock; transitions: WithdrawalTransitions }) {
  return {
    /** Cancels an APPROVED withdrawal with no payout signed, and releases its amount; throws CancelRefused otherwise. */
    async cancelApproved(id: string): Promise<Withdrawal> {
      return deps.uow.transaction((stores) => cancelApprovedIn(stores, deps, id));
    },
  };
}
