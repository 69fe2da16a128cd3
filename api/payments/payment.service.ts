/** Payment use cases: create, fetch and list, for the merchant who owns them. */
import { DatabaseUnavailable, lostToAnotherWriter } from '../db/database.ts';
import { DEFAULT_LIMIT, type ListEnvelope } from '../shared/list-page.ts';
import { invalidFields, NotFound } from '../shared/errors.ts';
import type { Merchant } from '../merchants/merchant.store.ts';
import type { AddressPool, OneStatementAddress } from '../networks/address-pool.ts';
import type { Asset, AssetRegistry } from '../networks/asset-registry.ts';
import type { RateService } from '../rates/rates.service.ts';
import type { Clock } from '../shared/clock.ts';
import type { Logger } from '../shared/logger.ts';
import { customerOrNull } from '../shared/customer.ts';
import { newId, storedId, withStoredIds } from '../shared/ids.ts';
import { type JsonText, toJsonText } from '../shared/json-text.ts';
import { formatAmount, isAtMostMaxAmount, MAX_AMOUNT_TEXT, parseAmount } from '../shared/money.ts';
import type { Stores, UnitOfWork } from '../unit-of-work.ts';
import { createPaymentStamps } from './payment-stamps.ts';
import { createPaymentViewCache } from './payment-view-cache.ts';
import { dustLimitText, type CreatePaymentRequest } from './payment-request.ts';
import type { ListPaymentsQuery, PaymentOutput, SearchPaymentsQuery } from './payment.schema.ts';
import { type FiatPrice, type LockedRate, type NewPayment, newlyStored, type PageRequest, type Payment, type PaymentTransaction, type StampedId } from './payment.store.ts';
import { toPaymentOutput } from './payment.view.ts';
import { oneAtATime, perTurn, type Waiting } from '../shared/per-turn.ts';

/** At most this many creates share a statement (PostgreSQL). */
export const MAX_CREATES_IN_ONE_STATEMENT = 50;
/** At most this many lists' pages share a statement (PostgreSQL). */
export const PAGES_IN_ONE_STATEMENT = 50;
/** How long a statement of creates holds back the next group before it starts beside it (ms). */
export const GROUP_PATIENCE_MS = 100;

/** A create that one statement can store: the new payment and where it receives. */
interface OneStatementCreate {
  payment: Omit<NewPayment, 'addressTo' | 'destTag'>;
  receiving: OneStatementAddress;
}
/** The network's pool had no address left for the create, or its tag was already recorded: nothing was stored. */
const NO_ADDRESS = 'no address';
/** The database could not take the statement, or it lost to another writer: nothing was stored. */
const NOT_TRIED = 'not tried';
/** What storing a create in one statement came to. */
type OneStatementOutcome = Payment | typeof NO_ADDRESS | typeof NOT_TRIED;

/** How many rendered payment records a process keeps (about 1.5 KB each). */
export const PAYMENT_VIEW_CACHE_SIZE = 2_000;

/** What the payment use cases need. */
export interface PaymentServiceDeps {
  uow: UnitOfWork;
  registry: AssetRegistry;
  addressPool: AddressPool;
  clock: Clock;
  publicUrl: string;
  paymentTimeoutSeconds: number;
  /** Converts fiat prices; a payment priced in the asset never calls it. */
  rates: Pick<RateService, 'priceInAsset'>;
  /** PAYMENT_TOLERANCE_PERCENT: each new payment keeps the value of its time. */
  paymentTolerancePercent: string;
  /** Moves on when a merchant's profile may have changed: every cached record shows its merchant. */
  merchantChanges?: () => number;
  /** Whether a merchant object is still what the merchant service hands out (none given: always). */
  merchantIsCurrent?: (merchant: Merchant) => boolean;
  /** Where a failed statement of several creates is told. */
  logger?: Pick<Logger, 'warn'>;
}

