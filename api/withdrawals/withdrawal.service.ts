/**
 * Withdrawal use cases. Creating reserves the amount from the available balance; cancelling
 * releases it; approving hands the payout to the network adapter, and the reservation leaves the
 * ledger when the payout is broadcast. Every check-then-write runs in one immediate transaction.
 */
import { InsufficientFunds, ledgerOf } from '../balance/ledger.ts';
import { UniqueViolation } from '../db/database.ts';
import { DEFAULT_LIMIT, type ListEnvelope } from '../shared/list-page.ts';
import type { Merchant } from '../merchants/merchant.store.ts';
import type { Asset, AssetRegistry } from '../networks/asset-registry.ts';
import type { NetworkAdapter } from '../networks/network-adapter.ts';
import type { Clock } from '../shared/clock.ts';
import { customerOrNull } from '../shared/customer.ts';
import { newId, storedId, withStoredIds } from '../shared/ids.ts';
import type { Logger } from '../shared/logger.ts';
import { Conflict, InvalidState, NotFound, Refused } from '../shared/errors.ts';
import { formatAmount, formatCounted, parseAmount } from '../shared/money.ts';
import type { AnyStores, UnitOfWork } from '../unit-of-work.ts';
import { type CreateWithdrawalRequest, readCreateWithdrawal, refuseOwnAddress } from './withdrawal-request.ts';
import type { ListWithdrawalsQuery, WithdrawalOutput, WithdrawalStatus } from './withdrawal.schema.ts';
import type { PayoutSender } from './payout-sender.ts';
import type { Withdrawal } from './withdrawal.store.ts';
import type { WithdrawalTransitions } from './withdrawal-transitions.ts';
import { toWithdrawalOutput } from './withdrawal.view.ts';

/** What the withdrawal use cases need. */
export interface WithdrawalServiceDeps {
  uow: UnitOfWork;
  registry: AssetRegistry;
  clock: Clock;
  adapter: (network: string) => NetworkAdapter;
  logger: Logger;
  transitions: WithdrawalTransitions;
  /** Sends an approved withdrawal's payout at once (the payout job retries what this leaves waiting). */
  payouts: Pick<PayoutSender, 'send'>;
}

