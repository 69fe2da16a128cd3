import { DatabaseUnavailable, jsonTextList, type Sql } from '../db/database.ts';
import type { OneStatementAddress } from '../networks/address-pool.ts';
import { POOL_ON_POSTGRES } from '../networks/address.store.ts';
import { type Customer, type CustomerColumns, customerColumns, customerFromColumns } from '../shared/customer.ts';
import { OPEN_PAST_EXPIRY, type PaymentFilters, planCount, planPage, planPagesTogether, type PlannedQuery } from './payment-list.store.ts';
import type { PaymentException } from './payment-exception.ts';
import type { PaymentStatus } from './payment-status.ts';
import type { PaymentStamp } from './payment-view-cache.ts';

/** A payment as stored. */
export interface Payment {
  id: string;
  merchantId: string;
  assetId: number;
  amount: string;
  addressTo: string;
  destTag: string | null;
  confirmsNeeded: number;
  timeout: number;
  expiresAt: number;
  checkoutUrl: string | null;
  status: PaymentStatus;
  customer: Customer | null;
  invoice: string | null;
  createdAt: number;
  updatedAt: number;
  /** The fiat price the merchant set (contract section 16), or null on a payment priced in the asset. */
  price: FiatPrice | null;
  /** The rate `amount` was converted at, locked for the payment's life; null with `price`. */
  rate: LockedRate | null;
  /** The tolerance (percent, a decimal string) the payment was created under. */
  tolerancePercent: string;
  /** The exception last announced to webhooks (the record computes its own, see payment-exception.ts). */
  exception: PaymentException | null;
  /** Moves with every change to the payment or its transactions (database triggers). */
  version: number;
}

/** A price in a fiat currency, as the merchant sent it. */
export interface FiatPrice {
  amount: string;
  currency: string;
}

/** The rate a fiat-priced payment was converted at. */
export interface LockedRate {
  /** Currency units per one asset unit, the median before any spread. */
  value: string;
  currency: string;
  sources: readonly string[];
  /** Epoch ms of the oldest quote used. */
  at: number;
}

/** A payment about to be stored (its version starts at 1, with nothing announced yet). */
export type NewPayment = Omit<Payment, 'version' | 'exception'>;

/** A payment's id with what decides whether a rendered view of it still holds. */
export interface StampedId extends PaymentStamp {
  id: string;
}

/** One page of a merchant's matching payments, as `PaymentStore.page` takes it. */
export interface PageRequest {
  merchantId: string;
  filters: PaymentFilters;
  now: number;
  offset: number;
  limit: number;
}

/** A stamp with the merchant who owns the payment. */
export interface OwnedStamp extends StampedId {
  merchantId: string;
}

/** A transaction received by a payment, as stored. */
export interface PaymentTransaction {
  id: number;
  paymentId: string;
  txnId: string;
  amount: string;
  addressFrom: string;
  addressTo: string;
  destTag: string | null;
  confirmations: number;
  late: boolean;
  seenAt: number;
}

interface PaymentRow extends CustomerColumns {
  id: string;
  merchant_id: string;
  asset_id: number;
  amount: string;
  address_to: string;
  dest_tag: string | null;
  confirms_needed: number;
  timeout: number;
  expires_at: number;
  checkout_url: string | null;
  status: PaymentStatus;
  invoice: string | null;
  created_at: number;
  updated_at: number;
  price_amount: string | null;
  price_currency: string | null;
  rate_value: string | null;
  rate_sources: string | null;
  rate_at: number | string | null;
  tolerance_percent: string;
  exception: PaymentException | null;
  version: number;
}

interface StampRow {
  id: string;
  version: number;
  status: PaymentStatus;
  expires_at: number;
}

interface TransactionRow {
  id: number;
  payment_id: string;
  txn_id: string;
  amount: string;
  address_from: string;
  address_to: string;
  dest_tag: string | null;
  confirmations: number;
  late: 0 | 1;
  seen_at: number;
}

