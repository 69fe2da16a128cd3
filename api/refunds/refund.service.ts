/**
 * Refund use cases of the merchant (contract section 17): create (reserving the amount at once),
 * read, list, approve a payer's request (reserving it then) and cancel (releasing exactly what was
 * reserved). Each check-then-write runs in one transaction that holds the payment's row, so
 * refunds created at once, on any instance, never exceed what the payment received.
 */
import { InsufficientFunds, ledgerOf } from '../balance/ledger.ts';
import type { Merchant } from '../merchants/merchant.store.ts';
import type { AssetRegistry } from '../networks/asset-registry.ts';
import type { NetworkAdapter } from '../networks/network-adapter.ts';
import type { Clock } from '../shared/clock.ts';
import { Conflict, type FieldError, invalidFields, InvalidState, NotFound, Refused } from '../shared/errors.ts';
import { newId, storedId, withStoredIds } from '../shared/ids.ts';
import { DEFAULT_LIMIT, type ListEnvelope } from '../shared/list-page.ts';
import type { Logger } from '../shared/logger.ts';
import { type Amount, AMOUNT_PATTERN, formatAmount, parseAmount } from '../shared/money.ts';
import { fieldsOf, parseCollecting } from '../shared/validation.ts';
import type { AnyStores, Stores, UnitOfWork } from '../unit-of-work.ts';
import type { RateService } from '../rates/rates.service.ts';
import type { PayoutSender } from '../withdrawals/payout-sender.ts';
import { CancelRefused, cancelApprovedIn } from '../withdrawals/withdrawal-cancel.ts';
import { destinationErrors, refuseOwnAddress } from '../withdrawals/withdrawal-request.ts';
import type { AddressStore } from '../networks/address.store.ts';
import type { WithdrawalTransitions } from '../withdrawals/withdrawal-transitions.ts';
import type { Asset } from '../networks/asset-registry.ts';
import { CreateRefundInput, type ListRefundsQuery, type RefundOutput } from './refund.schema.ts';
import { startRefundPayout } from './refund-payout.ts';
import type { Refund, RefundWithPayout } from './refund.store.ts';
import type { RefundTransitions } from './refund-transitions.ts';
import { type RefundViewDeps, toRefundOutput } from './refund.view.ts';
import { refundabilityOf } from './refundable.ts';

/** What the refund use cases need. */
export interface RefundServiceDeps {
  uow: UnitOfWork;
  registry: AssetRegistry;
  clock: Clock;
  logger: Logger;
  adapter: (network: string) => NetworkAdapter;
  view: RefundViewDeps;
  transitions: RefundTransitions;
  withdrawalTransitions: WithdrawalTransitions;
  /** Sends an approved refund's payout at once (the payout job retries what this leaves waiting). */
  payouts: Pick<PayoutSender, 'send'>;
  /** Converts a refund's fiat price to the asset at the current rate. */
  rates: Pick<RateService, 'refundInAsset'>;
  /** Queues the mail a new refund sends (the payer's claim link), in the same transaction. */
  mailed?: { refundCreated(stores: Stores, refund: Refund): Promise<void> };
}

/** Refusals shared by the merchant's and the payer's refund use cases. */
export const refundErrors = {
  notFound: (id: string) => new NotFound('refund-not-found', `No refund with id "${id}" exists for this merchant.`),
  exceeds: (amount: Amount, refundable: Amount, asset: Asset) =>
    new Refused(
      'refund-exceeds-payment',
      `The refund of ${formatAmount(amount, asset.decimals)} ${asset.short} is more than the ${formatAmount(refundable, asset.decimals)} ${asset.short} of this payment that is not refunded yet (what it received, less every refund not cancelled).`,
    ),
  requestWaiting: (request: Refund, asset: Asset) =>
    new Conflict(
      'refund-already-requested',
      `The payer asked for a refund of ${formatAmount(request.amount, asset.decimals)} ${asset.short} of this payment already (refund ${request.id}), which holds what it asks for: approve or cancel that request first (on the payment's page in the dashboard, or POST /v2/refund/${request.id}/approve or /cancel).`,
    ),
  insufficient: (err: InsufficientFunds, asset: Asset) =>
    new Refused(
      'insufficient-funds',
      `The available balance is ${formatAmount(err.available, asset.decimals)} ${asset.short}, less than the ${formatAmount(err.needed, asset.decimals)} ${asset.short} needed.`,
    ),
  /** Too small to pay out: the fee comes out of it, and the rest must be more than the network's dust. */
  belowMinimum: (asset: Asset, path: string) =>
    invalidFields([
      {
        path,
        message: `must be at least the minimum payout of ${formatAmount(asset.minWithdrawal, asset.decimals)} ${asset.short} (the network fee of ${formatAmount(asset.withdrawalFee, asset.decimals)} comes out of a refund, and the rest must be more than the network relays)`,
      },
    ]),
};

