/**
 * @module Copies an existing SQLite installation into an empty PostgreSQL database: merchants with
 * their sealed keys, payments and their transactions, withdrawals, the ledger, every address and
 * tag handed out (with each network's next derivation index), and the simulated chains. All of it
 * in one PostgreSQL transaction: a failure copies nothing.
 */
import BetterSqlite3 from 'better-sqlite3';
import fs from 'node:fs';
import type { Database } from './database.ts';

/** Tables in the order their references need, each with the key that orders its rows. */
const TABLES: Array<{ name: string; key: string; count?: string; since?: string }> = [
  { name: 'networks', key: 'name' },
  { name: 'assets', key: 'id' },
  { name: 'merchants', key: 'created_at, id', count: 'merchants' },
  // Keys still in a rotation's grace period; a file from before rotation existed has none.
  { name: 'merchant_previous_keys', key: 'api_key_hash', since: '0020-merchant-api-hardening' },
  { name: 'hd_accounts', key: 'network' },
  { name: 'payments', key: 'created_at, id', count: 'payments' },
  { name: 'payment_transactions', key: 'id', count: 'transactions' },
  { name: 'addresses', key: 'id', count: 'addresses' },
  { name: 'withdrawals', key: 'created_at, id', count: 'withdrawals' },
  // Refunds before the ledger, whose rows may name them.
  { name: 'refunds', key: 'created_at, id', since: '0091-refunds' },
  { name: 'ledger_entries', key: 'seq', count: 'ledgerEntries' },
  { name: 'sim_chains', key: 'network' },
  { name: 'sim_transactions', key: 'created_at, txn_id' },
  // Webhook endpoints (secrets sealed under the same SERVER_KEY), their queue and delivery log.
  { name: 'webhook_endpoints', key: 'created_at, id', since: '0060-webhooks' },
  { name: 'webhook_events', key: 'created_at, id', since: '0060-webhooks' },
  { name: 'webhook_deliveries', key: 'seq', since: '0060-webhooks' },
  { name: 'webhook_attempts', key: 'created_at, id', since: '0060-webhooks' },
  // Where each network's node follower stands, the blocks it processed, and the transactions it follows.
  { name: 'chain_cursors', key: 'network', since: '0070-chain-following' },
  { name: 'chain_transactions', key: 'network, txn_id', since: '0070-chain-following' },
  { name: 'chain_blocks', key: 'network, height', since: '0077-followed-blocks' },
  // The wallet's received outputs and the signed payouts (stored before their broadcast).
  { name: 'chain_outputs', key: 'network, txn_id, vout', since: '0071-utxo-payouts' },
  { name: 'payout_transactions', key: 'withdrawal_id', since: '0071-utxo-payouts' },
  { name: 'eth_nonces', key: 'address', since: '0073-ethereum-payouts' },
  // Mail not yet sent (and the record of what was).
  { name: 'mail_outbox', key: 'created_at, id', since: '0092-payer-locale-and-mail' },
  // Dashboard users keep their password hashes; sessions are not copied (everyone signs in again).
  { name: 'dashboard_users', key: 'created_at, id', since: '0100-dashboard-users' },
];
/** Rows that make a database "hold data": an import never mixes two installations. */
const HOLDS_DATA = ['merchants', 'payments', 'withdrawals', 'ledger_entries', 'addresses'];
/** Tables a fresh start fills by itself, replaced by the imported installation's rows. */
const REPLACED = ['sim_transactions', 'sim_chains', 'hd_accounts', 'job_leases', 'assets', 'networks'];
const IDENTITY_COLUMNS: Array<[string, string]> = [
  ['assets', 'id'],
  ['addresses', 'id'],
  ['payment_transactions', 'id'],
  ['ledger_entries', 'seq'],
  ['webhook_deliveries', 'seq'],
];
const BATCH = 500;
/** Triggers that keep derived rows (status counts, OPEN payments per minute of expiry, payment versions) and are off while copying. */
const BULK_TRIGGERS: Array<[string, string]> = [
  ['payments', 'payment_counts_on_insert_delete'],
  ['payments', 'payment_open_expiries_on_insert'],
  ['payment_transactions', 'payments_version_on_transaction_change'],
];

/** Why an import was refused; the CLI prints the message. */
export class ImportRefused extends Error {
  override name = 'ImportRefused';
}

/** What was copied, per kind of record. */
export type ImportCounts = Record<string, number>;

/** Opens the SQLite file read-only, after checking it is one of ours. */
export function openSqliteSource(file: string): BetterSqlite3.Database {
  if (!fs.existsSync(file)) throw new ImportRefused(`${file} does not exist`);
  let source: BetterSqlite3.Database;
  try {
    source = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    source.prepare('SELECT version FROM schema_migrations').all();
  } catch {
    throw new ImportRefused(`${file} is not a crypto-checkout SQLite database`);
  }
  return source;
}

