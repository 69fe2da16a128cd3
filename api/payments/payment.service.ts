/** Payment use cases: create, fetch and list, for the merchant who owns them. */
import type { Db } from '../db/open-database.ts';
import { ApiError } from '../http/api-error.ts';
import { DEFAULT_LIMIT, type ListEnvelope } from '../http/list-envelope.ts';
import { parseCollecting, parseOrThrow } from '../http/validate.ts';
import type { Merchant } from '../merchants/merchant.store.ts';
import type { AddressPool } from '../networks/address-pool.ts';
import type { AssetRegistry } from '../networks/asset-registry.ts';
import { resolveRequestAsset } from '../networks/asset-rules.ts';
import type { Clock } from '../shared/clock.ts';
import { customerOrNull } from '../shared/customer.ts';
import { isUuid, newId } from '../shared/ids.ts';
import { formatAmount } from '../shared/money.ts';
import { CreatePaymentInput, ListPaymentsQuery, type PaymentOutput } from './payment.schema.ts';
import type { Payment, PaymentStore } from './payment.store.ts';
import { toPaymentOutput } from './payment.view.ts';

/** What the payment use cases need. */
export interface PaymentServiceDeps {
  db: Db;
  store: PaymentStore;
  registry: AssetRegistry;
  addressPool: AddressPool;
  clock: Clock;
  publicUrl: string;
  paymentTimeoutSeconds: number;
}

/** Creates the payment use cases. */
export function createPaymentService(deps: PaymentServiceDeps) {
  const { db, store, registry, addressPool, clock } = deps;

  const insertWithAddress = db.transaction((payment: Omit<Payment, 'addressTo' | 'destTag'>, network: string): Payment => {
    const address = addressPool.claim(network, payment.id);
    const stored: Payment = { ...payment, addressTo: address.address, destTag: address.destTag };
    store.insert(stored);
    return stored;
  });

  function notFound(id: string): ApiError {
    return new ApiError(404, 'payment-not-found', `No payment with id "${id}" exists for this merchant.`);
  }

  return {
    /** Creates a payment with a fresh receiving address; all or nothing. */
    create(merchant: Merchant, body: unknown): PaymentOutput {
      const { data, errors } = parseCollecting(CreatePaymentInput, body);
      const asset = resolveRequestAsset(registry, body, errors);
      const input = data!;
      const now = clock();
      const timeout = input.timeout ?? deps.paymentTimeoutSeconds;
      const payment = insertWithAddress.immediate(
        {
          id: newId(),
          merchantId: merchant.id,
          assetId: asset.id,
          amount: formatAmount(input.amount, asset.decimals),
          confirmsNeeded: registry.network(asset.network).confirmationsNeeded,
          timeout,
          expiresAt: now + timeout * 1000,
          checkoutUrl: input.checkoutUrl ?? null,
          status: 'OPEN',
          customer: customerOrNull(input.customer),
          invoice: input.invoice ?? null,
          createdAt: now,
          updatedAt: now,
        },
        asset.network,
      );
      void addressPool.refill();
      return toPaymentOutput(deps, payment, [], merchant, now);
    },

    /** One of the merchant's payments; another merchant's id is as unknown as a made-up one. */
    get(merchant: Merchant, id: string): PaymentOutput {
      const payment = isUuid(id) ? store.findForMerchant(merchant.id, id) : undefined;
      if (!payment) throw notFound(id);
      return toPaymentOutput(deps, payment, store.transactionsOf(payment.id), merchant, clock());
    },

    /** A page of the merchant's payments, newest first. */
    list(merchant: Merchant, rawQuery: Record<string, unknown>): ListEnvelope<PaymentOutput> {
      const query = parseOrThrow(ListPaymentsQuery, rawQuery);
      const page = query.page ?? 1;
      const limit = query.limit ?? DEFAULT_LIMIT;
      const now = clock();
      const { payments, total } = store.list(merchant.id, query, now, (page - 1) * limit, limit);
      const transactions = store.transactionsOfMany(payments.map((p) => p.id));
      return {
        data: payments.map((p) => toPaymentOutput(deps, p, transactions.get(p.id)!, merchant, now)),
        page,
        limit,
        total,
      };
    },
  };
}

/** The payment use cases' interface. */
export type PaymentService = ReturnType<typeof createPaymentService>;
