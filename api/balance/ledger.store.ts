/**
 * @module The merchant balance as a ledger. Every credit and debit is a row carrying its deltas and
 * the running balance after it, so reading a balance is one indexed row and the balance always
 * equals the sum of the deltas. Posting must happen inside the caller's (immediate) transaction,
 * which serialises writers across processes and makes check-then-debit safe.
 */
import type { Db } from '../db/open-database.ts';
import { ApiError } from '../http/api-error.ts';
import type { Clock } from '../shared/clock.ts';
import { type Amount, formatAmount, parseAmount, ZERO } from '../shared/money.ts';

/** Why a ledger row exists. */
export type LedgerKind = 'payment-credit' | 'withdrawal-reserve' | 'withdrawal-release' | 'withdrawal-send';

/** One merchant's balance of one asset. */
export interface Balance {
  assetId: number;
  available: Amount;
  reserved: Amount;
}

/** A credit or debit to post. */
export interface LedgerPosting {
  merchantId: string;
  assetId: number;
  decimals: number;
  kind: LedgerKind;
  availableDelta: Amount;
  reservedDelta: Amount;
  paymentTransactionId?: number;
  withdrawalId?: string;
}

/** SQL for the ledger. */
export function createLedger(db: Db, clock: Clock) {
  const latest = db.prepare<[string, number], { available_after: string; reserved_after: string }>(
    'SELECT available_after, reserved_after FROM ledger_entries WHERE merchant_id = ? AND asset_id = ? ORDER BY seq DESC LIMIT 1',
  );
  const latestPerAsset = db.prepare<[string], { asset_id: number; available_after: string; reserved_after: string }>(
    `SELECT asset_id, available_after, reserved_after FROM ledger_entries
     WHERE seq IN (SELECT MAX(seq) FROM ledger_entries WHERE merchant_id = ? GROUP BY asset_id)
     ORDER BY asset_id`,
  );
  const insert = db.prepare(
    `INSERT INTO ledger_entries (merchant_id, asset_id, kind, available_delta, reserved_delta, available_after, reserved_after,
       payment_transaction_id, withdrawal_id, created_at)
     VALUES (@merchantId, @assetId, @kind, @availableDelta, @reservedDelta, @availableAfter, @reservedAfter,
       @paymentTransactionId, @withdrawalId, @createdAt)`,
  );
  const creditedTransaction = db.prepare<[number], { seq: number }>('SELECT seq FROM ledger_entries WHERE payment_transaction_id = ?');

  function balanceOf(merchantId: string, assetId: number): Balance {
    const row = latest.get(merchantId, assetId);
    return { assetId, available: row ? parseAmount(row.available_after) : ZERO, reserved: row ? parseAmount(row.reserved_after) : ZERO };
  }

  return {
    balanceOf,

    /** Every asset the merchant has ever had a ledger row for. */
    balances(merchantId: string): Balance[] {
      return latestPerAsset
        .all(merchantId)
        .map((row) => ({ assetId: row.asset_id, available: parseAmount(row.available_after), reserved: parseAmount(row.reserved_after) }));
    },

    /** Posts a row; throws 422 insufficient-funds rather than let either balance go below zero. */
    post(posting: LedgerPosting): Balance {
      const before = balanceOf(posting.merchantId, posting.assetId);
      const available = before.available.plus(posting.availableDelta);
      const reserved = before.reserved.plus(posting.reservedDelta);
      if (available.isNegative()) {
        throw new ApiError(
          422,
          'insufficient-funds',
          `The available balance is ${formatAmount(before.available, posting.decimals)}, less than the ${formatAmount(posting.availableDelta.negated(), posting.decimals)} needed.`,
        );
      }
      if (reserved.isNegative()) throw new Error(`ledger: reserved balance of ${posting.merchantId}/${posting.assetId} would go negative`);
      insert.run({
        merchantId: posting.merchantId,
        assetId: posting.assetId,
        kind: posting.kind,
        availableDelta: formatAmount(posting.availableDelta, posting.decimals),
        reservedDelta: formatAmount(posting.reservedDelta, posting.decimals),
        availableAfter: formatAmount(available, posting.decimals),
        reservedAfter: formatAmount(reserved, posting.decimals),
        paymentTransactionId: posting.paymentTransactionId ?? null,
        withdrawalId: posting.withdrawalId ?? null,
        createdAt: clock(),
      });
      return { assetId: posting.assetId, available, reserved };
    },

    /** Whether a payment transaction was already credited. */
    isCredited(paymentTransactionId: number): boolean {
      return creditedTransaction.get(paymentTransactionId) !== undefined;
    },
  };
}

/** The ledger's interface. */
export type Ledger = ReturnType<typeof createLedger>;