/** One merchant's id and sealed secret from the source, for the caller to check the server key against. */
export function sampleSealedSecret(source: BetterSqlite3.Database): { id: string; secretKeyEnc: string } | undefined {
  return source.prepare<[], { id: string; secret_key_enc: string }>('SELECT id, secret_key_enc FROM merchants ORDER BY created_at, id LIMIT 1').all()
    .map((row) => ({ id: row.id, secretKeyEnc: row.secret_key_enc }))[0];
}

/** Copies every table of `source` into `target` (PostgreSQL), which must hold no installation's data yet. */
export async function importSqlite(source: BetterSqlite3.Database, target: Database): Promise<ImportCounts> {
  if (target.dialect.name !== 'postgres') throw new ImportRefused('the target must be PostgreSQL: set DATABASE_URL');
  const counts: ImportCounts = {};
  await target.transaction(async (tx) => {
    // Nothing else may write while we copy (an instance started meanwhile would add its own rows).
    await tx.run(`LOCK TABLE ${[...HOLDS_DATA, ...REPLACED].join(', ')} IN EXCLUSIVE MODE`);
    for (const table of HOLDS_DATA) {
      const row = await tx.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`);
      if (Number(row!.n) > 0) throw new ImportRefused(`the PostgreSQL database already holds data (${table} has ${row!.n} rows); import into an empty database`);
    }
    for (const table of REPLACED) await tx.run(`DELETE FROM ${table}`);
    // Row by row, the counting triggers would move the same few counter rows once per payment, and
    // in one transaction each move walks every earlier version of its row: quadratic (a million
    // payments did not finish in 35 minutes). The copy keeps the source's versions and counts the
    // statuses once at the end; the ALTERs are part of the transaction, so a failure undoes them.
    for (const [table, trigger] of BULK_TRIGGERS) await tx.run(`ALTER TABLE ${table} DISABLE TRIGGER ${trigger}`);
    const applied = new Set((source.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: string }>).map((r) => r.version));
    for (const { name, key, count, since } of TABLES) {
      if (since && !applied.has(since)) continue;
      // Rows are read as they are copied, a batch at a time: a million payments never sit in memory
      // at once. (The read-only source connection does nothing else meanwhile.)
      let copied = 0;
      let batch: Array<Record<string, unknown>> = [];
      const flush = async () => {
        const columns = Object.keys(batch[0]!);
        const values = batch.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ');
        await tx.run(`INSERT INTO ${name} (${columns.join(', ')}) VALUES ${values}`, batch.flatMap((row) => columns.map((c) => row[c])));
        copied += batch.length;
        batch = [];
      };
      for (const row of source.prepare(`SELECT * FROM ${name} ORDER BY ${key}`).iterate() as IterableIterator<Record<string, unknown>>) {
        batch.push(row);
        if (batch.length === BATCH) await flush();
      }
      if (batch.length > 0) await flush();
      if (count) counts[count] = copied;
    }
    // A file from before redeliveries were counted (migration 0106) logged them without counting:
    // count them from its log as that migration does, so no attempt number is used twice.
    if (!applied.has('0106-webhook-redeliveries')) {
      await tx.run(`UPDATE webhook_deliveries SET redeliveries = logged.n - webhook_deliveries.attempts
        FROM (SELECT endpoint_id, event_id, COUNT(*) AS n FROM webhook_attempts GROUP BY endpoint_id, event_id) AS logged
       WHERE logged.endpoint_id = webhook_deliveries.endpoint_id AND logged.event_id = webhook_deliveries.event_id AND logged.n > webhook_deliveries.attempts`);
    }
    await tx.run('DELETE FROM payment_status_counts');
    await tx.run('INSERT INTO payment_status_counts (merchant_id, status, slot, n) SELECT merchant_id, status, 0, COUNT(*) FROM payments GROUP BY merchant_id, status');
    // The OPEN payments per minute of expiry, each in the slot its id picks (as the trigger counts it).
    await tx.run('DELETE FROM open_payment_expiries');
    await tx.run(`INSERT INTO open_payment_expiries (merchant_id, minute, slot, n)
      SELECT merchant_id, expires_at / 60000, payment_counter_slot(id), COUNT(*) FROM payments WHERE status = 'OPEN'
      GROUP BY merchant_id, expires_at / 60000, payment_counter_slot(id)`);
    for (const [table, trigger] of BULK_TRIGGERS) await tx.run(`ALTER TABLE ${table} ENABLE TRIGGER ${trigger}`);
    for (const [table, column] of IDENTITY_COLUMNS) {
      await tx.get(`SELECT setval(pg_get_serial_sequence('${table}', '${column}'), COALESCE((SELECT MAX(${column}) FROM ${table}), 0) + 1, false)`);
    }
  });
  // A bulk copy leaves the planner without statistics and the per-status counters with one dead
  // row version per payment copied (each insert moved a counter): until autovacuum came by, lists
  // read through all of them. Clean and measure now, outside the copy's transaction.
  await target.run('VACUUM ANALYZE');
  return counts;
}
