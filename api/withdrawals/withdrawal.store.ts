import type { Db } from '../db/open-database.ts';
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
    customer: customerFromColumns(row),
    invoice: row.invoice,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const FILTER_SQL = {
  ids: 'id IN (SELECT value FROM json_each(@ids))',
  invoices: 'invoice IN (SELECT value FROM json_each(@invoices))',
  txnIds: 'txn_id IN (SELECT value FROM json_each(@txnIds))',
  statuses: 'status IN (SELECT value FROM json_each(@statuses))',
} as const;
type FilterName = keyof typeof FILTER_SQL;
const FILTER_NAMES = Object.keys(FILTER_SQL) as FilterName[];

/** SQL for withdrawals. */
export function createWithdrawalStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO withdrawals (id, merchant_id, asset_id, amount, fee, received_amount, address_to, dest_tag, address_from, txn_id,
       confirmations, status, customer_id, customer_name, customer_email, invoice, created_at, updated_at)
     VALUES (@id, @merchantId, @assetId, @amount, @fee, @receivedAmount, @addressTo, @destTag, @addressFrom, @txnId,
       @confirmations, @status, @customerId, @customerName, @customerEmail, @invoice, @createdAt, @updatedAt)`,
  );
  const byId = db.prepare<[string], WithdrawalRow>('SELECT * FROM withdrawals WHERE id = ?');
  const byMerchantAndId = db.prepare<[string, string], WithdrawalRow>('SELECT * FROM withdrawals WHERE merchant_id = ? AND id = ?');
  const byInvoice = db.prepare<[string, string], WithdrawalRow>('SELECT * FROM withdrawals WHERE merchant_id = ? AND invoice = ?');
  const byTxnId = db.prepare<[string], WithdrawalRow>('SELECT * FROM withdrawals WHERE txn_id = ?');
  const transition = db.prepare<[WithdrawalStatus, number, string, WithdrawalStatus]>(
    'UPDATE withdrawals SET status = ?, updated_at = ? WHERE id = ? AND status = ?',
  );
  const markSent = db.prepare('UPDATE withdrawals SET txn_id = ?, address_from = ?, updated_at = ? WHERE id = ? AND txn_id IS NULL');
  const setConfirmations = db.prepare('UPDATE withdrawals SET confirmations = ?, updated_at = ? WHERE id = ?');
  const awaitingSend = db.prepare<[], { id: string }>("SELECT id FROM withdrawals WHERE status = 'APPROVED' AND txn_id IS NULL");
  const listStatements = new Map<string, { count: ReturnType<Db['prepare']>; page: ReturnType<Db['prepare']> }>();

  function listStatement(filters: FilterName[]) {
    const key = filters.join(',');
    let statements = listStatements.get(key);
    if (!statements) {
      const where = ['merchant_id = @merchantId', ...filters.map((f) => FILTER_SQL[f])].join(' AND ');
      statements = {
        count: db.prepare(`SELECT COUNT(*) AS total FROM withdrawals WHERE ${where}`),
        page: db.prepare(`SELECT * FROM withdrawals WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`),
      };
      listStatements.set(key, statements);
    }
    return statements;
  }

  return {
    /** Stores a new withdrawal. */
    insert(withdrawal: Withdrawal): void {
      insert.run({ ...withdrawal, ...customerColumns(withdrawal.customer) });
    },
    /** A withdrawal by id, whoever owns it. */
    findById(id: string): Withdrawal | undefined {
      const row = byId.get(id);
      return row && toWithdrawal(row);
    },
    /** A withdrawal by id, only if this merchant owns it. */
    findForMerchant(merchantId: string, id: string): Withdrawal | undefined {
      const row = byMerchantAndId.get(merchantId, id);
      return row && toWithdrawal(row);
    },
    /** The merchant's withdrawal with an invoice, if any. */
    findByInvoice(merchantId: string, invoice: string): Withdrawal | undefined {
      const row = byInvoice.get(merchantId, invoice);
      return row && toWithdrawal(row);
    },
    /** The withdrawal paid out by a network transaction. */
    findByTxnId(txnId: string): Withdrawal | undefined {
      const row = byTxnId.get(txnId);
      return row && toWithdrawal(row);
    },
    /** One page of a merchant's withdrawals, newest first, and how many match in all. */
    list(merchantId: string, filters: WithdrawalFilters, offset: number, limit: number): { withdrawals: Withdrawal[]; total: number } {
      const used = FILTER_NAMES.filter((name) => filters[name] !== undefined);
      const params: Record<string, unknown> = { merchantId, offset, limit };
      for (const name of used) params[name] = JSON.stringify(filters[name]);
      const statements = listStatement(used);
      const { total } = statements.count.get(params) as { total: number };
      const withdrawals = total > offset ? (statements.page.all(params) as WithdrawalRow[]).map(toWithdrawal) : [];
      return { withdrawals, total };
    },
    /** Moves a withdrawal from one status to another; false if it was not in `from` any more. */
    transition(id: string, from: WithdrawalStatus, to: WithdrawalStatus, at: number): boolean {
      return transition.run(to, at, id, from).changes === 1;
    },
    /** Records the broadcast payout; false if it was already recorded. */
    markSent(id: string, txnId: string, addressFrom: string, at: number): boolean {
      return markSent.run(txnId, addressFrom, at, id).changes === 1;
    },
    /** Updates the payout's confirmation count. */
    setConfirmations(id: string, confirmations: number, at: number): void {
      setConfirmations.run(confirmations, at, id);
    },
    /** Approved withdrawals whose payout has not been broadcast yet. */
    awaitingSend(): string[] {
      return awaitingSend.all().map((row) => row.id);
    },
  };
}

/** The withdrawal store's interface. */
export type WithdrawalStore = ReturnType<typeof createWithdrawalStore>;
