/**
 * @module A refund that has its address is paid out by a withdrawal of its own, APPROVED at once, so
 * the payout job signs, stores and broadcasts it exactly as any approved withdrawal (once, across
 * instances and restarts). Its invoice names the refund (`refund:<id>`). Being approved, it is
 * announced (`withdrawal.approved`) as an approve would announce it, before its completion.
 */
import { ledgerOf } from '../balance/ledger.ts';
import type { Asset } from '../networks/asset-registry.ts';
import type { Clock } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import { formatAmount, parseAmount } from '../shared/money.ts';
import type { Stores } from '../unit-of-work.ts';
import type { Withdrawal } from '../withdrawals/withdrawal.store.ts';
import type { WithdrawalTransitions } from '../withdrawals/withdrawal-transitions.ts';
import type { Refund } from './refund.store.ts';

/**
 * Stores the withdrawal paying `refund` to its destination and reserves its amount: handed over
 * from the refund's own reservation when it holds one, else taken from the available balance now
 * (InsufficientFunds when it is not there), and announces it approved. Runs inside the caller's
 * transaction.
 */
export async function startRefundPayout(
  stores: Stores,
  deps: { clock: Clock; withdrawalTransitions: Pick<WithdrawalTransitions, 'announce'> },
  refund: Pick<Refund, 'id' | 'merchantId' | 'amount'>,
  destination: { asset: Asset; addressTo: string; destTag: string | null },
): Promise<Withdrawal> {
  const { clock } = deps;
  const { asset } = destination;
  const amount = parseAmount(refund.amount);
  const fee = parseAmount(asset.withdrawalFee);
  const now = clock();
  const withdrawal: Withdrawal = {
    id: newId(),
    merchantId: refund.merchantId,
    assetId: asset.id,
    amount: formatAmount(amount, asset.decimals),
    fee: formatAmount(fee, asset.decimals),
    receivedAmount: formatAmount(amount.minus(fee), asset.decimals),
    addressTo: destination.addressTo,
    destTag: destination.destTag,
    addressFrom: null,
    txnId: null,
    confirmations: 0,
    status: 'APPROVED',
    failureReason: null,
    customer: null,
    invoice: `refund:${refund.id}`,
    createdAt: now,
    updatedAt: now,
  };
  await stores.withdrawals.insert(withdrawal);
  const ledger = ledgerOf(stores.ledger, clock);
  const account = { merchantId: refund.merchantId, asset };
  if (await stores.ledger.holdsRefundReserve(refund.id)) await ledger.handOverRefund(account, amount, refund.id, withdrawal.id);
  else await ledger.reserve(account, amount, withdrawal.id);
  await deps.withdrawalTransitions.announce(stores, withdrawal, now);
  return withdrawal;
}