function toPayment(row: PaymentRow): Payment {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    assetId: row.asset_id,
    amount: row.amount,
    addressTo: row.address_to,
    destTag: row.dest_tag,
    confirmsNeeded: row.confirms_needed,
    timeout: row.timeout,
    expiresAt: row.expires_at,
    checkoutUrl: row.checkout_url,
    status: row.status,
    customer: customerFromColumns(row),
    invoice: row.invoice,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    price: row.price_amount === null || row.price_currency === null ? null : { amount: row.price_amount, currency: row.price_currency },
    rate:
      row.rate_value === null || row.price_currency === null
        ? null
        : { value: row.rate_value, currency: row.price_currency, sources: (row.rate_sources ?? '').split(',').filter(Boolean), at: Number(row.rate_at) },
    tolerancePercent: row.tolerance_percent,
    exception: row.exception,
    version: row.version,
  };
}

function toStamp(row: StampRow): StampedId {
  return { id: row.id, version: row.version, status: row.status, expiresAt: row.expires_at };
}

function toTransaction(row: TransactionRow): PaymentTransaction {
  return {
    id: row.id,
    paymentId: row.payment_id,
    txnId: row.txn_id,
    amount: row.amount,
    addressFrom: row.address_from,
    addressTo: row.address_to,
    destTag: row.dest_tag,
    confirmations: row.confirmations,
    late: row.late === 1,
    seenAt: row.seen_at,
  };
}

const INSERT = `INSERT INTO payments (id, merchant_id, asset_id, amount, address_to, dest_tag, confirms_needed, timeout, expires_at,
     checkout_url, status, customer_id, customer_name, customer_email, invoice, created_at, updated_at,
     price_amount, price_currency, rate_value, rate_sources, rate_at, tolerance_percent)
   VALUES (@id, @merchantId, @assetId, @amount, @addressTo, @destTag, @confirmsNeeded, @timeout, @expiresAt,
     @checkoutUrl, @status, @customerId, @customerName, @customerEmail, @invoice, @createdAt, @updatedAt,
     @priceAmount, @priceCurrency, @rateValue, @rateSources, @rateAt, @tolerancePercent)`;
const INSERT_TRANSACTION = `INSERT INTO payment_transactions (payment_id, txn_id, amount, address_from, address_to, dest_tag, confirmations, late, seen_at)
   VALUES (@paymentId, @txnId, @amount, @addressFrom, @addressTo, @destTag, @confirmations, @late, @seenAt) RETURNING *`;

// A new payment with its receiving address in one statement (PostgreSQL). Parameters in a SELECT
// list have no column to take their type from, so each is cast to its column's.
const NEW_PAYMENT_COLUMNS = `id, merchant_id, asset_id, amount, confirms_needed, timeout, expires_at, checkout_url, status,
     customer_id, customer_name, customer_email, invoice, created_at, updated_at,
     price_amount, price_currency, rate_value, rate_sources, rate_at, tolerance_percent`;
const NEW_PAYMENT_VALUES = `@id::text, @merchantId::text, @assetId::bigint, @amount::text, @confirmsNeeded::bigint, @timeout::bigint, @expiresAt::bigint, @checkoutUrl::text, @status::text,
     @customerId::bigint, @customerName::text, @customerEmail::text, @invoice::text, @createdAt::bigint, @updatedAt::bigint,
     @priceAmount::text, @priceCurrency::text, @rateValue::text, @rateSources::text, @rateAt::bigint, @tolerancePercent::text`;
// The network's oldest pooled address, skipping rows another create is claiming (as AddressStore.claimPooled).
const INSERT_CLAIMING_POOLED = `WITH claimed AS (
    UPDATE addresses SET payment_id = @id
    WHERE id = (SELECT id FROM addresses WHERE ${POOL_ON_POSTGRES('@network')} LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING address
  )
  INSERT INTO payments (${NEW_PAYMENT_COLUMNS}, address_to) SELECT ${NEW_PAYMENT_VALUES}, address FROM claimed
  RETURNING address_to AS "addressTo"`;
// The shared address with the payment's own tag (as AddressStore.insertAddress). A tag already
// recorded for another payment stores nothing: the create then claims in a transaction, which
// takes a fresh tag.
const INSERT_TAGGED = `WITH tagged AS (
    INSERT INTO addresses (network, address, dest_tag, derivation_index, payment_id) VALUES (@network, @addressTo, @destTag, NULL, @id) ON CONFLICT DO NOTHING
    RETURNING payment_id
  )
  INSERT INTO payments (${NEW_PAYMENT_COLUMNS}, address_to, dest_tag) SELECT ${NEW_PAYMENT_VALUES}, @addressTo::text, @destTag::text FROM tagged
  RETURNING address_to AS "addressTo"`;

