import type { Merchant } from '../merchants/merchant.store.ts';
import type { AssetRegistry } from '../networks/asset-registry.ts';
import { isoTime } from '../shared/clock.ts';
import type { WithdrawalOutput } from './withdrawal.schema.ts';
import type { Withdrawal } from './withdrawal.store.ts';

/** Builds the withdrawal record of section 2.6, with the contract's extensions. */
export function toWithdrawalOutput(registry: AssetRegistry, withdrawal: Withdrawal, merchant: Merchant): WithdrawalOutput {
  return {
    id: withdrawal.id,
    txnId: withdrawal.txnId,
    amount: withdrawal.amount,
    receivedAmount: withdrawal.receivedAmount,
    asset: registry.toJson(registry.byId(withdrawal.assetId)),
    addressTo: withdrawal.addressTo,
    addressFrom: withdrawal.addressFrom,
    destTag: withdrawal.destTag,
    status: withdrawal.status,
    customer: withdrawal.customer,
    merchant,
    invoice: withdrawal.invoice,
    createdAt: isoTime(withdrawal.createdAt),
    updatedAt: isoTime(withdrawal.updatedAt),
    fee: withdrawal.fee,
    confirmations: withdrawal.confirmations,
    ...(withdrawal.failureReason !== null && withdrawal.status === 'APPROVED' ? { failureReason: withdrawal.failureReason } : {}),
  };
}
