/**
 * What a filtered payment list costs at 1,000 and at 1,000,000 payments, for every filter
 * combination the API offers (statuses alone included, pages past the first), measured in-process
 * on SQLite: the service's own list use case over the payment store, CPU time per call.
 *
 * Three histories, each seeded at both sizes by bench/seed.ts plus a few OPEN payments made through
 * the API, as a shop always has: `settled`, the main bench's (COMPLETE and EXPIRED, OPEN rare);
 * `open-unexpired`, where 75% are OPEN and still running (a burst of creates nobody paid yet); and
 * `open-past-expiry`, where 75% are OPEN past their expiry and not yet marked by the sweep. The
 * OPEN-heavy histories are measured at 150,000 (or the size asked, if smaller) rather than a
 * million: seeding and measuring them at a million would take the run past six minutes on two
 * cores, and what a list walks there grows with the OPEN rows, which 150,000 already shows.
 *
 * Each pair (small and large of one history) stays open side by side in this one process. Each
 * round times every combination on the small history and on the large one (which goes first
 * alternates), so both see the same JIT state and the same load on the machine; the figure per
 * combination is the median of the rounds' ratios (contract section 15: at most 1.5×).
 *
 * With `--postgres`, each seeded history is copied into a PostgreSQL database of its own (the
 * `db import-sqlite` code) on a throw-away cluster, and the services run there instead.
 *
 *   node --import tsx bench/list-scale.ts [largeTotal] [--postgres]   (default 1000000; SQLite also runs in `npm run bench`)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../api/config.ts';
import type { Database } from '../api/db/database.ts';
import { importSqlite, openSqliteSource } from '../api/db/import-sqlite.ts';
import { openPostgresDatabase } from '../api/db/postgres-database.ts';
import { openSqliteDatabase } from '../api/db/sqlite-database.ts';
import { ensureDemoMerchant } from '../api/merchants/demo-merchant.ts';
import type { Merchant } from '../api/merchants/merchant.store.ts';
import { createServices } from '../api/services.ts';
import { systemClock } from '../api/shared/clock.ts';
import { silentLogger } from '../api/shared/logger.ts';
import { parseCreatePayment } from '../api/payments/payment-request.ts';
import { ListPaymentsQuery } from '../api/payments/payment.schema.ts';
import { parseOrThrow } from '../api/shared/validation.ts';
import { startPostgresCluster, type PostgresCluster } from '../test/helpers/postgres-cluster.ts';
import { type SeedMix, seedPayments } from './seed.ts';

const SMALL = 1_000;
const ROUNDS = 15;
const CALLS = 60;
const TARGET = 1.5;
/** The large size of the OPEN-heavy histories (see above). */
const OPEN_HEAVY_LARGE = 150_000;
const MIXES: SeedMix[] = ['settled', 'open-unexpired', 'open-past-expiry'];

const tenInvoices = Array.from({ length: 10 }, (_, i) => `order-${i * 37 + 5}`).join(',');

// Every filter the API offers, alone and together, first and later pages. `ids` and `txnIds`
// are filled per history with one of its own payments (the oldest, the deepest in the index).
const QUERIES: Array<[string, Record<string, string | number>]> = [
  ['no filter, page 1', {}],
  ['no filter, page 2', { page: 2 }],
  ['no filter, page 5, limit 100', { page: 5, limit: 100 }],
  ['statuses=OPEN,CONFIRMING,COMPLETE, page 2', { statuses: 'OPEN,CONFIRMING,COMPLETE', page: 2 }],
  ['statuses=COMPLETE', { statuses: 'COMPLETE' }],
  ['statuses=EXPIRED', { statuses: 'EXPIRED' }],
  ['statuses=EXPIRED, page 3', { statuses: 'EXPIRED', page: 3 }],
  ['statuses=COMPLETE,EXPIRED', { statuses: 'COMPLETE,EXPIRED' }],
  ['statuses=OPEN,EXPIRED', { statuses: 'OPEN,EXPIRED' }],
  ['statuses=CONFIRMING (rare)', { statuses: 'CONFIRMING' }],
  ['statuses=OPEN', { statuses: 'OPEN' }],
  ['statuses=OPEN, page 3', { statuses: 'OPEN', page: 3 }],
  ['statuses=OPEN,CONFIRMING', { statuses: 'OPEN,CONFIRMING' }],
  ['statuses=OPEN + invoices (10)', { statuses: 'OPEN', invoices: tenInvoices }],
  ['statuses=EXPIRED + ids (1)', { statuses: 'EXPIRED', ids: '@id' }],
  ['invoices (10)', { invoices: tenInvoices }],
  ['ids (1)', { ids: '@id' }],
  ['txnIds (1)', { txnIds: '@txn' }],
  ['statuses=COMPLETE,CONFIRMING + invoices (10)', { statuses: 'COMPLETE,CONFIRMING', invoices: tenInvoices }],
  ['statuses=COMPLETE + ids (1)', { statuses: 'COMPLETE', ids: '@id' }],
  ['statuses=COMPLETE + txnIds (1)', { statuses: 'COMPLETE', txnIds: '@txn' }],
  ['invoices (10) + ids (1) + txnIds (1)', { invoices: tenInvoices, ids: '@id', txnIds: '@txn' }],
];