// Several new payments in one statement (PostgreSQL), their fields as arrays of one element per
// payment. Each network's pooled payments take that network's oldest unclaimed addresses, skipping
// rows other creates are claiming, in the order the payments were given; a payment the pool has no
// address left for is not stored (its caller creates it another way). Tagged payments bring their
// address and tag, as INSERT_TAGGED; one whose tag is already recorded is not stored either. The
// rows go in the order of merchant, counter slot and expiry minute, the order in which migration
// 0104 has every new payment take its counter rows, so two such statements, or one and a single
// create, do not each hold a row the other waits for.
const NEW_PAYMENTS_INPUT = `unnest(@id::text[], @merchantId::text[], @assetId::bigint[], @amount::text[], @confirmsNeeded::bigint[], @timeout::bigint[],
     @expiresAt::bigint[], @checkoutUrl::text[], @status::text[], @customerId::bigint[], @customerName::text[], @customerEmail::text[], @invoice::text[],
     @createdAt::bigint[], @updatedAt::bigint[], @priceAmount::text[], @priceCurrency::text[], @rateValue::text[], @rateSources::text[], @rateAt::bigint[],
     @tolerancePercent::text[], @network::text[], @addressTo::text[], @destTag::text[])
   WITH ORDINALITY AS given (id, merchant_id, asset_id, amount, confirms_needed, timeout, expires_at, checkout_url, status,
     customer_id, customer_name, customer_email, invoice, created_at, updated_at,
     price_amount, price_currency, rate_value, rate_sources, rate_at, tolerance_percent, network, address_to, dest_tag, position)`;
/** Several new payments in one statement (exported for its plan test). */
export const INSERT_MANY = `WITH given AS MATERIALIZED (
    SELECT given.*, row_number() OVER (PARTITION BY network, address_to IS NULL ORDER BY position) AS nth FROM ${NEW_PAYMENTS_INPUT}
  ),
  wanted AS (SELECT network, count(*) AS n FROM given WHERE address_to IS NULL GROUP BY network),
  free AS MATERIALIZED (
    SELECT pool.id, pool.network, pool.address, row_number() OVER (PARTITION BY pool.network ORDER BY pool.id) AS nth
    FROM wanted CROSS JOIN LATERAL (
      SELECT id, network, address FROM addresses WHERE ${POOL_ON_POSTGRES('wanted.network')} LIMIT wanted.n FOR UPDATE SKIP LOCKED
    ) AS pool
  ),
  claimed AS (
    UPDATE addresses SET payment_id = given.id
    FROM given JOIN free ON free.network = given.network AND free.nth = given.nth AND given.address_to IS NULL
    WHERE addresses.id = free.id
    RETURNING addresses.payment_id, addresses.address
  ),
  tagged AS (
    INSERT INTO addresses (network, address, dest_tag, derivation_index, payment_id)
    SELECT network, address_to, dest_tag, NULL, id FROM given WHERE address_to IS NOT NULL ORDER BY position
    ON CONFLICT DO NOTHING
    RETURNING payment_id
  )
  INSERT INTO payments (${NEW_PAYMENT_COLUMNS}, address_to, dest_tag)
  SELECT given.id, given.merchant_id, given.asset_id, given.amount, given.confirms_needed, given.timeout, given.expires_at, given.checkout_url, given.status,
     given.customer_id, given.customer_name, given.customer_email, given.invoice, given.created_at, given.updated_at,
     given.price_amount, given.price_currency, given.rate_value, given.rate_sources, given.rate_at, given.tolerance_percent,
     coalesce(given.address_to, claimed.address), given.dest_tag
  FROM given LEFT JOIN claimed ON claimed.payment_id = given.id
  WHERE claimed.address IS NOT NULL OR given.id IN (SELECT payment_id FROM tagged)
  ORDER BY given.merchant_id, payment_counter_slot(given.id), given.expires_at / 60000, given.position
  RETURNING id, address_to AS "addressTo"`;

/**
 * A new payment as a create stores it: its fields, where it receives, no exception announced yet,
 * version 1. Written out field by field: a spread with fields added (`{ ...payment, addressTo }`)
 * takes V8's slow path on an object this wide (Node 20: about 4.5 µs a copy against 0.05, a loop
 * over payments of these fields), and each create made two such copies.
 */
