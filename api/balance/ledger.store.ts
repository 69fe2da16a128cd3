/**
 * @module SQL for the merchant ledger: one row per credit or debit, each carrying its deltas and the
 * running balance after it, so reading a balance is one indexed row and the balance always equals
 * the sum of the deltas. Rules about what may be posted live in `ledger.ts`.
 */
import type { Sql } from '../db/database.ts';

/** Why a ledger row exists. */
export type LedgerKind = 'payment-credit' | 'payment-reversal' | 'withdrawal-reserve' | 'withdrawal-release' | 'withdrawal-send' | 'refund-reserve' | 'refund-release';

/** A ledger row about to be stored (amounts already rendered with the asset's decimals). */
export interface LedgerRow {
  merchantId: string;
  assetId: number;
  kind: LedgerKind;
  availableDelta: string;
  reservedDelta: string;
  availableAfter: string;
  reservedAfter: string;
  paymentTransactionId: number | null;
  withdrawalId: string | null;
  /** The refund whose own reservation this moves (before it has a withdrawal). */
  refundId: string | null;
  createdAt: number;
  /** A payment transaction's credit round: 0, then one more for each credit after a reversal. */
  creditRound: number;
}

/** The running balance after an account's latest row. */
export interface LatestBalance {
  assetId: number;
  available: string;
  reserved: string;
}

const INSERT = `INSERT INTO ledger_entries (merchant_id, asset_id, kind, available_delta, reserved_delta, available_after, reserved_after,
     payment_transaction_id, withdrawal_id, created_at, credit_round, refund_id)
   VALUES (@merchantId, @assetId, @kind, @availableDelta, @reservedDelta, @availableAfter, @reservedAfter,
     @paymentTransactionId, @withdrawalId, @createdAt, @creditRound, @refundId)`;

/**
 * The latest row of the account of `@merchantId` in `asset` (a parameter or a column): the account
 * index (merchant, asset, seq descending) read from its start. PostgreSQL has no INDEXED BY, and with
 * `asset_id = ? ORDER BY seq DESC` its planner may walk the primary key back from the newest row,
 * past every row of the merchant's other assets: its statistics cannot tell that an asset's rows
 * stopped long ago (3.4 ms at 30,000 such rows, and growing). A range on the asset, ordered as the
 * index is, is returned in that order by that index alone.
 */
function accountLatest(dialect: 'sqlite' | 'postgres', asset: string): string {
  return dialect === 'postgres'
    ? `merchant_id = @merchantId AND asset_id >= ${asset} AND asset_id <= ${asset} ORDER BY asset_id, seq DESC LIMIT 1`
    : `merchant_id = @merchantId AND asset_id = ${asset} ORDER BY seq DESC LIMIT 1`;
}

function balanceReads(dialect: 'sqlite' | 'postgres') {
  return {
    /** The latest row of one account (`@merchantId`, `@assetId`). */
    latest: `SELECT available_after, reserved_after FROM ledger_entries WHERE ${accountLatest(dialect, '@assetId')}`,
    /** The latest row of each of `@merchantId`'s accounts: one index lookup per asset, whatever the history. */
    balances:
      dialect === 'postgres'
        ? `SELECT a.id AS asset_id, l.available_after, l.reserved_after FROM assets a
           CROSS JOIN LATERAL (SELECT available_after, reserved_after FROM ledger_entries WHERE ${accountLatest(dialect, 'a.id')}) l
           ORDER BY a.id`
        : `SELECT l.asset_id, l.available_after, l.reserved_after FROM assets a
           JOIN ledger_entries l ON l.seq = (SELECT seq FROM ledger_entries WHERE ${accountLatest(dialect, 'a.id')})
           ORDER BY a.id`,
  };
}

/** The balance reads of each dialect (exported for their plan test). */
export const BALANCE_READS = { sqlite: balanceReads('sqlite'), postgres: balanceReads('postgres') } as const;

/** SQL for the ledger, on the database or inside one transaction. */
export class LedgerStore {
  constructor(private readonly sql: Sql) {}

  /**
   * Holds one merchant's account of one asset until the transaction ends, so a read of its balance
   * followed by a posting cannot interleave with another's. PostgreSQL: a transaction-scoped
   * advisory lock on the account; SQLite: writers are already serialised (BEGIN IMMEDIATE).
   */
  async lockAccount(merchantId: string, assetId: number): Promise<void> {
    if (this.sql.dialect.name === 'postgres') await this.sql.get('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`ledger:${merchantId}:${assetId}`]);
  }

  /** The balance after the account's latest row, if it has one. */
  async latest(merchantId: string, assetId: number): Promise<LatestBalance | undefined> {
    const row = await this.sql.get<{ available_after: string; reserved_after: string }>(
      BALANCE_READS[this.sql.dialect.name].latest,
      { merchantId, assetId },
    );
    return row && { assetId, available: row.available_after, reserved: row.reserved_after };
  }

  /** The latest balance of every asset the merchant has ever had a row for, in asset order. */
  async balances(merchantId: string): Promise<LatestBalance[]> {
    const rows = await this.sql.all<{ asset_id: number; available_after: string; reserved_after: string }>(
      BALANCE_READS[this.sql.dialect.name].balances,
      { merchantId },
    );
    return rows.map((row) => ({ assetId: row.asset_id, available: row.available_after, reserved: row.reserved_after }));
  }

  /** Stores a row; unique indexes refuse a second credit of one transaction or a repeated withdrawal step. */
  async insert(row: LedgerRow): Promise<void> {
    await this.sql.run(INSERT, row);
  }

  /** Whether a withdrawal's step (its reservation, release or send) is posted. */
  async hasWithdrawalStep(withdrawalId: string, kind: 'withdrawal-reserve' | 'withdrawal-release' | 'withdrawal-send'): Promise<boolean> {
    return (await this.sql.get('SELECT 1 AS found FROM ledger_entries WHERE withdrawal_id = ? AND kind = ?', [withdrawalId, kind])) !== undefined;
  }

  /** Whether a refund's own reservation is posted and not yet released (handed to its withdrawal, or given back). */
  async holdsRefundReserve(refundId: string): Promise<boolean> {
    const rows = await this.sql.all<{ kind: LedgerKind }>('SELECT kind FROM ledger_entries WHERE refund_id = ?', [refundId]);
    return rows.some((r) => r.kind === 'refund-reserve') && !rows.some((r) => r.kind === 'refund-release');
  }

  /** Whether a payment transaction is credited now (credited, and not reversed since). */
  async isCredited(paymentTransactionId: number): Promise<boolean> {
    return (await this.creditState(paymentTransactionId)).credited;
  }

  /**
   * Where a payment transaction's credit stands: credited now or not, the round of its next credit,
   * and whether the ledger names it at all (then its row is history and is never deleted).
   */
  async creditState(paymentTransactionId: number): Promise<{ credited: boolean; round: number; posted: boolean }> {
    const row = await this.sql.get<{ kind: LedgerKind; credit_round: number }>(
      'SELECT kind, credit_round FROM ledger_entries WHERE payment_transaction_id = ? ORDER BY seq DESC LIMIT 1',
      [paymentTransactionId],
    );
    if (!row) return { credited: false, round: 0, posted: false };
    const round = Number(row.credit_round);
    return row.kind === 'payment-credit' ? { credited: true, round, posted: true } : { credited: false, round: round + 1, posted: true };
  }
}