/** Creates the withdrawal use cases. */
export function createWithdrawalService(deps: WithdrawalServiceDeps) {
  const { uow, registry, clock, logger, transitions, payouts } = deps;

  function notFound(id: string): NotFound {
    return new NotFound('withdrawal-not-found', `No withdrawal with id "${id}" exists for this merchant.`);
  }

  async function owned(stores: AnyStores, merchant: Merchant, id: string): Promise<Withdrawal> {
    const key = storedId(id);
    const withdrawal = key === undefined ? undefined : await stores.withdrawals.findForMerchant(merchant.id, key);
    if (!withdrawal) throw notFound(id);
    return withdrawal;
  }

  function wrongState(withdrawal: Withdrawal, action: string): InvalidState {
    return new InvalidState('invalid-state', `The withdrawal is ${withdrawal.status}; only an OPEN withdrawal can be ${action}.`);
  }

  function duplicateInvoice(invoice: string): Conflict {
    return new Conflict('duplicate-invoice', `A withdrawal with invoice "${invoice}" already exists; invoices are unique per merchant.`);
  }

  // The withdrawal and its reservation, all or nothing. The account is locked from the balance read
  // to the reservation, so concurrent creates (in any instance) cannot overdraw.
  async function reserve(withdrawal: Withdrawal, asset: Asset): Promise<void> {
    try {
      await uow.transaction(async (stores) => {
        if (await stores.withdrawals.findByInvoice(withdrawal.merchantId, withdrawal.invoice)) throw duplicateInvoice(withdrawal.invoice);
        await stores.withdrawals.insert(withdrawal);
        await ledgerOf(stores.ledger, clock).reserve({ merchantId: withdrawal.merchantId, asset }, parseAmount(withdrawal.amount), withdrawal.id);
      });
    } catch (err) {
      if (err instanceof InsufficientFunds) {
        throw new Refused(
          'insufficient-funds',
          `The available balance is ${formatCounted(err.available, asset.decimals)} ${asset.short}, less than the ${formatAmount(err.needed, asset.decimals)} ${asset.short} needed.`,
        );
      }
      // Another request with the same invoice committed between our check and our insert.
      if (err instanceof UniqueViolation) throw duplicateInvoice(withdrawal.invoice);
      throw err;
    }
  }

  function move(merchant: Merchant, id: string, to: WithdrawalStatus, action: string): Promise<Withdrawal> {
    return uow.transaction(async (stores) => {
      const withdrawal = await owned(stores, merchant, id);
      // The conditional update is the check: of two racing moves, one changes the row. The loser
      // names the state the winner left, read again: on PostgreSQL (read committed) the read above
      // may predate a move that committed while this update waited for the row.
      if (!(await transitions.move(stores, id, 'OPEN', to, clock()))) throw wrongState((await stores.withdrawals.findById(id)) ?? withdrawal, action);
      if (to === 'CANCELLED') {
        const asset = registry.byId(withdrawal.assetId);
        await ledgerOf(stores.ledger, clock).release({ merchantId: merchant.id, asset }, parseAmount(withdrawal.amount), id, { sent: false });
      }
      return (await stores.withdrawals.findById(id))!;
    });
  }

  return {
    /** Reads a create request's body: every bad field at once, one of this installation's own addresses among them. */
    read: (body: unknown): Promise<CreateWithdrawalRequest> => readCreateWithdrawal(registry, uow.stores.addresses, body),

    /** Creates a withdrawal and reserves its amount; 422 when the available balance is short. */
    async create(merchant: Merchant, { input, asset }: CreateWithdrawalRequest): Promise<WithdrawalOutput> {
      await refuseOwnAddress(uow.stores.addresses, registry.codec(asset.network), asset, input.addressTo);
      const amount = parseAmount(input.amount);
      const fee = parseAmount(asset.withdrawalFee);
      const now = clock();
      const withdrawal: Withdrawal = {
        id: newId(),
        merchantId: merchant.id,
        assetId: asset.id,
        amount: formatAmount(amount, asset.decimals),
        fee: formatAmount(fee, asset.decimals),
        receivedAmount: formatAmount(amount.minus(fee), asset.decimals),
        addressTo: input.addressTo,
        destTag: input.destTag ?? null,
        addressFrom: null,
        txnId: null,
        confirmations: 0,
        status: 'OPEN',
        failureReason: null,
        customer: customerOrNull(input.customer),
        invoice: input.invoice,
        createdAt: now,
        updatedAt: now,
      };
      await reserve(withdrawal, asset);
      return toWithdrawalOutput(registry, withdrawal, merchant);
    },

    /** One of the merchant's withdrawals. */
    async get(merchant: Merchant, id: string): Promise<WithdrawalOutput> {
      return toWithdrawalOutput(registry, await owned(uow.stores, merchant, id), merchant);
    },

    /** A page of the merchant's withdrawals, newest first. */
    async list(merchant: Merchant, filters: ListWithdrawalsQuery): Promise<ListEnvelope<WithdrawalOutput>> {
      const query = withStoredIds(filters);
      const page = query.page ?? 0;
      const limit = query.limit ?? DEFAULT_LIMIT;
      // The count and the page from one snapshot, even while others write.
      const { withdrawals, total } = await uow.snapshot((stores) => stores.withdrawals.list(merchant.id, query, page * limit, limit));
      return { data: withdrawals.map((w) => toWithdrawalOutput(registry, w, merchant)), page, limit, total };
    },

    /** Approves an OPEN withdrawal and broadcasts its payout; a failed broadcast is retried later. */
    async approve(merchant: Merchant, id: string): Promise<WithdrawalOutput> {
      const pending = await owned(uow.stores, merchant, id);
      const disabled = deps.adapter(registry.byId(pending.assetId).network).payoutsDisabled;
      if (disabled) throw new InvalidState('payouts-disabled', disabled);
      await move(merchant, id, 'APPROVED', 'approved');
      try {
        await payouts.send(id);
      } catch (err) {
        logger.error({ err, withdrawalId: id }, 'payout broadcast failed; it will be retried');
      }
      const answered = (await uow.stores.withdrawals.findById(id))!;
      // The operator's cancel (withdrawal-cancel.ts) got in before the payout was signed: nothing
      // goes out, and the answer is the one a cancel that came first gets, not a 200 CANCELLED.
      if (answered.status === 'CANCELLED') throw wrongState(answered, 'approved');
      return toWithdrawalOutput(registry, answered, merchant);
    },

    /** Cancels an OPEN withdrawal and releases its reservation. */
    async cancel(merchant: Merchant, id: string): Promise<WithdrawalOutput> {
      return toWithdrawalOutput(registry, await move(merchant, id, 'CANCELLED', 'cancelled'), merchant);
    },
  };
}

/** The withdrawal use cases' interface. */
export type WithdrawalService = ReturnType<typeof createWithdrawalService>;