export function newlyStored(payment: Omit<NewPayment, 'addressTo' | 'destTag'>, addressTo: string, destTag: string | null): Payment {
  return {
    id: payment.id,
    merchantId: payment.merchantId,
    assetId: payment.assetId,
    amount: payment.amount,
    addressTo,
    destTag,
    confirmsNeeded: payment.confirmsNeeded,
    timeout: payment.timeout,
    expiresAt: payment.expiresAt,
    checkoutUrl: payment.checkoutUrl,
    status: payment.status,
    customer: payment.customer,
    invoice: payment.invoice,
    createdAt: payment.createdAt,
    updatedAt: payment.updatedAt,
    price: payment.price,
    rate: payment.rate,
    tolerancePercent: payment.tolerancePercent,
    exception: null,
    version: 1,
  };
}

/**
 * A new payment's fields as the INSERT statements' named parameters, with `network` for the
 * one-statement inserts (a statement ignores the names it does not use). One literal of fixed
 * shape: a rest pattern and spreads built the same object in about 12 µs a create, against 2.
 */
function newPaymentParams(payment: Omit<NewPayment, 'addressTo' | 'destTag'> & Partial<Pick<NewPayment, 'addressTo' | 'destTag'>>, network: string | null = null) {
  const { customerId, customerName, customerEmail } = customerColumns(payment.customer);
  const { price, rate } = payment;
  return {
    id: payment.id,
    merchantId: payment.merchantId,
    assetId: payment.assetId,
    amount: payment.amount,
    addressTo: payment.addressTo ?? null,
    destTag: payment.destTag ?? null,
    confirmsNeeded: payment.confirmsNeeded,
    timeout: payment.timeout,
    expiresAt: payment.expiresAt,
    checkoutUrl: payment.checkoutUrl,
    status: payment.status,
    customerId,
    customerName,
    customerEmail,
    invoice: payment.invoice,
    createdAt: payment.createdAt,
    updatedAt: payment.updatedAt,
    priceAmount: price?.amount ?? null,
    priceCurrency: price?.currency ?? null,
    rateValue: rate?.value ?? null,
    rateSources: rate ? rate.sources.join(',') : null,
    rateAt: rate?.at ?? null,
    tolerancePercent: payment.tolerancePercent,
    network,
  };
}

/** SQL for payments and their transactions, on the database or inside one transaction. */
export class PaymentStore {
  constructor(private readonly sql: Sql) {}

  /** Whether `insertInOneStatement` can run here (PostgreSQL). */
  get oneStatementInserts(): boolean {
    return this.sql.dialect.writingWith;
  }

  /**
   * PostgreSQL: stores a new payment and takes its receiving address in one statement, all or
   * nothing without a transaction. Returns what it stored, or undefined when the network's pool
   * had no address left, or the tag was already recorded for another payment (then nothing was
   * stored).
   */
  async insertInOneStatement(payment: Omit<NewPayment, 'addressTo' | 'destTag'>, receiving: OneStatementAddress): Promise<Payment | undefined> {
    if (!this.sql.dialect.writingWith) throw new Error('one-statement inserts need PostgreSQL');
    if (receiving.pooled) {
      const row = await this.sql.get<{ addressTo: string }>(INSERT_CLAIMING_POOLED, newPaymentParams(payment, receiving.network));
      return row ? newlyStored(payment, row.addressTo, null) : undefined;
    }
    const tagged = newlyStored(payment, receiving.address, receiving.destTag);
    return (await this.sql.get(INSERT_TAGGED, newPaymentParams(tagged, receiving.network))) ? tagged : undefined;
  }

