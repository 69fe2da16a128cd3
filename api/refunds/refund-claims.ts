/**
 * The payer's side of refunds (contract section 17): the claim link (a bearer token, checked in
 * constant time) shows a refund and takes its address once; the page of an UNDERPAID or PAID_LATE
 * payment lets its payer ask for a refund of what they are owed, which the merchant then approves.
 * What the payer sees is only the shop's name, the amount, the asset and the refund's progress.
 */
import { InsufficientFunds } from '../balance/ledger.ts';
import { UniqueViolation } from '../db/database.ts';
import type { AssetRegistry, Asset } from '../networks/asset-registry.ts';
import type { Clock } from '../shared/clock.ts';
import { isoTime } from '../shared/clock.ts';
import { Conflict, InvalidState, NotFound, NotYet } from '../shared/errors.ts';
import { newId, storedId } from '../shared/ids.ts';
import type { Logger } from '../shared/logger.ts';
import { formatAmount } from '../shared/money.ts';
import type { Stores, UnitOfWork } from '../unit-of-work.ts';
import type { PayoutSender } from '../withdrawals/payout-sender.ts';
import type { WithdrawalTransitions } from '../withdrawals/withdrawal-transitions.ts';
import type { ClaimTokens } from './claim-tokens.ts';
import type { DestinationInput } from './refund.schema.ts';
import { checkDestination, refundErrors } from './refund.service.ts';
import { startRefundPayout } from './refund-payout.ts';
import type { Refund, RefundStatus } from './refund.store.ts';
import type { RefundTransitions } from './refund-transitions.ts';
import { isConfirmed, payerMayRequest, refundabilityOf } from './refundable.ts';
import { reckon } from '../payments/payment-exception.ts';
import { effectiveStatus } from '../payments/payment-status.ts';

/** What the payer may see of a refund. */
export interface ClaimView {
  id: string;
  status: RefundStatus;
  amount: string;
  asset: Asset;
  /** Whether the asset's network routes by destination tag (the form asks for one). */
  needsTag: boolean;
  merchantName: string;
  addressTo: string | null;
  destTag: string | null;
  txnId: string | null;
  updatedAt: string;
}

/** What the payer's refund request page may show of a payment. */
export interface RequestView {
  paymentId: string;
  merchantName: string;
  asset: Asset;
  /** Whether the asset's network routes by destination tag (the form asks for one). */
  needsTag: boolean;
  /** What would be refunded. */
  amount: string;
}

/** What the payer's use cases need. */
export interface RefundClaimsDeps {
  uow: UnitOfWork;
  registry: AssetRegistry;
  clock: Clock;
  logger: Logger;
  tokens: ClaimTokens;
  transitions: RefundTransitions;
  /** Announces the payout withdrawal a claimed address starts (approved at once). */
  withdrawalTransitions: Pick<WithdrawalTransitions, 'announce'>;
  payouts: Pick<PayoutSender, 'send'>;
  /** Queues the merchant's mail about a payer's request, in the same transaction. */
  mailed?: { refundRequested(stores: Stores, refund: Refund): Promise<void> };
}

const LINK_NOT_VALID = () => new NotFound('not-found', 'This refund link is not valid.');

/** A claim on a refund the shop cancelled: it takes no address (answered as `invalid-state`). */
export class RefundCancelled extends InvalidState {
  override name = 'RefundCancelled';
}

