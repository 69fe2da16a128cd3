/**
 * What a filtered payment list costs at 1,000 and at 1,000,000 payments, for every filter
 * combination the API offers (statuses alone included, pages past the first), measured in-process
 * on SQLite: the service's own list use case over the payment store, CPU time per call.
 *
 * Both histories are seeded as the main bench seeds them (bench/seed.ts), plus a few OPEN and
 * CONFIRMING payments made through the API, and both services stay open side by side in this one
 * process. Each round times every combination on the small history and on the large one (which
 * goes first alternates), so both see the same JIT state and the same load on the machine; the
 * figure per combination is the median of the rounds' ratios (contract section 15: at most 1.5×).
 *
 *   node --import tsx bench/list-scale.ts [largeTotal]      (default 1000000; also part of `npm run bench`)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../api/config.ts';
import { openSqliteDatabase } from '../api/db/sqlite-database.ts';
import { ensureDemoMerchant } from '../api/merchants/demo-merchant.ts';
import type { Merchant } from '../api/merchants/merchant.store.ts';
import { createServices } from '../api/services.ts';
import { systemClock } from '../api/shared/clock.ts';
import { silentLogger } from '../api/shared/logger.ts';
import { seedPayments } from './seed.ts';

const SMALL = 1_000;
const ROUNDS = 15;
const CALLS = 60;
const TARGET = 1.5;

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
  ['statuses=OPEN (rare)', { statuses: 'OPEN' }],
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
  label: string;
  smallMicros: number;
  largeMicros: number;
  ratio: number;
}

interface History {
  total: number;
  calls: Array<() => Promise<unknown>>;
  close: () => Promise<void>;
}

async function openHistory(total: number, log: (message: string) => void): Promise<History> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-list-scale-'));
  const config = loadConfig({ DATA_DIR: dataDir, SIMULATOR: 'on', SIMULATOR_BLOCK_SECONDS: '0', ADDRESS_POOL_SIZE: '0', LOG_LEVEL: 'silent' });
  const open = () => openSqliteDatabase(path.join(dataDir, 'checkout.db'));
  const serverKey = randomBytes(32);
  let db = open();
  let services = await createServices({ db, config, clock: systemClock, logger: silentLogger(), serverKey });
  await ensureDemoMerchant(services.merchants, dataDir, config.publicUrl);
  await services.close();
  await db.close();
  const seeded = await seedPayments(dataDir, total);
  log(`list-scale: seeded ${seeded.totalPayments.toLocaleString('en')} payments in ${(seeded.ms / 1000).toFixed(1)} s`);
  db = open();
  services = await createServices({ db, config, clock: systemClock, logger: silentLogger(), serverKey });
  const merchant: Merchant = (await services.uow.stores.merchants.findAny())!.merchant;
  // A few live payments, as a shop always has.
  for (let i = 0; i < 5; i++) await services.payments.create(merchant, { amount: '0.01', asset: { short: 'BTC', network: 'bitcoin' } });
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
    return () => services.payments.list(merchant, query);
  });
  return {
    total: seeded.totalPayments,
    calls,
    close: async () => {
      await services.close();
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function cpuPerCall(call: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await call();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / CALLS;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** Seeds both histories, measures every combination on both, and closes them. */
export async function measureListScale(largeTotal: number, log: (message: string) => void): Promise<{ rows: ListScaleRow[]; large: number }> {
  const small = await openHistory(SMALL, log);
  let large: History | undefined;
  try {
    large = await openHistory(largeTotal, log);
    const histories = [small, large];
    for (const history of histories) for (const call of history.calls) for (let i = 0; i < 30; i++) await call();
    const costs = QUERIES.map(() => ({ small: [] as number[], large: [] as number[], ratio: [] as number[] }));
    for (let round = 0; round < ROUNDS; round++) {
      for (let q = 0; q < QUERIES.length; q++) {
        const order = round % 2 === 0 ? [small, large] : [large, small];
        const measured = new Map<History, number>();
        for (const history of order) measured.set(history, await cpuPerCall(history.calls[q]!));
        costs[q]!.small.push(measured.get(small)!);
        costs[q]!.large.push(measured.get(large)!);
        costs[q]!.ratio.push(measured.get(large)! / measured.get(small)!);
      }
    }
    const rows = QUERIES.map(([label], q) => ({ label, smallMicros: median(costs[q]!.small), largeMicros: median(costs[q]!.large), ratio: median(costs[q]!.ratio) }));
    return { rows, large: large.total };
  } finally {
    await small.close();
    await large?.close();
  }
}

/** The rows as a markdown table. */
export function listScaleTable(rows: ListScaleRow[], largeTotal: number): string {
  return [
    `| filter | µs CPU per list at ${SMALL.toLocaleString('en')} | at ${largeTotal.toLocaleString('en')} | ratio (median of ${ROUNDS} rounds) | target | met |`,
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.label} | ${r.smallMicros.toFixed(0)} | ${r.largeMicros.toFixed(0)} | ${r.ratio.toFixed(2)}× | ≤ ${TARGET}× | ${r.ratio <= TARGET ? 'yes' : '**NO**'} |`),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { rows, large } = await measureListScale(Number(process.argv[2] ?? 1_000_000), (m) => process.stdout.write(`${m}\n`));
  process.stdout.write(`\n${listScaleTable(rows, large)}\n`);
}