  /**
   * PostgreSQL: stores several new payments and takes their receiving addresses in one statement,
   * all or nothing. Returns, in the order given, what each stored, or undefined for a pooled
   * payment whose network's pool had no address left for it, or a tagged one whose tag was already
   * recorded for another payment (that one was not stored).
   */
  async insertManyInOneStatement(items: ReadonlyArray<{ payment: Omit<NewPayment, 'addressTo' | 'destTag'>; receiving: OneStatementAddress }>): Promise<Array<Payment | undefined>> {
    if (!this.sql.dialect.writingWith) throw new Error('one-statement inserts need PostgreSQL');
    // The single-row statements' parameters, one array per name.
    const params = items.map(({ payment, receiving }) =>
      newPaymentParams(receiving.pooled ? payment : newlyStored(payment, receiving.address, receiving.destTag), receiving.network),
    );
    const columns = Object.fromEntries(Object.keys(params[0] ?? {}).map((name) => [name, params.map((row) => row[name as keyof typeof row])]));
    const rows = await this.sql.all<{ id: string; addressTo: string }>(INSERT_MANY, columns);
    const stored = new Map(rows.map((row) => [row.id, row.addressTo]));
    return items.map(({ payment, receiving }) => {
      const addressTo = stored.get(payment.id);
      if (addressTo === undefined) return undefined;
      return newlyStored(payment, addressTo, receiving.pooled ? null : receiving.destTag);
    });
  }

  /** Stores a new payment. */
  async insert(payment: NewPayment): Promise<void> {
    await this.sql.run(INSERT, newPaymentParams(payment));
  }

  /** Payments by id, in no particular order; unknown ids are left out. */
  async findByIds(ids: readonly string[]): Promise<Payment[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql.all<PaymentRow>(`SELECT * FROM payments WHERE ${this.sql.dialect.inJsonList('id', '?')}`, [JSON.stringify(ids)]);
    return rows.map(toPayment);
  }

  /** A merchant's payments created in [from, to), oldest first, after the keyset `after`, at most `limit`. */
  async createdBetween(merchantId: string, from: number, to: number, after: { createdAt: number; id: string } | undefined, limit: number): Promise<Payment[]> {
    const rows = after
      ? await this.sql.all<PaymentRow>(
          `SELECT * FROM payments WHERE merchant_id = @merchantId AND created_at < @to AND (created_at > @afterAt OR (created_at = @afterAt AND id > @afterId))
            ORDER BY created_at, id LIMIT ${Math.trunc(limit)}`,
          { merchantId, to, afterAt: after.createdAt, afterId: after.id },
        )
      : await this.sql.all<PaymentRow>(`SELECT * FROM payments WHERE merchant_id = @merchantId AND created_at >= @from AND created_at < @to ORDER BY created_at, id LIMIT ${Math.trunc(limit)}`, {
          merchantId,
          from,
          to,
        });
    return rows.map(toPayment);
  }

  /** A payment's stamp by id, whoever owns it. */
  async stampOf(id: string): Promise<StampedId | undefined> {
    const row = await this.sql.get<StampRow>('SELECT id, version, status, expires_at FROM payments WHERE id = ?', [id]);
    return row && toStamp(row);
  }

  /** A payment's stamp by id with its owner. */
  async ownedStampOf(id: string): Promise<OwnedStamp | undefined> {
    const row = await this.sql.get<StampRow & { merchant_id: string }>('SELECT id, merchant_id, version, status, expires_at FROM payments WHERE id = ?', [id]);
    return row && { ...toStamp(row), merchantId: row.merchant_id };
  }

  /** The stamps of these payments with their owners, by id (stored form); unknown ids are missing. */
  async ownedStampsOf(ids: readonly string[]): Promise<Map<string, OwnedStamp>> {
    const rows = await this.sql.all<StampRow & { merchant_id: string }>(
      `SELECT id, merchant_id, version, status, expires_at FROM payments WHERE ${this.sql.dialect.inJsonList('id', '?')}`,
      [jsonTextList(ids)],
    );
    return new Map(rows.map((row) => [row.id, { ...toStamp(row), merchantId: row.merchant_id }]));
  }

  /** A payment's stamp by id, only if this merchant owns it. */
  async stampForMerchant(merchantId: string, id: string): Promise<StampedId | undefined> {
    const row = await this.sql.get<StampRow>('SELECT id, version, status, expires_at FROM payments WHERE merchant_id = ? AND id = ?', [merchantId, id]);
    return row && toStamp(row);
  }

  /** A payment by id, whoever owns it (the payer's view). */
  async findById(id: string): Promise<Payment | undefined> {
    const row = await this.sql.get<PaymentRow>('SELECT * FROM payments WHERE id = ?', [id]);
    return row && toPayment(row);
  }

