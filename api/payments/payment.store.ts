import { type Dialect, jsonTextList, type Sql } from '../db/database.ts';
import { MAX_LIMIT } from '../http/list-envelope.ts';
import { type Customer, type CustomerColumns, customerColumns, customerFromColumns } from '../shared/customer.ts';
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
  /** Moves with every change to the payment or its transactions (database triggers). */
  version: number;
}

/** A payment about to be stored (its version starts at 1). */
export type NewPayment = Omit<Payment, 'version'>;

/** A payment's id with what decides whether a rendered view of it still holds. */
export interface StampedId extends PaymentStamp {
  id: string;
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

/** Filters of a payment list; arrays are OR-ed within a filter and filters AND-ed together. */
export interface PaymentFilters {
  ids?: string[];
  invoices?: string[];
  txnIds?: string[];
  statuses?: PaymentStatus[];
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

// Array filters arrive as one JSON parameter each, so every combination of filters is one fixed
// SQL text, prepared once.
function filterSql(dialect: Dialect) {
  return {
    ids: dialect.inJsonList('id', '@ids'),
    invoices: dialect.inJsonList('invoice', '@invoices'),
    txnIds: `id IN (SELECT payment_id FROM payment_transactions WHERE ${dialect.inJsonList('txn_id', '@txnIds')} AND dropped_at IS NULL)`,
    // A stored OPEN past its expiry is EXPIRED: the status filter must agree with what is reported.
    statuses: `((${dialect.inJsonList('status', '@statuses')} AND NOT (status = 'OPEN' AND expires_at <= @now))
      OR (status = 'OPEN' AND expires_at <= @now AND ${dialect.inJsonList("'EXPIRED'", '@statuses')}))`,
  } as const;
}
type FilterName = keyof ReturnType<typeof filterSql>;
const FILTER_NAMES: FilterName[] = ['ids', 'invoices', 'txnIds', 'statuses'];
const queryTexts = new Map<string, string>();

function filterParams(merchantId: string, filters: PaymentFilters, used: FilterName[], now: number): Record<string, unknown> {
  const params: Record<string, unknown> = { merchantId };
  for (const name of used) params[name] = jsonTextList(filters[name]!);
  if (used.includes('statuses')) params.now = now;
  return params;
}

// The filters that name payments directly (ids, invoices, transaction ids) bound a list by
// themselves, however long the merchant's history: a page or a count walks only what they name.
const SELECTIVE: FilterName[] = ['ids', 'invoices', 'txnIds'];

// A stored status's rows, newest first, as the status filter reports them: an OPEN payment past its
// expiry reads as EXPIRED (the sweep stores that within a second, so such rows are few).
const STATUS_PARTS: Record<PaymentStatus, string[]> = {
  OPEN: ["status = 'OPEN' AND expires_at > @now"],
  CONFIRMING: ["status = 'CONFIRMING'"],
  COMPLETE: ["status = 'COMPLETE'"],
  EXPIRED: ["status = 'EXPIRED'", "status = 'OPEN' AND expires_at <= @now"],
};
const STATUS_ORDER: PaymentStatus[] = ['OPEN', 'CONFIRMING', 'COMPLETE', 'EXPIRED'];

// The SQL of a count or a page, built once per dialect, filter set and limit (and, for a list
// filtered by status alone, per set of statuses).
function listSql(dialect: Dialect, kind: 'count' | 'page', used: FilterName[], limit = 0, statuses: readonly PaymentStatus[] = []): string {
  const byStatusAlone = used.includes('statuses') && !used.some((f) => SELECTIVE.includes(f));
  const key = `${dialect.name}|${kind}|${used.join(',')}|${limit}|${byStatusAlone ? statuses.join(',') : ''}`;
  let text = queryTexts.get(key);
  if (text === undefined) {
    text = byStatusAlone || used.length === 0 ? unboundedListSql(kind, statuses, used.length === 0, limit) : boundedListSql(dialect, kind, used, limit);
    queryTexts.set(key, text);
  }
  return text;
}

// Filtered by ids, invoices or transaction ids: those name the rows, whatever else is asked.
function boundedListSql(dialect: Dialect, kind: 'count' | 'page', used: FilterName[], limit: number): string {
  const filters = filterSql(dialect);
  const where = ['merchant_id = @merchantId', ...used.map((f) => filters[f])].join(' AND ');
  // The limit is written into the SQL: with a LIMIT SQLite knows when it prepares the statement,
  // a filtered page is sorted in a bounded top-N structure, about twice as fast (measured) as
  // with a bound parameter.
  return kind === 'count'
    ? `SELECT COUNT(*) AS total FROM payments WHERE ${where}`
    : `SELECT id, version, status, expires_at FROM payments WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET @offset`;
}

// No filter, or statuses alone: the history can be any size, so nothing may walk it. The total is
// the sum of the counts kept per status (payment_status_counts), corrected by the few OPEN
// payments past expiry not yet swept. A page merges, per status, the newest offset + limit rows
// of the (merchant, status, created_at) index: the cost of page n does not depend on the history.
function unboundedListSql(kind: 'count' | 'page', statuses: readonly PaymentStatus[], all: boolean, limit: number): string {
  const wanted = all ? STATUS_ORDER : STATUS_ORDER.filter((s) => statuses.includes(s));
  if (kind === 'count') {
    const stored = wanted.map((s) => `'${s}'`).join(', ');
    const sum = `(SELECT COALESCE(SUM(n), 0) FROM payment_status_counts WHERE merchant_id = @merchantId AND status IN (${stored}))`;
    const unswept = "(SELECT COUNT(*) FROM payments WHERE merchant_id = @merchantId AND status = 'OPEN' AND expires_at <= @now)";
    // Stored OPEN counts them, but they read as EXPIRED.
    const correction = wanted.includes('OPEN') === wanted.includes('EXPIRED') ? '' : wanted.includes('OPEN') ? ` - ${unswept}` : ` + ${unswept}`;
    return `SELECT ${sum}${correction} AS total`;
  }
  if (all) return `SELECT id, version, status, expires_at FROM payments WHERE merchant_id = @merchantId ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET @offset`;
  const parts = wanted.flatMap((s) => STATUS_PARTS[s]);
  const union = parts
    .map(
      (condition, i) =>
        `SELECT * FROM (SELECT id, version, status, expires_at, created_at FROM payments WHERE merchant_id = @merchantId AND ${condition}
          ORDER BY created_at DESC, id DESC LIMIT @window) AS part${i}`,
    )
    .join(' UNION ALL ');
  return `SELECT id, version, status, expires_at FROM (${union}) AS merged ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET @offset`;
}

const INSERT = `INSERT INTO payments (id, merchant_id, asset_id, amount, address_to, dest_tag, confirms_needed, timeout, expires_at,
     checkout_url, status, customer_id, customer_name, customer_email, invoice, created_at, updated_at)
   VALUES (@id, @merchantId, @assetId, @amount, @addressTo, @destTag, @confirmsNeeded, @timeout, @expiresAt,
     @checkoutUrl, @status, @customerId, @customerName, @customerEmail, @invoice, @createdAt, @updatedAt)`;
const INSERT_TRANSACTION = `INSERT INTO payment_transactions (payment_id, txn_id, amount, address_from, address_to, dest_tag, confirmations, late, seen_at)
   VALUES (@paymentId, @txnId, @amount, @addressFrom, @addressTo, @destTag, @confirmations, @late, @seenAt) RETURNING *`;

/** SQL for payments and their transactions, on the database or inside one transaction. */
export class PaymentStore {
  constructor(private readonly sql: Sql) {}