/** Checks a destination on the asset's network, and that it is none of this installation's receiving addresses; InvalidInput naming each bad field. */
export async function checkDestination(
  registry: AssetRegistry,
  addresses: Pick<AddressStore, 'isReceiving'>,
  asset: Asset,
  addressTo: string,
  destTag: string | null | undefined,
): Promise<void> {
  const codec = registry.codec(asset.network);
  const errors = destinationErrors(codec, asset, addressTo, destTag);
  if (errors.length > 0) throw invalidFields(errors);
  await refuseOwnAddress(addresses, codec, asset, addressTo);
}

/**
 * The checks of a refund request that depend on the payment's asset: its destination (when it
 * names one), a tag only with an address, and the amount's decimals. A field the schema refused
 * already is not named twice.
 */
function refundAssetErrors(registry: AssetRegistry, asset: Asset, body: unknown, found: readonly FieldError[]): FieldError[] {
  const { addressTo, destTag, amount } = fieldsOf(body);
  const errors: FieldError[] = [];
  if (addressTo !== undefined) {
    errors.push(...destinationErrors(registry.codec(asset.network), asset, addressTo, destTag));
  } else if (destTag !== undefined && destTag !== null) {
    errors.push({ path: 'destTag', message: 'must come with addressTo (the payer gives both through the claim link otherwise)' });
  }
  if (typeof amount === 'string' && AMOUNT_PATTERN.test(amount) && parseAmount(amount).decimalPlaces() > asset.decimals) {
    errors.push({ path: 'amount', message: `must have at most ${asset.decimals} decimal places for ${asset.short}` });
  }
  return errors.filter((error) => !found.some((f) => f.path === error.path));
}