  /**
   * A payment by id, locked until the transaction ends (PostgreSQL; SQLite's writer lock covers
   * it): chain events for one payment are applied one after another, whichever instance sees them.
   */
  async lockById(id: string): Promise<Payment | undefined> {
    const row = await this.sql.get<PaymentRow>(`SELECT * FROM payments WHERE id = ?${this.sql.dialect.forUpdate}`, [id]);
    return row && toPayment(row);
  }

  /** The payment a receiving address (and tag) was handed to, locked like `lockById`. */
  async lockByAddress(network: string, address: string, destTag: string | null): Promise<Payment | undefined> {
    const row = await this.sql.get<PaymentRow>(
      `SELECT * FROM payments WHERE id = (SELECT payment_id FROM addresses WHERE network = ? AND address = ? AND dest_tag IS NOT DISTINCT FROM ?)${this.sql.dialect.forUpdate}`,
      [network, address, destTag],
    );
    return row && toPayment(row);
  }

  /** One page of a merchant's matching payments (stamps only), newest first. */
  async page(merchantId: string, filters: PaymentFilters, now: number, offset: number, limit: number): Promise<StampedId[]> {
    return this.readPage(planPage(this.sql.dialect, merchantId, filters, now, offset, limit));
  }

  private async readPage({ text, params }: PlannedQuery): Promise<StampedId[]> {
    const rows = await this.sql.all<StampRow>(text, params);
    return rows.map(toStamp);
  }

  /**
   * The pages of several lists (those of one turn of the event loop), each settled alone, like
   * `page` for each. Where the database joins LATERAL (PostgreSQL), the pages planned with the same
   * text go as one statement: one round trip for all of them (not a search: the planner weighs each
   * term alone). Should that statement fail for another reason than the database being
   * unavailable, each of its pages is read alone, so a page that cannot be read fails alone.
   */
  pages(requests: readonly PageRequest[]): Array<Promise<StampedId[]>> {
    const results: Array<Promise<StampedId[]>> = [];
    const planned: PlannedQuery[] = [];
    const byText = new Map<string, number[]>();
    for (const [i, { merchantId, filters, now, offset, limit }] of requests.entries()) {
      try {
        planned[i] = planPage(this.sql.dialect, merchantId, filters, now, offset, limit);
      } catch (error) {
        results[i] = Promise.reject(error);
        continue;
      }
      // A search term's plan (an address, an id or an invoice) is left to the planner, alone.
      if (filters.search !== undefined) {
        results[i] = this.readPage(planned[i]!);
        continue;
      }
      const same = byText.get(planned[i]!.text);
      if (same) same.push(i);
      else byText.set(planned[i]!.text, [i]);
    }
    for (const [text, indexes] of byText) {
      const together = this.sql.dialect.joinsLateral && indexes.length > 1 ? planPagesTogether(text, indexes.map((i) => planned[i]!.params)) : undefined;
      if (!together) {
        for (const i of indexes) results[i] = this.readPage(planned[i]!);
        continue;
      }
      const read = this.sql.all<StampRow & { batch_index: number }>(together.text, together.params).then((rows) => {
        const pages = indexes.map((): StampedId[] => []);
        for (const row of rows) pages[row.batch_index - 1]!.push(toStamp(row));
        return pages;
      });
      for (const [k, i] of indexes.entries()) {
        results[i] = read.then(
          (pages) => pages[k]!,
          (error: unknown) => (error instanceof DatabaseUnavailable ? Promise.reject(error) : this.readPage(planned[i]!)),
        );
      }
    }
    return results;
  }

  /** How many of a merchant's payments match. */
  async count(merchantId: string, filters: PaymentFilters, now: number): Promise<number> {
    const { text, params } = planCount(this.sql.dialect, merchantId, filters, now);
    const row = await this.sql.get<{ total: number }>(text, params);
    return Number(row!.total);
  }

  /** Transactions of one payment, oldest first. */
  async transactionsOf(paymentId: string): Promise<PaymentTransaction[]> {
    const rows = await this.sql.all<TransactionRow>('SELECT * FROM payment_transactions WHERE payment_id = ? AND dropped_at IS NULL ORDER BY seen_at, id', [paymentId]);
    return rows.map(toTransaction);
  }

