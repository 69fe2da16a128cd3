/**
 * @module SQL for refunds. A refund is read with what its withdrawal says of the payout (its
 * transaction and why it waits), so the record never copies what the withdrawal owns.
 */
import { type Dialect, jsonTextList, type Sql } from '../db/database.ts';
import { formatCounted, sumAmounts } from '../shared/money.ts';

/** Every refund status (contract section 17). */
export const REFUND_STATUSES = ['AWAITING_ADDRESS', 'REQUESTED', 'APPROVED', 'COMPLETE', 'CANCELLED'] as const;
/** A refund status. */
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** A refund as stored. */
export interface Refund {
  id: string;
  merchantId: string;
  paymentId: string;
  assetId: number;
  amount: string;
  addressTo: string | null;
  destTag: string | null;
  status: RefundStatus;
  /** Who started it: the merchant (POST /v2/payment/:id/refund) or the payer (the payer page). */
  requestedBy: 'merchant' | 'payer';
  withdrawalId: string | null;
  reason: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A refund with what its withdrawal says of the payout. */
export interface RefundWithPayout extends Refund {
  txnId: string | null;
  failureReason: string | null;
}

/** Filters of a refund list. */
export interface RefundFilters {
  ids?: string[];
  paymentIds?: string[];
  statuses?: RefundStatus[];
}

interface RefundRow {
  id: string;
  merchant_id: string;
  payment_id: string;
  asset_id: number;
  amount: string;
  address_to: string | null;
  dest_tag: string | null;
  status: RefundStatus;
  requested_by: 'merchant' | 'payer';
  withdrawal_id: string | null;
  reason: string | null;
  created_at: number;
  updated_at: number;
  txn_id: string | null;
  failure_reason: string | null;
}

function toRefund(row: RefundRow): RefundWithPayout {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    paymentId: row.payment_id,
    assetId: Number(row.asset_id),
    amount: row.amount,
    addressTo: row.address_to,
    destTag: row.dest_tag,
    status: row.status,
    requestedBy: row.requested_by,
    withdrawalId: row.withdrawal_id,
    reason: row.reason,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    txnId: row.txn_id,
    failureReason: row.failure_reason,
  };
}

const SELECT = `SELECT r.*, w.txn_id, w.failure_reason FROM refunds r LEFT JOIN withdrawals w ON w.id = r.withdrawal_id`;
const INSERT = `INSERT INTO refunds (id, merchant_id, payment_id, asset_id, amount, address_to, dest_tag, status, requested_by, withdrawal_id, reason, created_at, updated_at)
   VALUES (@id, @merchantId, @paymentId, @assetId, @amount, @addressTo, @destTag, @status, @requestedBy, @withdrawalId, @reason, @createdAt, @updatedAt)`;

type FilterName = keyof RefundFilters;
const FILTER_NAMES: FilterName[] = ['ids', 'paymentIds', 'statuses'];
const COLUMNS: Record<FilterName, string> = { ids: 'r.id', paymentIds: 'r.payment_id', statuses: 'r.status' };
const queryTexts = new Map<string, { count: string; page: string }>();

// Array filters arrive as one JSON parameter each, so every combination of filters is one fixed SQL text.
function listSql(dialect: Dialect, used: FilterName[]): { count: string; page: string } {
  const key = `${dialect.name}|${used.join(',')}`;
  let texts = queryTexts.get(key);
  if (!texts) {
    const where = ['r.merchant_id = @merchantId', ...used.map((f) => dialect.inJsonList(COLUMNS[f], `@${f}`))].join(' AND ');
    texts = {
      count: `SELECT COUNT(*) AS total FROM refunds r WHERE ${where}`,
      page: `${SELECT} WHERE ${where} ORDER BY r.created_at DESC, r.id DESC LIMIT @limit OFFSET @offset`,
    };
    queryTexts.set(key, texts);
  }
  return texts;
}

/** SQL for refunds, on the database or inside one transaction. */
export class RefundStore {
  constructor(private readonly sql: Sql) {}

  /** Stores a new refund; a second open payer request for a payment is a UniqueViolation. */
  async insert(refund: Refund): Promise<void> {
    await this.sql.run(INSERT, refund);
  }

  /** A refund by id, whoever owns it (the payer's claim page checks the token first). */
  async findById(id: string): Promise<RefundWithPayout | undefined> {
    const row = await this.sql.get<RefundRow>(`${SELECT} WHERE r.id = ?`, [id]);
    return row && toRefund(row);
  }

  /**
   * A refund by id, its row locked until the transaction ends (PostgreSQL; SQLite's writer lock
   * covers it): approve, cancel and the payer's claim of one refund go one after another.
   */
  async lockById(id: string): Promise<RefundWithPayout | undefined> {
    await this.sql.get(`SELECT id FROM refunds WHERE id = ?${this.sql.dialect.forUpdate}`, [id]);
    return this.findById(id);
  }

  /** A refund by id, only if this merchant owns it. */
  async findForMerchant(merchantId: string, id: string): Promise<RefundWithPayout | undefined> {
    const row = await this.sql.get<RefundRow>(`${SELECT} WHERE r.merchant_id = ? AND r.id = ?`, [merchantId, id]);
    return row && toRefund(row);
  }