/** Creates the payer's refund use cases. */
export function createRefundClaims(deps: RefundClaimsDeps) {
  const { uow, registry, clock, logger, tokens, transitions } = deps;

  function refundIdOf(id: string, token: string): string {
    const key = storedId(id);
    if (key === undefined || !tokens.matches(key, token)) throw LINK_NOT_VALID();
    return key;
  }

  async function merchantNameOf(merchantId: string): Promise<string> {
    return (await uow.stores.merchants.findById(merchantId))?.name ?? '';
  }

  return {
    /** The refund a claim link names; NotFound for a wrong token (told apart from nothing else). */
    async view(id: string, token: string): Promise<ClaimView> {
      const refund = await uow.stores.refunds.findById(refundIdOf(id, token));
      if (!refund) throw LINK_NOT_VALID();
      return {
        id: refund.id,
        status: refund.status,
        amount: refund.amount,
        asset: registry.byId(refund.assetId),
        needsTag: registry.codec(registry.byId(refund.assetId).network).requiresTag,
        merchantName: await merchantNameOf(refund.merchantId),
        addressTo: refund.addressTo,
        destTag: refund.destTag,
        txnId: refund.txnId,
        updatedAt: isoTime(refund.updatedAt),
      };
    },

    /** Gives an AWAITING_ADDRESS refund its address, once; it is APPROVED and paid out at once. */
    async claim(id: string, token: string, destination: DestinationInput): Promise<void> {
      const key = refundIdOf(id, token);
      const found = await uow.stores.refunds.findById(key);
      if (!found) throw LINK_NOT_VALID();
      const asset = registry.byId(found.assetId);
      const refused = (status = found.status) =>
        status === 'CANCELLED' ? new RefundCancelled('invalid-state', 'This refund was cancelled; it takes no address.') : new InvalidState('invalid-state', 'This refund already has an address; it cannot be changed.');
      if (found.addressTo !== null || found.status !== 'AWAITING_ADDRESS') throw refused();
      await checkDestination(registry, uow.stores.addresses, asset, destination.addressTo, destination.destTag);
      const withdrawalId = await uow.transaction(async (stores) => {
        const refund = (await stores.refunds.lockById(key))!;
        if (refund.addressTo !== null || refund.status !== 'AWAITING_ADDRESS') throw refused(refund.status);
        const now = clock();
        const destTag = destination.destTag ?? null;
        const withdrawal = await startRefundPayout(stores, { clock, withdrawalTransitions: deps.withdrawalTransitions }, refund, { asset, addressTo: destination.addressTo, destTag });
        if (!(await stores.refunds.setDestination(key, destination.addressTo, destTag, withdrawal.id, now))) throw refused();
        await transitions.move(stores, key, 'AWAITING_ADDRESS', 'APPROVED', now);
        return withdrawal.id;
      });
      try {
        await deps.payouts.send(withdrawalId);
      } catch (err) {
        logger.error({ err, refundId: key }, 'refund payout broadcast failed; it will be retried');
      }
    },

    /** What a payer's refund request for a payment would be; InvalidState when the payment offers none. */
    async requestable(paymentId: string): Promise<RequestView> {
      const key = storedId(paymentId);
      const payment = key === undefined ? undefined : await uow.stores.payments.findById(key);
      if (!payment) throw new NotFound('payment-not-found', `No payment with id "${paymentId}" exists.`);
      const { standing, open, all, refunds } = await uow.snapshot(async (stores) => ({
        standing: await refundabilityOf(stores, registry, payment, clock()),
        open: await stores.refunds.openRequestOf(payment.id),
        all: await stores.payments.transactionsOf(payment.id),
        refunds: await stores.refunds.liveStatusesOf(payment.id),
      }));
      // Funds still confirming that, once confirmed, would let the payer ask (UNDERPAID or PAID_LATE
      // counted with them): the link is early, not wrong.
      const confirming = all.some((t) => !isConfirmed(payment, t)) && payerMayRequest(reckon(effectiveStatus(payment, clock()), payment, all).exception);
      // Asked for already (what is owed is then reserved by that request): said so, not "nothing to refund".
      if (open) throw new Conflict('refund-already-requested', 'A refund of this payment was already asked for and waits for the shop.');
      // Nothing owed, or less than the network fee lets go out: no form that could never succeed.
      if (!payerMayRequest(standing.exception) || standing.owed.isZero() || standing.owed.lt(standing.asset.minWithdrawal)) {
        // Funds still confirming will be owed again: come back (even after a refund of what came before).
        if (confirming) throw new NotYet('invalid-state', 'What this payment received is still confirming; a refund can be asked for once it has confirmed.');
        // The shop's own refund took what was owed: the payer is told where it stands, not "nothing to refund".
        if (refunds.includes('AWAITING_ADDRESS')) throw new Conflict('refund-awaiting-address', 'The shop is refunding this payment already; the payer gives the address through the link the shop sent.');
        if (refunds.includes('APPROVED') || refunds.includes('COMPLETE')) throw new Conflict('refund-made', 'This payment has been refunded already.');
        throw new InvalidState('invalid-state', 'This payment has nothing a payer can ask to have refunded.');
      }
      return {
        paymentId: payment.id,
        merchantName: await merchantNameOf(payment.merchantId),
        asset: standing.asset,
        needsTag: registry.codec(standing.asset.network).requiresTag,
        amount: formatAmount(standing.owed, standing.asset.decimals),
      };
    },

    /**
     * The payer asks for a refund of what they are owed on an UNDERPAID or PAID_LATE payment, to an
     * address of its network: a REQUESTED refund (one open request per payment) the merchant
     * approves or cancels. Returns the refund's id and claim token, to follow it.
     */
    async request(paymentId: string, destination: DestinationInput): Promise<{ id: string; token: string }> {
      const key = storedId(paymentId);
      const known = key === undefined ? undefined : await uow.stores.payments.findById(key);
      if (!known) throw new NotFound('payment-not-found', `No payment with id "${paymentId}" exists.`);
      const asset = registry.byId(known.assetId);
      await checkDestination(registry, uow.stores.addresses, asset, destination.addressTo, destination.destTag);
      const already = () => new Conflict('refund-already-requested', 'A refund of this payment was already asked for and waits for the shop.');
      const id = newId();
      try {
        await uow.transaction(async (stores) => {
          const payment = (await stores.payments.lockById(known.id))!;
          const now = clock();
          const standing = await refundabilityOf(stores, registry, payment, now);
          if (await stores.refunds.openRequestOf(payment.id)) throw already();
          if (!payerMayRequest(standing.exception) || standing.owed.isZero()) throw new InvalidState('invalid-state', 'This payment has nothing a payer can ask to have refunded.');
          if (standing.owed.lt(asset.minWithdrawal)) {
            throw new InvalidState('invalid-state', `What is owed, ${formatAmount(standing.owed, asset.decimals)} ${asset.short}, is less than the smallest payout the network fee allows (${formatAmount(asset.minWithdrawal, asset.decimals)} ${asset.short}).`);
          }
          const refund: Refund = {
            id,
            merchantId: payment.merchantId,
            paymentId: payment.id,
            assetId: asset.id,
            amount: formatAmount(standing.owed, asset.decimals),
            addressTo: destination.addressTo,
            destTag: destination.destTag ?? null,
            status: 'REQUESTED',
            requestedBy: 'payer',
            withdrawalId: null,
            reason: null,
            createdAt: now,
            updatedAt: now,
          };
          await stores.refunds.insert(refund);
          await transitions.announce(stores, id, now);
          await deps.mailed?.refundRequested(stores, refund);
        });
      } catch (err) {
        // Another request for the payment committed between our check and our insert.
        if (err instanceof UniqueViolation) throw already();
        if (err instanceof InsufficientFunds) throw refundErrors.insufficient(err, asset);
        throw err;
      }
      return { id, token: tokens.tokenOf(id) };
    },
  };
}

/** The payer's refund use cases. */
export type RefundClaims = ReturnType<typeof createRefundClaims>;
