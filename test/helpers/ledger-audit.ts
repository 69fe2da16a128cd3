/**
 * Independent checks of the balance ledger, read straight from the stored rows: from the SQLite
 * file (`openReadOnly`, synchronous) or through any `Sql` on either database (`openAuditDatabase`,
 * a connection of the test's own; every check then answers a promise).
 */
import Database from 'better-sqlite3';
import Decimal from 'decimal.js';
import path from 'node:path';
import type { Database as AsyncDatabase, Sql } from '../../api/db/database.ts';
import { openPostgresDatabase } from '../../api/db/postgres-database.ts';
import { openSqliteDatabase } from '../../api/db/sqlite-database.ts';
import { silentLogger } from '../../api/shared/logger.ts';

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

/** What `auditLedger` finds: the problems (empty when sound) and the final balance per asset id. */
export interface LedgerAudit {
  problems: string[];
  balances: Map<number, { available: string; reserved: string }>;
}

const LEDGER_ROWS = 'SELECT * FROM ledger_entries WHERE merchant_id = ? ORDER BY seq';
const WITHDRAWAL_STEPS = 'SELECT kind FROM ledger_entries WHERE withdrawal_id = ? ORDER BY seq';

/** Opens a service's SQLite file read-only (the service may still be running). */
export function openReadOnly(dataDir: string): Database.Database {
  return new Database(path.join(dataDir, 'checkout.db'), { readonly: true, fileMustExist: true });
}

/**
 * A connection of the test's own to the data a service runs on: its PostgreSQL database when
 * `databaseUrl` is set, else the SQLite file in `dataDir`. Close it when done.
 */
export async function openAuditDatabase(target: { dataDir: string; databaseUrl?: string | undefined }): Promise<AsyncDatabase> {
  if (target.databaseUrl) return openPostgresDatabase(target.databaseUrl, silentLogger(), { poolSize: 1 });
  return openSqliteDatabase(path.join(target.dataDir, 'checkout.db'));
}

const isSql = (db: Database.Database | Sql): db is Sql => 'dialect' in db;

/**
 * Every way the ledger of one merchant is inconsistent: a running balance that is not the previous
 * one plus the deltas, a negative balance, or a final balance unequal to the sum of all deltas.
 * Returns the problems (empty when sound) and the final balance per asset id; through an `Sql`,
 * as a promise.
 */
export function auditLedger(db: Database.Database, merchantId: string): LedgerAudit;
export function auditLedger(db: Sql, merchantId: string): Promise<LedgerAudit>;
export function auditLedger(db: Database.Database | Sql, merchantId: string): LedgerAudit | Promise<LedgerAudit> {
  if (isSql(db)) return db.all<LedgerRow>(LEDGER_ROWS, [merchantId]).then(auditRows);
  return auditRows(db.prepare<[string], LedgerRow>(LEDGER_ROWS).all(merchantId));
}

/** The audit of one merchant's rows, in `seq` order. */
function auditRows(rows: LedgerRow[]): LedgerAudit {
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

/** The ledger rows of one withdrawal, by kind; through an `Sql`, as a promise. */
export function withdrawalSteps(db: Database.Database, withdrawalId: string): string[];
export function withdrawalSteps(db: Sql, withdrawalId: string): Promise<string[]>;
export function withdrawalSteps(db: Database.Database | Sql, withdrawalId: string): string[] | Promise<string[]> {
  if (isSql(db)) return db.all<{ kind: string }>(WITHDRAWAL_STEPS, [withdrawalId]).then((rows) => rows.map((row) => row.kind));
  return db
    .prepare<[string], { kind: string }>(WITHDRAWAL_STEPS)
    .all(withdrawalId)
    .map((row) => row.kind);
}