/** Creates the payment use cases. */
export function createPaymentService(deps: PaymentServiceDeps) {
  const { uow, registry, addressPool, clock } = deps;
  const store = uow.stores.payments;

  // Merchants poll their payments' status; a record that has not changed is not rendered again.
  const views = createPaymentViewCache<JsonText>(PAYMENT_VIEW_CACHE_SIZE);
  const stamps = createPaymentStamps(store, uow);
  let merchantsSeen = deps.merchantChanges?.();
  function dropViewsIfMerchantsChanged(): void {
    const seen = deps.merchantChanges?.();
    if (seen === merchantsSeen) return;
    merchantsSeen = seen;
    views.clear();
  }

  // Runs inside a write transaction (on SQLite, a group commit's savepoint): the address is claimed
  // only if the payment is stored, and neither if anything fails.
  async function insertWithAddress(stores: Stores, payment: Omit<NewPayment, 'addressTo' | 'destTag'>, network: string): Promise<Payment> {
    const address = await addressPool.claim(stores.addresses, network, payment.id);
    const stored = newlyStored(payment, address.address, address.destTag);
    await stores.payments.insert(stored);
    return stored;
  }

  // On PostgreSQL a create is one statement when this process knows where the address comes from:
  // a transaction would take four round trips (BEGIN, claim, insert, COMMIT), each of which costs
  // both processes a wake-up. SQLite needs none of it: creates of one moment share a commit.
  // Undefined: create it in a transaction instead.
  async function insertInOneStatement(payment: Omit<NewPayment, 'addressTo' | 'destTag'>, network: string): Promise<Payment | undefined> {
    if (!store.oneStatementInserts) return undefined;
    const receiving = addressPool.receivingInOneStatement(network);
    if (!receiving) return undefined;
    const stored = await insertTogether({ payment, receiving });
    if (stored === NOT_TRIED) return undefined;
    if (receiving.pooled) addressPool.claimedFromPool(network, stored !== NO_ADDRESS);
    if (stored === NO_ADDRESS) return undefined;
    return stored;
  }

  // One create alone, in its own statement.
  async function insertAlone({ payment, receiving }: OneStatementCreate): Promise<OneStatementOutcome> {
    try {
      return (await store.insertInOneStatement(payment, receiving)) ?? NO_ADDRESS;
    } catch (error) {
      // A pooled connection the server closed (a restart) fails here, and a statement can lose a
      // deadlock to another writer: the transaction path gets a fresh connection and runs again
      // what loses. Had the statement committed after all, the same payment id refuses a second row.
      if (error instanceof DatabaseUnavailable || lostToAnotherWriter(error)) return NOT_TRIED;
      throw error;
    }
  }

  // Creates go to the database together: those asked for while a statement of creates runs wait
  // for it, then go as one statement (at most MAX_CREATES_IN_ONE_STATEMENT), so a burst costs one
  // round trip, one wake-up of the database and one commit per group instead of per create. One
  // group runs at a time, unless it takes longer than GROUP_PATIENCE_MS (a row lock another
  // transaction holds): then the next starts beside it. A statement is all or nothing: when a
  // group's fails, nothing of it was stored and each of its creates is tried again alone, so each
  // then succeeds or fails on its own.
  async function storeCreates(creates: Array<Waiting<OneStatementCreate, OneStatementOutcome>>): Promise<void> {
    if (creates.length === 1) {
      const [create] = creates;
      create!.resolve(await insertAlone(create!.item));
      return;
    }
    let stored: Array<Payment | undefined>;
    try {
      stored = await store.insertManyInOneStatement(creates.map((create) => create.item));
    } catch (error) {
      if (error instanceof DatabaseUnavailable) {
        for (const create of creates) create.resolve(NOT_TRIED);
        return;
      }
      deps.logger?.warn({ err: error, creates: creates.length }, 'a statement of several creates failed; each is tried again alone');
      await Promise.all(creates.map((create) => insertAlone(create.item).then(create.resolve.bind(create), create.reject.bind(create))));
      return;
    }
    creates.forEach((create, i) => create.resolve(stored[i] ?? NO_ADDRESS));
  }
  const insertTogether = oneAtATime(storeCreates, { max: MAX_CREATES_IN_ONE_STATEMENT, patienceMs: GROUP_PATIENCE_MS });

  // A view shows its merchant as the request found it; it is kept only if that merchant object is
  // still the one the merchant service hands out. Requests answered in the same turn render after
  // one another's edits, and a merchant read while an edit committed is used once: neither may
  // leave the old name cached after the edit.
  function render(payment: Payment, transactions: PaymentTransaction[], merchant: Merchant, now: number, pendingRefunds: string[]): JsonText {
    const text = toJsonText(toPaymentOutput(deps, payment, transactions, merchant, now, pendingRefunds));
    if (deps.merchantIsCurrent?.(merchant) ?? true) views.set(payment.id, payment, now, text);
    return text;
  }

  // A miss reads the row and its transactions in one read transaction: one consistent snapshot
  // even while another process writes, so a view is never cached under a version it does not show.
  async function renderMissingIn(stores: Stores, merchant: Merchant, ids: string[], now: number): Promise<Map<string, JsonText>> {
    const payments = (await stores.payments.findByIds(ids)).filter((p) => p.merchantId === merchant.id);
    const transactions = await stores.payments.transactionsOfMany(payments.map((p) => p.id));
    const refunds = await stores.refunds.pendingAmountsOfMany(payments.map((p) => p.id));
    return new Map(payments.map((p) => [p.id, render(p, transactions.get(p.id)!, merchant, now, refunds.get(p.id)!)]));
  }
  const renderMissing = (merchant: Merchant, ids: string[], now: number) => uow.snapshot((stores) => renderMissingIn(stores, merchant, ids, now));

  // A page that is neither empty nor full ends the list, so it tells the total by itself.
  function totalFromPage(found: number, offset: number, limit: number): number | undefined {
    if (found > 0 && found < limit) return offset + found;
    return found === 0 && offset === 0 ? 0 : undefined;
  }

  // The page, the total and every record shown come from one snapshot of the database, even while
  // another process writes.
  async function listIn(stores: Stores, merchant: Merchant, query: SearchPaymentsQuery, now: number, offset: number, limit: number) {
    const stamps = await stores.payments.page(merchant.id, query, now, offset, limit);
    const total = totalFromPage(stamps.length, offset, limit) ?? (await stores.payments.count(merchant.id, query, now));
    const cached = stamps.map((stamp) => views.get(stamp.id, stamp, now));
    const missing = stamps.filter((_, i) => cached[i] === undefined).map((stamp) => stamp.id);
    const rendered = missing.length > 0 ? await renderMissingIn(stores, merchant, missing, now) : undefined;
    return { records: stamps.map((stamp, i) => cached[i] ?? rendered!.get(stamp.id)!), total };
  }
  const listInOneSnapshot = (merchant: Merchant, query: SearchPaymentsQuery, now: number, offset: number, limit: number) =>
    uow.snapshot((stores) => listIn(stores, merchant, query, now, offset, limit));

  // On SQLite the lists of one turn of the event loop are read together at its end, in one read
  // transaction: one read lock (two system calls) for all of them instead of one a statement, and
  // their answers leave together. The transaction starts after each of those requests began, so
  // none reads the database older than it was when it arrived. A list that fails fails alone. On
  // PostgreSQL a transaction would put the lists on one connection, one after another: each list
  // keeps its own statements there.
  type ListResult = Awaited<ReturnType<typeof listIn>>;
  const listInTheTurn = perTurn<(stores: Stores) => Promise<ListResult>, ListResult>((lists) =>
    uow.snapshot(async (stores) => {
      for (const list of lists) {
        try {
          list.resolve(await list.item(stores));
        } catch (error) {
          list.reject(error);
        }
      }
    }),
  );

  // On PostgreSQL the pages of the lists of one turn go to the database together, at its end (after
  // each of those lists began): those planned alike in one statement, one round trip for all.
  const pageInTheTurn = perTurn<PageRequest, StampedId[]>(
    (lists) =>
      Promise.all(
        store.pages(lists.map((list) => list.item)).map((page, i) =>
          page.then(
            (stamps) => lists[i]!.resolve(stamps),
            (error: unknown) => lists[i]!.reject(error),
          ),
        ),
      ).then(() => undefined),
    PAGES_IN_ONE_STATEMENT,
  );

  async function listPage(merchant: Merchant, query: SearchPaymentsQuery, now: number, offset: number, limit: number) {
    if (!uow.shared) return listInTheTurn((stores) => listIn(stores, merchant, query, now, offset, limit));
    // On PostgreSQL most pages need one statement, which is a snapshot by itself: the page tells its
    // total and every record on it is rendered at the version listed. Anything else is read again
    // in one read transaction.
    const stamps = await pageInTheTurn({ merchantId: merchant.id, filters: query, now, offset, limit });
    const total = totalFromPage(stamps.length, offset, limit);
    if (total !== undefined) {
      const cached = stamps.map((stamp) => views.get(stamp.id, stamp, now));
      if (cached.every((view): view is JsonText => view !== undefined)) return { records: cached, total };
    }
    return listInOneSnapshot(merchant, query, now, offset, limit);
  }

  function notFound(id: string): NotFound {
    return new NotFound('payment-not-found', `No payment with id "${id}" exists for this merchant.`);
  }

  // A fiat price converted at the current rate (with the spread, rounded up): the amount and the
  // rate are stored with the payment and never change afterwards.
  async function priceInAsset(price: FiatPrice, asset: Asset): Promise<{ amount: string; price: FiatPrice; rate: LockedRate }> {
    const converted = await deps.rates.priceInAsset(price, asset);
    if (!isAtMostMaxAmount(converted.amount)) {
      throw invalidFields([{ path: 'price.amount', message: `converts to ${converted.amount} ${asset.short}, more than the largest payment amount (${MAX_AMOUNT_TEXT})` }]);
    }
    if (parseAmount(converted.amount).lt(asset.dustLimit)) {
      throw invalidFields([{ path: 'price.amount', message: `converts to ${converted.amount} ${asset.short}, less than ${dustLimitText(registry, asset)}` }]);
    }
    return { amount: converted.amount, price: { amount: price.amount, currency: price.currency }, rate: converted.rate };
  }

  return {
    /** Creates a payment with a fresh receiving address; all or nothing, settled once committed. */
    async create(merchant: Merchant, { input, asset }: CreatePaymentRequest): Promise<PaymentOutput> {
      const { amount, price, rate } = input.price ? await priceInAsset(input.price, asset) : { amount: formatAmount(input.amount!, asset.decimals), price: null, rate: null };
      const now = clock();
      const timeout = input.timeout ?? deps.paymentTimeoutSeconds;
      const fields: Omit<NewPayment, 'addressTo' | 'destTag'> = {
        id: newId(),
        merchantId: merchant.id,
        assetId: asset.id,
        amount,
        confirmsNeeded: registry.network(asset.network).confirmationsNeeded,
        timeout,
        expiresAt: now + timeout * 1000,
        checkoutUrl: input.checkoutUrl ?? null,
        status: 'OPEN',
        customer: customerOrNull(input.customer),
        invoice: input.invoice ?? null,
        createdAt: now,
        updatedAt: now,
        price,
        rate,
        tolerancePercent: deps.paymentTolerancePercent,
      };
      const payment = (await insertInOneStatement(fields, asset.network)) ?? (await uow.grouped((stores) => insertWithAddress(stores, fields, asset.network)));
      void addressPool.afterClaim();
      return toPaymentOutput(deps, payment, [], merchant, now, []);
    },

    /** One of the merchant's payments, as JSON; another merchant's id is as unknown as a made-up one. */
    async get(merchant: Merchant, id: string): Promise<JsonText> {
      dropViewsIfMerchantsChanged();
      const key = storedId(id);
      const stamp = key === undefined ? undefined : await stamps.forMerchant(merchant.id, key);
      if (!stamp) throw notFound(id);
      const now = clock();
      const text = views.get(stamp.id, stamp, now) ?? (await renderMissing(merchant, [stamp.id], now)).get(stamp.id);
      if (text === undefined) throw notFound(id);
      return text;
    },

    /**
     * A page of the merchant's payments, newest first; each record is its cached JSON rendering.
     * `search` (the dashboard's) finds a payment by id, invoice, receiving address or transaction id.
     */
    async list(merchant: Merchant, filters: ListPaymentsQuery | SearchPaymentsQuery): Promise<ListEnvelope<JsonText>> {
      dropViewsIfMerchantsChanged();
      const query = withStoredIds(filters);
      const page = query.page ?? 1;
      const limit = query.limit ?? DEFAULT_LIMIT;
      const { records, total } = await listPage(merchant, query, clock(), (page - 1) * limit, limit);
      return { data: records, page, limit, total };
    },
  };
}

/** The payment use cases' interface. */
export type PaymentService = ReturnType<typeof createPaymentService>;