  /** Stores a new payment. */
  async insert(payment: NewPayment): Promise<void> {
    const { customer, ...fields } = payment;
    await this.sql.run(INSERT, { ...fields, ...customerColumns(customer) });
  }

  /** Payments by id, in no particular order; unknown ids are left out. */
  async findByIds(ids: readonly string[]): Promise<Payment[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql.all<PaymentRow>(`SELECT * FROM payments WHERE ${this.sql.dialect.inJsonList('id', '?')}`, [JSON.stringify(ids)]);
    return rows.map(toPayment);
  }

  /** A payment's stamp by id, whoever owns it. */
  async stampOf(id: string): Promise<StampedId | undefined> {
    const row = await this.sql.get<StampRow>('SELECT id, version, status, expires_at FROM payments WHERE id = ?', [id]);
    return row && toStamp(row);
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
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new Error(`page limit ${limit} is not a whole number from 1 to ${MAX_LIMIT}`);
    const used = FILTER_NAMES.filter((name) => filters[name] !== undefined);
    const statuses = (filters.statuses ?? []) as PaymentStatus[];
    const text = listSql(this.sql.dialect, 'page', used, limit, statuses);
    const params: Record<string, unknown> = { ...filterParams(merchantId, filters, used, now), offset };
    if (text.includes('@window')) params.window = offset + limit;
    if (!text.includes('@now')) delete params.now;
    if (!text.includes('@statuses')) delete params.statuses;
    const rows = await this.sql.all<StampRow>(text, params);
    return rows.map(toStamp);
  }

  /** How many of a merchant's payments match. */
  async count(merchantId: string, filters: PaymentFilters, now: number): Promise<number> {
    const used = FILTER_NAMES.filter((name) => filters[name] !== undefined);
    const text = listSql(this.sql.dialect, 'count', used, 0, (filters.statuses ?? []) as PaymentStatus[]);
    const params = filterParams(merchantId, filters, used, now);
    if (text.includes('@now')) params.now = now;
    else delete params.now;
    if (!text.includes('@statuses')) delete params.statuses;
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

  /** Stores EXPIRED on every OPEN payment past its expiry; returns them. */
  async expireDue(now: number): Promise<Array<{ id: string; merchantId: string }>> {
    const rows = await this.sql.all<{ id: string; merchant_id: string }>(
      "UPDATE payments SET status = 'EXPIRED', updated_at = ? WHERE status = 'OPEN' AND expires_at <= ? RETURNING id, merchant_id",
      [now, now],
    );
    return rows.map((row) => ({ id: row.id, merchantId: row.merchant_id }));
  }
}
