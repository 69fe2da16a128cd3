/** Independent checks of the balance ledger, read straight from the SQLite file. */
import Database from 'better-sqlite3';
import Decimal from 'decimal.js';
import path from 'node:path';

/** One ledger row as stored. */
export interface LedgerRow {
  seq: number;
  merchant_id: string;
  asset_id: number;
  kind: string;
  available_delta: string;
  reserved_delta: string;
  available_after: string;
  reserved_after: string;
  withdrawal_id: string | null;
}

/** Opens a service's database read-only (the service may still be running). */
export function openReadOnly(dataDir: string): Database.Database {
  return new Database(path.join(dataDir, 'checkout.db'), { readonly: true, fileMustExist: true });
}

/**
 * Every way the ledger of one merchant is inconsistent: a running balance that is not the previous
 * one plus the deltas, a negative balance, or a final balance unequal to the sum of all deltas.
 * Returns the problems (empty when sound) and the final balance per asset id.
 */
export function auditLedger(db: Database.Database, merchantId: string): { problems: string[]; balances: Map<number, { available: string; reserved: string }> } {
  const rows = db.prepare<[string], LedgerRow>('SELECT * FROM ledger_entries WHERE merchant_id = ? ORDER BY seq').all(merchantId);
  const problems: string[] = [];
  const running = new Map<number, { available: Decimal; reserved: Decimal; sumAvailable: Decimal; sumReserved: Decimal }>();
  for (const row of rows) {
    const before = running.get(row.asset_id) ?? { available: new Decimal(0), reserved: new Decimal(0), sumAvailable: new Decimal(0), sumReserved: new Decimal(0) };
    const available = new Decimal(row.available_after);
    const reserved = new Decimal(row.reserved_after);
    if (!before.available.plus(row.available_delta).eq(available)) problems.push(`seq ${row.seq}: available ${before.available} + ${row.available_delta} ≠ ${row.available_after}`);
    if (!before.reserved.plus(row.reserved_delta).eq(reserved)) problems.push(`seq ${row.seq}: reserved ${before.reserved} + ${row.reserved_delta} ≠ ${row.reserved_after}`);
    if (available.isNegative()) problems.push(`seq ${row.seq}: available ${row.available_after} is negative`);
    if (reserved.isNegative()) problems.push(`seq ${row.seq}: reserved ${row.reserved_after} is negative`);
    running.set(row.asset_id, {
      available,
      reserved,
      sumAvailable: before.sumAvailable.plus(row.available_delta),
      sumReserved: before.sumReserved.plus(row.reserved_delta),
    });
  }
  const balances = new Map<number, { available: string; reserved: string }>();
  for (const [assetId, state] of running) {
    if (!state.sumAvailable.eq(state.available)) problems.push(`asset ${assetId}: deltas sum to ${state.sumAvailable}, balance is ${state.available}`);
    if (!state.sumReserved.eq(state.reserved)) problems.push(`asset ${assetId}: reserved deltas sum to ${state.sumReserved}, reserved is ${state.reserved}`);
    balances.set(assetId, { available: state.available.toFixed(), reserved: state.reserved.toFixed() });
  }
  return { problems, balances };
}

/** The ledger rows of one withdrawal, by kind. */
export function withdrawalSteps(db: Database.Database, withdrawalId: string): string[] {
  return db
    .prepare<[string], { kind: string }>('SELECT kind FROM ledger_entries WHERE withdrawal_id = ? ORDER BY seq')
    .all(withdrawalId)
    .map((row) => row.kind);
}
