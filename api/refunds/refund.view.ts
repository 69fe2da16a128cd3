/** Turns stored refunds into the API's refund record. */
import type { AssetRegistry } from '../networks/asset-registry.ts';
import { isoTime } from '../shared/clock.ts';
import type { ClaimTokens } from './claim-tokens.ts';
import type { RefundOutput } from './refund.schema.ts';
import type { RefundWithPayout } from './refund.store.ts';

/** What rendering a refund needs. */
export interface RefundViewDeps {
  registry: AssetRegistry;
  publicUrl: string;
  tokens: ClaimTokens;
}

/** The payer's link to a refund: its claim page, carrying the bearer token. */
export function claimUrlOf(deps: Pick<RefundViewDeps, 'publicUrl' | 'tokens'>, refundId: string): string {
  return `${deps.publicUrl}/refund?id=${refundId}&token=${deps.tokens.tokenOf(refundId)}`;
}

/** The refund record of contract section 17. */
export function toRefundOutput(deps: RefundViewDeps, refund: RefundWithPayout): RefundOutput {
  return {
    id: refund.id,
    paymentId: refund.paymentId,
    amount: refund.amount,
    asset: deps.registry.toJson(deps.registry.byId(refund.assetId)),
    addressTo: refund.addressTo,
    destTag: refund.destTag,
    status: refund.status,
    claimUrl: claimUrlOf(deps, refund.id),
    withdrawalId: refund.withdrawalId,
    txnId: refund.txnId,
    reason: refund.reason,
    createdAt: isoTime(refund.createdAt),
    updatedAt: isoTime(refund.updatedAt),
    ...(refund.failureReason !== null && refund.status === 'APPROVED' ? { failureReason: refund.failureReason } : {}),
  };
}
