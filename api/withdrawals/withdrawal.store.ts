import { type Dialect, jsonTextList, type Sql } from '../db/database.ts';
import { type Customer, type CustomerColumns, customerColumns, customerFromColumns } from '../shared/customer.ts';
import type { WithdrawalStatus } from './withdrawal.schema.ts';

/** A withdrawal as stored. */
export interface Withdrawal {
  id: string;
  merchantId: string;
  assetId: number;
  amount: string;
  fee: string;
  receivedAmount: string;
  addressTo: string;
  destTag: string | null;
  addressFrom: string | null;
  txnId: string | null;
  confirmations: number;
  status: WithdrawalStatus;
  /** Why an APPROVED withdrawal has not gone out yet (the payout wallet cannot cover it); null otherwise. */
  failureReason: string | null;
  customer: Customer | null;
  invoice: string;
  createdAt: number;
  updatedAt: number;
}

/** Filters of a withdrawal list. */
export interface WithdrawalFilters {
  ids?: string[];
  invoices?: string[];
  txnIds?: string[];
  statuses?: WithdrawalStatus[];
}

interface WithdrawalRow extends CustomerColumns {
  id: string;
  merchant_id: string;
  asset_id: number;
  amount: string;
  fee: string;
  received_amount: string;
  address_to: string;
  dest_tag: string | null;
  address_from: string | null;
  txn_id: string | null;
  confirmations: number;
  status: WithdrawalStatus;
  failure_reason?: string | null;
  invoice: string;
  created_at: number;
  updated_at: number;
}