  /** Transactions of several payments, grouped by payment id. */
  async transactionsOfMany(paymentIds: string[]): Promise<Map<string, PaymentTransaction[]>> {
    const grouped = new Map<string, PaymentTransaction[]>(paymentIds.map((id) => [id, []]));
    if (paymentIds.length === 0) return grouped;
    const rows = await this.sql.all<TransactionRow>(
      `SELECT * FROM payment_transactions WHERE ${this.sql.dialect.inJsonList('payment_id', '?')} AND dropped_at IS NULL ORDER BY seen_at, id`,
      [JSON.stringify(paymentIds)],
    );
    for (const row of rows) grouped.get(row.payment_id)!.push(toTransaction(row));
    return grouped;
  }

  /** A payment's transaction with a given network transaction id, with whether it was dropped (kept for the ledger). */
  async findTransaction(paymentId: string, txnId: string): Promise<(PaymentTransaction & { dropped: boolean }) | undefined> {
    const row = await this.sql.get<TransactionRow & { dropped_at: number | null }>('SELECT * FROM payment_transactions WHERE payment_id = ? AND txn_id = ?', [paymentId, txnId]);
    return row && { ...toTransaction(row), dropped: row.dropped_at !== null };
  }

  /** Every payment transaction with a network transaction id (one per payment it paid). */
  async transactionsByTxnId(txnId: string): Promise<PaymentTransaction[]> {
    const rows = await this.sql.all<TransactionRow>('SELECT * FROM payment_transactions WHERE txn_id = ? AND dropped_at IS NULL ORDER BY id', [txnId]);
    return rows.map(toTransaction);
  }

  /** Records a received transaction. */
  async insertTransaction(transaction: Omit<PaymentTransaction, 'id'>): Promise<PaymentTransaction> {
    const row = await this.sql.get<TransactionRow>(INSERT_TRANSACTION, { ...transaction, late: transaction.late ? 1 : 0 });
    return toTransaction(row!);
  }

  /** Updates a transaction's confirmation count. */
  async setConfirmations(transactionId: number, confirmations: number): Promise<void> {
    await this.sql.run('UPDATE payment_transactions SET confirmations = ? WHERE id = ?', [confirmations, transactionId]);
  }

  /** Forgets a transaction the network dropped. */
  async deleteTransaction(transactionId: number): Promise<void> {
    await this.sql.run('DELETE FROM payment_transactions WHERE id = ?', [transactionId]);
  }

  /** Marks a dropped transaction the ledger names (kept as history, left out of the payment); or brings it back (null). */
  async setDropped(transactionId: number, droppedAt: number | null, confirmations = 0): Promise<void> {
    await this.sql.run('UPDATE payment_transactions SET dropped_at = ?, confirmations = ? WHERE id = ?', [droppedAt, confirmations, transactionId]);
  }

  /** Sets a payment's status (and touches updated_at, which also marks other changes). */
  async setStatus(paymentId: string, status: PaymentStatus, updatedAt: number): Promise<void> {
    await this.sql.run('UPDATE payments SET status = ?, updated_at = ? WHERE id = ?', [status, updatedAt, paymentId]);
  }

  /** The language the payer last chose on the payment's page, if any. */
  async payerLocaleOf(paymentId: string): Promise<string | null> {
    return (await this.sql.get<{ payer_locale: string | null }>('SELECT payer_locale FROM payments WHERE id = ?', [paymentId]))?.payer_locale ?? null;
  }

  /** Keeps the language the payer chose on the payment's page (a write only when it changes). */
  async setPayerLocale(paymentId: string, locale: string): Promise<void> {
    await this.sql.run('UPDATE payments SET payer_locale = ? WHERE id = ? AND payer_locale IS DISTINCT FROM ?', [locale, paymentId, locale]);
  }

  /** Records the exception last announced for a payment. */
  async setException(paymentId: string, exception: PaymentException | null): Promise<void> {
    await this.sql.run('UPDATE payments SET exception = ? WHERE id = ?', [exception, paymentId]);
  }

  /** Stores EXPIRED on every OPEN payment past its expiry; returns them. */
  async expireDue(now: number): Promise<Array<{ id: string; merchantId: string }>> {
    const rows = await this.sql.all<{ id: string; merchant_id: string }>(
      `UPDATE payments SET status = 'EXPIRED', updated_at = @now WHERE ${OPEN_PAST_EXPIRY} RETURNING id, merchant_id`,
      { now },
    );
    return rows.map((row) => ({ id: row.id, merchantId: row.merchant_id }));
  }
}
