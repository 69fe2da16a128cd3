/**
 * What a filtered payment list costs at 1,000 and at 1,000,000 payments, for every filter
 * combination the API offers (statuses alone included), measured in-process on SQLite: the
 * service's own list use case over the payment store, each combination run many times after a
 * warm-up, CPU time per call. Seeded history as the main bench seeds it (bench/seed.ts), plus a
 * few OPEN and CONFIRMING payments made through the API.
 *
 *   node --import tsx bench/list-scale.ts [largeTotal]      (default 1000000)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../api/config.ts';
import { openSqliteDatabase } from '../api/db/sqlite-database.ts';
import { ensureDemoMerchant } from '../api/merchants/demo-merchant.ts';
import { createServices } from '../api/services.ts';
import { systemClock } from '../api/shared/clock.ts';
import { silentLogger } from '../api/shared/logger.ts';
import { seedPayments } from './seed.ts';

const LARGE = Number(process.argv[2] ?? 1_000_000);
const SMALL = 1_000;
const CALLS = 100;

const QUERIES: Array<[string, Record<string, string | number>]> = [
  ['no filter, page 1', {}],
  ['no filter, page 2', { page: 2 }],
  ['statuses=OPEN,CONFIRMING,COMPLETE, page 2', { statuses: 'OPEN,CONFIRMING,COMPLETE', page: 2 }],
  ['statuses=COMPLETE', { statuses: 'COMPLETE' }],
  ['statuses=EXPIRED', { statuses: 'EXPIRED' }],
  ['statuses=CONFIRMING (rare)', { statuses: 'CONFIRMING' }],
  ['statuses=OPEN (rare)', { statuses: 'OPEN' }],
  ['invoices (10)', { invoices: Array.from({ length: 10 }, (_, i) => `order-${i * 37 + 5}`).join(',') }],
  ['ids (1)', {}],
  ['txnIds (1)', {}],
  ['statuses=COMPLETE,CONFIRMING + invoices (10)', { statuses: 'COMPLETE,CONFIRMING', invoices: Array.from({ length: 10 }, (_, i) => `order-${i * 37 + 5}`).join(',') }],
];

async function measure(total: number): Promise<Map<string, number>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-list-scale-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, SIMULATOR: 'on', SIMULATOR_BLOCK_SECONDS: '0', ADDRESS_POOL_SIZE: '0', LOG_LEVEL: 'silent' });
    const open = () => openSqliteDatabase(path.join(dataDir, 'checkout.db'));
    const serverKey = randomBytes(32);
    let db = open();
    let services = await createServices({ db, config, clock: systemClock, logger: silentLogger(), serverKey });
    await ensureDemoMerchant(services.merchants, dataDir, config.publicUrl);
    await services.close();
    await db.close();
    const seeded = await seedPayments(dataDir, total);
    process.stdout.write(`list-scale: seeded ${seeded.totalPayments} payments in ${(seeded.ms / 1000).toFixed(1)} s\n`);
    db = open();
    services = await createServices({ db, config, clock: systemClock, logger: silentLogger(), serverKey });
    const merchant = (await services.uow.stores.merchants.findAny())!.merchant;
    // A few live payments, as a shop always has.
    for (let i = 0; i < 5; i++) await services.payments.create(merchant, { amount: '0.01', asset: { short: 'BTC', network: 'bitcoin' } });
    const anyId = (await db.get<{ id: string }>('SELECT id FROM payments WHERE merchant_id = ? ORDER BY created_at LIMIT 1', [merchant.id]))!.id;
    const anyTxn = (await db.get<{ txn_id: string }>('SELECT txn_id FROM payment_transactions LIMIT 1'))?.txn_id ?? 'none';
    const costs = new Map<string, number>();
    for (const [label, asked] of QUERIES) {
      const params = label.startsWith('ids') ? { ids: anyId } : label.startsWith('txnIds') ? { txnIds: anyTxn } : asked;
      // As readListQuery hands the query to the use case: arrays for the filters, strings for the rest.
      const query = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, ['statuses', 'invoices', 'ids', 'txnIds'].includes(k) ? String(v).split(',') : String(v)]));
      const call = () => services.payments.list(merchant, query);
      for (let i = 0; i < 20; i++) await call();
      const before = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) await call();
      const used = process.cpuUsage(before);
      costs.set(label, (used.user + used.system) / CALLS);
    }
    await services.close();
    await db.close();
    return costs;
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const small = await measure(SMALL);
const large = await measure(LARGE);
process.stdout.write(`\n| filter | µs CPU per list at ${SMALL.toLocaleString('en')} | at ${LARGE.toLocaleString('en')} | ratio |\n| --- | --- | --- | --- |\n`);
for (const [label] of QUERIES) {
  const a = small.get(label)!;
  const b = large.get(label)!;
  process.stdout.write(`| ${label} | ${a.toFixed(0)} | ${b.toFixed(0)} | ${(b / a).toFixed(2)}× |\n`);
}