function toWithdrawal(row: WithdrawalRow): Withdrawal {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    assetId: row.asset_id,
    amount: row.amount,
    fee: row.fee,
    receivedAmount: row.received_amount,
    addressTo: row.address_to,
    destTag: row.dest_tag,
    addressFrom: row.address_from,
    txnId: row.txn_id,
    confirmations: row.confirmations,
    status: row.status,
    failureReason: row.failure_reason ?? null,
    customer: customerFromColumns(row),
    invoice: row.invoice,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

type FilterName = keyof WithdrawalFilters;
const FILTER_NAMES: FilterName[] = ['ids', 'invoices', 'txnIds', 'statuses'];
const COLUMNS: Record<FilterName, string> = { ids: 'id', invoices: 'invoice', txnIds: 'txn_id', statuses: 'status' };
const queryTexts = new Map<string, { count: string; page: string }>();

// Array filters arrive as one JSON parameter each, so every combination of filters is one fixed SQL text.
function listSql(dialect: Dialect, used: FilterName[]): { count: string; page: string } {
  const key = `${dialect.name}|${used.join(',')}`;
  let texts = queryTexts.get(key);
  if (!texts) {
    const where = ['merchant_id = @merchantId', ...used.map((f) => dialect.inJsonList(COLUMNS[f], `@${f}`))].join(' AND ');
    texts = {
      count: `SELECT COUNT(*) AS total FROM withdrawals WHERE ${where}`,
      page: `SELECT * FROM withdrawals WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`,
    };
    queryTexts.set(key, texts);
  }
  return texts;
}

const INSERT = `INSERT INTO withdrawals (id, merchant_id, asset_id, amount, fee, received_amount, address_to, dest_tag, address_from, txn_id,
     confirmations, status, customer_id, customer_name, customer_email, invoice, created_at, updated_at)
   VALUES (@id, @merchantId, @assetId, @amount, @fee, @receivedAmount, @addressTo, @destTag, @addressFrom, @txnId,
     @confirmations, @status, @customerId, @customerName, @customerEmail, @invoice, @createdAt, @updatedAt)`;

/** SQL for withdrawals, on the database or inside one transaction. */
export class WithdrawalStore {
  constructor(private readonly sql: Sql) {}

  /** Stores a new withdrawal; a repeated invoice of the merchant is a UniqueViolation. */
  async insert(withdrawal: Withdrawal): Promise<void> {
    const { customer, failureReason: _unsent, ...fields } = withdrawal;
    await this.sql.run(INSERT, { ...fields, ...customerColumns(customer) });
  }

  /** A withdrawal by id, whoever owns it. */
  async findById(id: string): Promise<Withdrawal | undefined> {
    const row = await this.sql.get<WithdrawalRow>('SELECT * FROM withdrawals WHERE id = ?', [id]);
    return row && toWithdrawal(row);
  }

  /** A withdrawal by id, only if this merchant owns it. */
  async findForMerchant(merchantId: string, id: string): Promise<Withdrawal | undefined> {
    const row = await this.sql.get<WithdrawalRow>('SELECT * FROM withdrawals WHERE merchant_id = ? AND id = ?', [merchantId, id]);
    return row && toWithdrawal(row);
  }

  /** The merchant's withdrawal with an invoice, if any. */
  async findByInvoice(merchantId: string, invoice: string): Promise<Withdrawal | undefined> {
    const row = await this.sql.get<WithdrawalRow>('SELECT * FROM withdrawals WHERE merchant_id = ? AND invoice = ?', [merchantId, invoice]);
    return row && toWithdrawal(row);
  }

  /** The withdrawal paid out by a network transaction. */
  async findByTxnId(txnId: string): Promise<Withdrawal | undefined> {
    const row = await this.sql.get<WithdrawalRow>('SELECT * FROM withdrawals WHERE txn_id = ?', [txnId]);
    return row && toWithdrawal(row);
  }

  /** One page of a merchant's withdrawals, newest first, and how many match in all. */
  async list(merchantId: string, filters: WithdrawalFilters, offset: number, limit: number): Promise<{ withdrawals: Withdrawal[]; total: number }> {
    const used = FILTER_NAMES.filter((name) => filters[name] !== undefined);
    const params: Record<string, unknown> = { merchantId, offset, limit };
    for (const name of used) params[name] = jsonTextList(filters[name]!);
    const texts = listSql(this.sql.dialect, used);
    const total = Number((await this.sql.get<{ total: number }>(texts.count, params))!.total);
    const withdrawals = total > offset ? (await this.sql.all<WithdrawalRow>(texts.page, params)).map(toWithdrawal) : [];
    return { withdrawals, total };
  }

  /** Moves a withdrawal from one status to another; false if it was not in `from` any more. */
  async transition(id: string, from: WithdrawalStatus, to: WithdrawalStatus, at: number): Promise<boolean> {
    return (await this.sql.run('UPDATE withdrawals SET status = ?, updated_at = ? WHERE id = ? AND status = ?', [to, at, id, from])) === 1;
  }

  /** Records the broadcast payout; false if it was already recorded. */
  async markSent(id: string, txnId: string, addressFrom: string, at: number): Promise<boolean> {
    // Never a transaction that reverted and was set aside (a send that read it before), nor one
    // that replaced it on its nonce; never on a withdrawal no longer APPROVED.
    return (
      (await this.sql.run(
        `UPDATE withdrawals SET txn_id = ?, address_from = ?, failure_reason = NULL, updated_at = ?
         WHERE id = ? AND txn_id IS NULL AND status = 'APPROVED'
           AND NOT EXISTS (SELECT 1 FROM payout_transactions p WHERE p.reverted_of = ? AND (p.txn_id = ? OR p.replaced_txn_ids LIKE ?))`,
        [txnId, addressFrom, at, id, id, txnId, `%"${txnId}"%`],
      )) === 1
    );
  }

  /**
   * Whether the withdrawal still waits for its payout (APPROVED, nothing sent), locking its row until
   * the transaction ends (PostgreSQL): a payout is signed only while this holds, so an operator's
   * cancel and a signing cannot both go through.
   */
  async lockPayable(id: string): Promise<boolean> {
    return (await this.sql.get(`SELECT id FROM withdrawals WHERE id = ? AND status = 'APPROVED' AND txn_id IS NULL${this.sql.dialect.forUpdate}`, [id])) !== undefined;
  }

  /**
   * A sent payout that was mined and reverted moved nothing: the withdrawal goes back to waiting for
   * its payout (no transaction, no confirmations), saying why; false if it changed meanwhile.
   */
  async payoutReverted(id: string, txnId: string, reason: string, at: number): Promise<boolean> {
    return (
      (await this.sql.run(
        "UPDATE withdrawals SET txn_id = NULL, address_from = NULL, confirmations = 0, failure_reason = ?, updated_at = ? WHERE id = ? AND txn_id = ? AND status = 'APPROVED'",
        [reason, at, id, txnId],
      )) === 1
    );
  }

  /** Points a sent payout at the transaction that now stands for it (a fee replacement, or the one mined); false if it changed meanwhile. */
  async replaceTxnId(id: string, from: string, to: string, at: number): Promise<boolean> {
    return (await this.sql.run("UPDATE withdrawals SET txn_id = ?, updated_at = ? WHERE id = ? AND txn_id = ? AND status = 'APPROVED'", [to, at, id, from])) === 1;
  }

  /** Approved withdrawals whose payout was broadcast but has no confirmation yet. */
  async sentUnconfirmed(): Promise<Array<{ id: string; assetId: number; txnId: string }>> {
    const rows = await this.sql.all<{ id: string; asset_id: number; txn_id: string }>(
      "SELECT id, asset_id, txn_id FROM withdrawals WHERE status = 'APPROVED' AND txn_id IS NOT NULL AND confirmations = 0 ORDER BY created_at, id",
    );
    return rows.map((row) => ({ id: row.id, assetId: Number(row.asset_id), txnId: row.txn_id }));
  }

  /** Records why an approved withdrawal cannot go out yet; false when that reason is already there. */
  async setFailureReason(id: string, reason: string, at: number): Promise<boolean> {
    return (
      (await this.sql.run(
        "UPDATE withdrawals SET failure_reason = ?, updated_at = ? WHERE id = ? AND status = 'APPROVED' AND txn_id IS NULL AND (failure_reason IS NULL OR failure_reason <> ?)",
        [reason, at, id, reason],
      )) === 1
    );
  }

  /** Updates the payout's confirmation count. */
  async setConfirmations(id: string, confirmations: number, at: number): Promise<void> {
    await this.sql.run('UPDATE withdrawals SET confirmations = ?, updated_at = ? WHERE id = ?', [confirmations, at, id]);
  }

  /** Approved withdrawals whose payout has not been broadcast yet. */
  async awaitingSend(): Promise<string[]> {
    return (await this.sql.all<{ id: string }>("SELECT id FROM withdrawals WHERE status = 'APPROVED' AND txn_id IS NULL ORDER BY created_at, id")).map((row) => row.id);
  }
}