/** One row of the table. */
export interface ListScaleRow {
  /** Which seeded history, and its large size. */
  history: SeedMix;
  large: number;
  label: string;
  smallMicros: number;
  largeMicros: number;
  ratio: number;
}

interface History {
  total: number;
  /** CPU seconds the database server has spent so far (PostgreSQL's processes; 0 for SQLite, which runs in this process). */
  serverCpu: () => number;
  calls: Array<() => Promise<unknown>>;
  close: () => Promise<void>;
}

/** Where the histories are measured: SQLite files, or databases on one PostgreSQL cluster. */
type Store = { kind: 'sqlite' } | { kind: 'postgres'; cluster: PostgresCluster };

async function openHistory(mix: SeedMix, total: number, log: (message: string) => void, store: Store): Promise<History> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-list-scale-'));
  const config = loadConfig({ DATA_DIR: dataDir, SIMULATOR: 'on', SIMULATOR_BLOCK_SECONDS: '0', ADDRESS_POOL_SIZE: '0', LOG_LEVEL: 'silent' });
  const file = path.join(dataDir, 'checkout.db');
  const serverKey = randomBytes(32);
  let db: Database = openSqliteDatabase(file);
  let services = await createServices({ db, config, clock: systemClock, logger: silentLogger(), serverKey });
  await ensureDemoMerchant(services.merchants, dataDir, config.publicUrl, serverKey);
  await services.close();
  await db.close();
  const seeded = await seedPayments(dataDir, total, mix);
  log(`list-scale: seeded ${seeded.totalPayments.toLocaleString('en')} payments (${mix}) in ${(seeded.ms / 1000).toFixed(1)} s`);
  let databaseUrl: string | undefined;
  let postmaster: number | undefined;
  if (store.kind === 'postgres') {
    const name = `history_${mix.replaceAll('-', '_')}_${total}`;
    const admin = new pg.Client({ connectionString: store.cluster.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    databaseUrl = store.cluster.url.replace(/\/postgres$/, `/${name}`);
    const started = performance.now();
    const source = openSqliteSource(file);
    const target = await openPostgresDatabase(databaseUrl, silentLogger());
    await importSqlite(source, target).finally(async () => {
      source.close();
      await target.close();
    });
    log(`list-scale: copied into PostgreSQL in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    db = await openPostgresDatabase(databaseUrl, silentLogger());
    const backend = await db.get<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    postmaster = parentOf(backend!.pid);
  } else db = openSqliteDatabase(file);
  services = await createServices({ db, config: { ...config, databaseUrl }, clock: systemClock, logger: silentLogger(), serverKey });
  const merchant: Merchant = (await services.uow.stores.merchants.findAny())!.merchant;
  // A few live payments, as a shop always has.
  for (let i = 0; i < 5; i++) await services.payments.create(merchant, parseCreatePayment(services.registry, { amount: '0.01', asset: { short: 'BTC', network: 'bitcoin' } }));
  const oldest = (await db.get<{ id: string }>('SELECT id FROM payments WHERE merchant_id = ? ORDER BY created_at LIMIT 1', [merchant.id]))!.id;
  const txn = (await db.get<{ txn_id: string }>('SELECT txn_id FROM payment_transactions ORDER BY id LIMIT 1'))?.txn_id ?? 'none';
  const calls = QUERIES.map(([, asked]) => {
    // As readListQuery hands the query to the use case: arrays for the filters, strings for the rest.
    const query = Object.fromEntries(
      Object.entries(asked).map(([k, v]) => {
        const value = v === '@id' ? oldest : v === '@txn' ? txn : String(v);
        return [k, ['statuses', 'invoices', 'ids', 'txnIds'].includes(k) ? value.split(',') : value];
      }),
    );
    const filters = parseOrThrow(ListPaymentsQuery, query);
    return () => services.payments.list(merchant, filters);
  });
  return {
    total: seeded.totalPayments,
    serverCpu: () => (postmaster === undefined ? 0 : childrenCpu(postmaster)),
    calls,
    close: async () => {
      await services.close();
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** utime + stime of a /proc/<pid>/stat line, in seconds, and its parent. */
function procStat(pid: number | string): { ppid: number; cpu: number } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces) start at state: ppid is the 2nd, utime the 12th, stime the 13th.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / 100 };
}

const parentOf = (pid: number) => procStat(pid)!.ppid;

/** CPU seconds of every process the PostgreSQL server runs (its backends serve our queries). */
function childrenCpu(postmaster: number): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(entry);
    if (stat?.ppid === postmaster) total += stat.cpu;
  }
  return total;
}

/** CPU per call: this process's, plus the database server's where it runs apart (PostgreSQL). */
async function cpuPerCall(history: History, call: () => Promise<unknown>, calls: number): Promise<number> {
  const serverBefore = history.serverCpu();
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) await call();
  const used = process.cpuUsage(before);
  return (used.user + used.system + (history.serverCpu() - serverBefore) * 1e6) / calls;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** Seeds each history at both sizes, measures every combination on both, and closes them. */
export async function measureListScale(largeTotal: number, log: (message: string) => void, options: { postgres?: boolean } = {}): Promise<{ rows: ListScaleRow[] }> {
  const cluster = options.postgres ? await startPostgresCluster() : undefined;
  const store: Store = cluster ? { kind: 'postgres', cluster } : { kind: 'sqlite' };
  const rows: ListScaleRow[] = [];
  try {
    for (const mix of MIXES) rows.push(...(await measureHistory(mix, mix === 'settled' ? largeTotal : Math.min(largeTotal, OPEN_HEAVY_LARGE), log, store)));
    return { rows };
  } finally {
    cluster?.destroy();
  }
}

async function measureHistory(mix: SeedMix, largeTotal: number, log: (message: string) => void, store: Store): Promise<ListScaleRow[]> {
  let small: History | undefined;
  let large: History | undefined;
  try {
    small = await openHistory(mix, SMALL, log, store);
    large = await openHistory(mix, largeTotal, log, store);
    // PostgreSQL's process times tick in hundredths of a second: more calls per measurement there.
    const calls = store.kind === 'postgres' ? CALLS * 5 : CALLS;
    const histories = [small, large];
    for (const history of histories) for (const call of history.calls) for (let i = 0; i < 30; i++) await call();
    const costs = QUERIES.map(() => ({ small: [] as number[], large: [] as number[], ratio: [] as number[] }));
    for (let round = 0; round < ROUNDS; round++) {
      for (let q = 0; q < QUERIES.length; q++) {
        const order = round % 2 === 0 ? [small, large] : [large, small];
        const measured = new Map<History, number>();
        for (const history of order) measured.set(history, await cpuPerCall(history, history.calls[q]!, calls));
        costs[q]!.small.push(measured.get(small)!);
        costs[q]!.large.push(measured.get(large)!);
        costs[q]!.ratio.push(measured.get(large)! / measured.get(small)!);
      }
    }
    const total = large.total;
    return QUERIES.map(([label], q) => ({ history: mix, large: total, label, smallMicros: median(costs[q]!.small), largeMicros: median(costs[q]!.large), ratio: median(costs[q]!.ratio) }));
  } finally {
    await small?.close();
    await large?.close();
  }
}

/** The rows as a markdown table, each named by its history and that history's large size. */
export function listScaleTable(rows: ListScaleRow[]): string {
  return [
    `| history (large size) | filter | µs CPU per list at ${SMALL.toLocaleString('en')} | at the large size | ratio (median of ${ROUNDS} rounds) | target | met |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.history} (${r.large.toLocaleString('en')}) | ${r.label} | ${r.smallMicros.toFixed(0)} | ${r.largeMicros.toFixed(0)} | ${r.ratio.toFixed(2)}× | ≤ ${TARGET}× | ${r.ratio <= TARGET ? 'yes' : '**NO**'} |`,
    ),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const total = Number(args.find((a) => /^\d+$/.test(a)) ?? 1_000_000);
  const { rows } = await measureListScale(total, (m) => process.stdout.write(`${m}\n`), { postgres: args.includes('--postgres') });
  process.stdout.write(`\n${listScaleTable(rows)}\n`);
}