  /** The refund a withdrawal pays out, if it pays one. */
  async findByWithdrawal(withdrawalId: string): Promise<RefundWithPayout | undefined> {
    const row = await this.sql.get<RefundRow>(`${SELECT} WHERE r.withdrawal_id = ?`, [withdrawalId]);
    return row && toRefund(row);
  }

  /** The payment's open payer request, if any. */
  async openRequestOf(paymentId: string): Promise<RefundWithPayout | undefined> {
    const row = await this.sql.get<RefundRow>(`${SELECT} WHERE r.payment_id = ? AND r.status = 'REQUESTED'`, [paymentId]);
    return row && toRefund(row);
  }

  /** The statuses of a payment's refunds that are not CANCELLED. */
  async liveStatusesOf(paymentId: string): Promise<RefundStatus[]> {
    const rows = await this.sql.all<{ status: RefundStatus }>("SELECT status FROM refunds WHERE payment_id = ? AND status <> 'CANCELLED'", [paymentId]);
    return rows.map((row) => row.status);
  }

  /** The amounts of a payment's refunds that are not CANCELLED (each counts from its creation). */
  async pendingAmountsOf(paymentId: string): Promise<string[]> {
    const rows = await this.sql.all<{ amount: string }>("SELECT amount FROM refunds WHERE payment_id = ? AND status <> 'CANCELLED'", [paymentId]);
    return rows.map((row) => row.amount);
  }

  /**
   * What the payer is told of the refunds on their way (being paid out, or paid): their total and
   * whether every one is paid; undefined when none. One still waiting for the payer's address (its
   * claim link goes to the payer by the merchant or by e-mail, not through the payer page), a
   * payer's own request the merchant has not approved, and a cancelled one are not counted.
   */
  async payerRefundOf(paymentId: string, decimals: number): Promise<{ amount: string; sent: boolean } | undefined> {
    const rows = await this.sql.all<{ amount: string; status: string }>(
      "SELECT amount, status FROM refunds WHERE payment_id = ? AND status IN ('APPROVED', 'COMPLETE')",
      [paymentId],
    );
    if (rows.length === 0) return undefined;
    return { amount: formatCounted(sumAmounts(rows.map((row) => row.amount)), decimals), sent: rows.every((row) => row.status === 'COMPLETE') };
  }

  /** The same for several payments, grouped by payment id (every id present). */
  async pendingAmountsOfMany(paymentIds: readonly string[]): Promise<Map<string, string[]>> {
    const grouped = new Map<string, string[]>(paymentIds.map((id) => [id, []]));
    if (paymentIds.length === 0) return grouped;
    const rows = await this.sql.all<{ payment_id: string; amount: string }>(
      `SELECT payment_id, amount FROM refunds WHERE ${this.sql.dialect.inJsonList('payment_id', '?')} AND status <> 'CANCELLED'`,
      [JSON.stringify(paymentIds)],
    );
    for (const row of rows) grouped.get(row.payment_id)!.push(row.amount);
    return grouped;
  }

  /** One page of a merchant's refunds, newest first, and how many match in all. */
  async list(merchantId: string, filters: RefundFilters, offset: number, limit: number): Promise<{ refunds: RefundWithPayout[]; total: number }> {
    const used = FILTER_NAMES.filter((name) => filters[name] !== undefined);
    const params: Record<string, unknown> = { merchantId, offset, limit };
    for (const name of used) params[name] = jsonTextList(filters[name]!);
    const texts = listSql(this.sql.dialect, used);
    const total = Number((await this.sql.get<{ total: number }>(texts.count, params))!.total);
    const refunds = total > offset ? (await this.sql.all<RefundRow>(texts.page, params)).map(toRefund) : [];
    return { refunds, total };
  }

  /** Moves a refund from one status to another; false if it was not in `from` any more. */
  async transition(id: string, from: RefundStatus, to: RefundStatus, at: number): Promise<boolean> {
    return (await this.sql.run('UPDATE refunds SET status = ?, updated_at = ? WHERE id = ? AND status = ?', [to, at, id, from])) === 1;
  }

  /** Gives an AWAITING_ADDRESS refund its address and the withdrawal that pays it; false if it has one already. */
  async setDestination(id: string, addressTo: string, destTag: string | null, withdrawalId: string, at: number): Promise<boolean> {
    return (
      (await this.sql.run(
        "UPDATE refunds SET address_to = ?, dest_tag = ?, withdrawal_id = ?, updated_at = ? WHERE id = ? AND address_to IS NULL AND status = 'AWAITING_ADDRESS'",
        [addressTo, destTag, withdrawalId, at, id],
      )) === 1
    );
  }

  /** Names the withdrawal that pays a refund out. */
  async setWithdrawal(id: string, withdrawalId: string, at: number): Promise<void> {
    await this.sql.run('UPDATE refunds SET withdrawal_id = ?, updated_at = ? WHERE id = ?', [withdrawalId, at, id]);
  }
}