/** Creates the merchant's refund use cases. */
export function createRefundService(deps: RefundServiceDeps) {
  const { uow, registry, clock, logger, view, transitions } = deps;

  async function owned(stores: AnyStores, merchant: Merchant, id: string): Promise<RefundWithPayout> {
    const key = storedId(id);
    const refund = key === undefined ? undefined : await stores.refunds.findForMerchant(merchant.id, key);
    if (!refund) throw refundErrors.notFound(id);
    return refund;
  }

  // Sends the payout of a refund just approved; a failure is logged and retried by the payout job.
  async function sendPayout(refund: RefundWithPayout): Promise<RefundWithPayout> {
    if (refund.withdrawalId) {
      try {
        await deps.payouts.send(refund.withdrawalId);
      } catch (err) {
        logger.error({ err, refundId: refund.id }, 'refund payout broadcast failed; it will be retried');
      }
    }
    return (await uow.stores.refunds.findById(refund.id))!;
  }

  function payoutsDisabled(asset: Asset): void {
    const disabled = deps.adapter(asset.network).payoutsDisabled;
    if (disabled) throw new InvalidState('payouts-disabled', disabled);
  }

  return {
    /**
     * Refunds a payment: `amount` or what the payer is owed, to `addressTo` (APPROVED, paid out at
     * once) or to the address the payer will give through the claim link (AWAITING_ADDRESS). The
     * amount is reserved from the merchant's balance now.
     */
    async create(merchant: Merchant, paymentId: string, body: unknown): Promise<RefundOutput> {
      // Every bad field at once: the schema's, then those that depend on the payment's asset.
      const parsed = parseCollecting(CreateRefundInput, body);
      const errors: FieldError[] = [...parsed.errors];
      const key = storedId(paymentId);
      const asset = await (async () => {
        const payment = key === undefined ? undefined : await uow.stores.payments.findById(key);
        if (!payment || payment.merchantId !== merchant.id) {
          if (errors.length > 0) throw invalidFields(errors);
          throw new NotFound('payment-not-found', `No payment with id "${paymentId}" exists for this merchant.`);
        }
        return registry.byId(payment.assetId);
      })();
      errors.push(...refundAssetErrors(registry, asset, body, errors));
      if (errors.length > 0) throw invalidFields(errors);
      const input = parsed.data!;
      if (input.addressTo !== undefined) {
        await refuseOwnAddress(uow.stores.addresses, registry.codec(asset.network), asset, input.addressTo);
        payoutsDisabled(asset);
      }
      // A fiat price is converted before the transaction: a rate may need a source's answer.
      const asked = input.price ? (await deps.rates.refundInAsset(input.price, asset)).amount : input.amount;
      const refundId = newId();
      let created: RefundWithPayout;
      try {
        created = await uow.transaction(async (stores) => {
          const payment = (await stores.payments.lockById(key!))!;
          const now = clock();
          const standing = await refundabilityOf(stores, registry, payment, now);
          const amount = asked !== undefined ? parseAmount(asked) : standing.owed;
          // A payer's request waiting for the merchant holds what it asks for: named, rather than "owed nothing".
          // Only when the request is what stands in the way: an amount it does not explain keeps its own refusal.
          const waiting = async () => {
            const open = await stores.refunds.openRequestOf(payment.id);
            if (open && amount.lte(standing.refundable.plus(open.amount))) throw refundErrors.requestWaiting(open, asset);
          };
          if (asked === undefined && amount.isZero()) {
            await waiting();
            throw invalidFields([{ path: 'amount', message: 'is required: the payer is owed nothing by default (the payment is still open, was paid exactly, is refunded already, or what it received is not confirmed yet), so name the amount to refund' }]);
          }
          if (amount.gt(standing.refundable)) {
            await waiting();
            throw refundErrors.exceeds(amount, standing.refundable, asset);
          }
          if (amount.lt(asset.minWithdrawal)) throw refundErrors.belowMinimum(asset, input.price ? 'price.amount' : 'amount');
          const refund: Refund = {
            id: refundId,
            merchantId: merchant.id,
            paymentId: payment.id,
            assetId: asset.id,
            amount: formatAmount(amount, asset.decimals),
            addressTo: input.addressTo ?? null,
            destTag: input.destTag ?? null,
            status: input.addressTo !== undefined ? 'APPROVED' : 'AWAITING_ADDRESS',
            requestedBy: 'merchant',
            withdrawalId: null,
            reason: input.reason ?? null,
            createdAt: now,
            updatedAt: now,
          };
          await stores.refunds.insert(refund);
          if (refund.addressTo !== null) {
            const withdrawal = await startRefundPayout(stores, { clock, withdrawalTransitions: deps.withdrawalTransitions }, refund, { asset, addressTo: refund.addressTo, destTag: refund.destTag });
            await stores.refunds.setWithdrawal(refund.id, withdrawal.id, now);
            await transitions.announce(stores, refund.id, now);
          } else {
            await ledgerOf(stores.ledger, clock).reserveRefund({ merchantId: merchant.id, asset }, amount, refund.id);
            await deps.mailed?.refundCreated(stores, refund);
          }
          return (await stores.refunds.findById(refund.id))!;
        });
      } catch (err) {
        if (err instanceof InsufficientFunds) throw refundErrors.insufficient(err, asset);
        throw err;
      }
      return toRefundOutput(view, await sendPayout(created));
    },

    /** One of the merchant's refunds. */
    async get(merchant: Merchant, id: string): Promise<RefundOutput> {
      return toRefundOutput(view, await owned(uow.stores, merchant, id));
    },

    /** A page of the merchant's refunds, newest first. */
    async list(merchant: Merchant, filters: ListRefundsQuery): Promise<ListEnvelope<RefundOutput>> {
      const query = withStoredIds(filters);
      const page = query.page ?? 1;
      const limit = query.limit ?? DEFAULT_LIMIT;
      const { refunds, total } = await uow.snapshot((stores) => stores.refunds.list(merchant.id, query, (page - 1) * limit, limit));
      return { data: refunds.map((r) => toRefundOutput(view, r)), page, limit, total };
    },

    /** Approves a payer's REQUESTED refund: reserves its amount now and pays it out. */
    async approve(merchant: Merchant, id: string): Promise<RefundOutput> {
      const pending = await owned(uow.stores, merchant, id);
      const asset = registry.byId(pending.assetId);
      if (pending.status === 'REQUESTED') payoutsDisabled(asset);
      let approved: RefundWithPayout;
      try {
        approved = await uow.transaction(async (stores) => {
          const refund = (await stores.refunds.lockById(pending.id))!;
          if (refund.status !== 'REQUESTED' || refund.addressTo === null) {
            throw new InvalidState('invalid-state', `The refund is ${refund.status}; only a REQUESTED refund (asked for by the payer) can be approved.`);
          }
          const now = clock();
          const withdrawal = await startRefundPayout(stores, { clock, withdrawalTransitions: deps.withdrawalTransitions }, refund, { asset, addressTo: refund.addressTo, destTag: refund.destTag });
          await stores.refunds.setWithdrawal(refund.id, withdrawal.id, now);
          await transitions.move(stores, refund.id, 'REQUESTED', 'APPROVED', now);
          return (await stores.refunds.findById(refund.id))!;
        });
      } catch (err) {
        if (err instanceof InsufficientFunds) throw refundErrors.insufficient(err, asset);
        throw err;
      }
      return toRefundOutput(view, await sendPayout(approved));
    },

    /**
     * Cancels a refund before a payout transaction is signed for it, releasing what it reserved:
     * its own reservation (AWAITING_ADDRESS), nothing (REQUESTED), or its withdrawal's (APPROVED).
     */
    async cancel(merchant: Merchant, id: string): Promise<RefundOutput> {
      const found = await owned(uow.stores, merchant, id);
      const cancelled = await uow.transaction(async (stores) => {
        const refund = (await stores.refunds.lockById(found.id))!;
        const now = clock();
        const asset = registry.byId(refund.assetId);
        if (refund.status === 'AWAITING_ADDRESS' || refund.status === 'REQUESTED') {
          if (!(await transitions.move(stores, refund.id, refund.status, 'CANCELLED', now))) throw new Error(`refund ${refund.id} moved inside its own transaction`);
          if (await stores.ledger.holdsRefundReserve(refund.id)) {
            await ledgerOf(stores.ledger, clock).releaseRefund({ merchantId: refund.merchantId, asset }, parseAmount(refund.amount), refund.id);
          }
        } else if (refund.status === 'APPROVED' && refund.withdrawalId) {
          // Its withdrawal is cancelled (and its reservation released) the way an operator's cancel
          // does it, only while nothing is signed; the refund follows its withdrawal to CANCELLED.
          try {
            await cancelApprovedIn(stores, { registry, clock, transitions: deps.withdrawalTransitions }, refund.withdrawalId);
          } catch (err) {
            if (!(err instanceof CancelRefused)) throw err;
            throw new InvalidState(
              'invalid-state',
              err.reason === 'signed'
                ? `The refund's payout transaction (${err.txnId}) is signed and may reach the network, so the refund can no longer be cancelled.`
                : 'The refund\'s payout is already under way, so the refund can no longer be cancelled; look at it again.',
            );
          }
        } else {
          throw new InvalidState('invalid-state', `The refund is ${refund.status}; only a refund waiting for an address or for approval, or approved with its payout not yet signed, can be cancelled.`);
        }
        return (await stores.refunds.findById(refund.id))!;
      });
      return toRefundOutput(view, cancelled);
    },
  };
}

/** The merchant's refund use cases. */
export type RefundService = ReturnType<typeof createRefundService>;
