/**
 * The service's peak resident memory (VmHWM, as `npm run bench` reads it) in each situation of the
 * bench, with the same loads and the reference taking its turns, but nothing else: about three
 * minutes instead of the whole bench.
 *
 *   node --import tsx bench/memory.ts [node flags of the service...]
 *
 * First start: the address pool filled to the bench's size (the derivation worker runs), the four
 * read rows, then the creates. Second start: the large seeded table without a pool, its list, then
 * the payer's and the dashboard's pages. Prints VmHWM and VmRSS after each step, in MB, and each
 * row's throughput ratio as a check that memory was not bought with speed.
 */
import fs from 'node:fs';
import { freePort } from '../test/helpers/server-process.ts';
import { compare } from './load.ts';
import { LOCALES } from '../widget/i18n/locales.ts';
import { dashboardWeight, heaviestWeights } from './page-weight.ts';
import { waitForFullPool } from './pool-fill.ts';
import { type BenchProcess, startReference, startService } from './processes.ts';
import { LARGE_TABLE, listRow, prepareDataDir, prepareRows, type RowKey, type RowSpec, setReference } from './scenario.ts';
import { seedPayments } from './seed.ts';
import { DERIVED_NETWORKS } from './signed-create.ts';
import { BENCH_POOL_SIZE, CREATE_SHAPE, READ_SHAPE, type Shape } from './run-settings.ts';

const nodeFlags = process.argv.slice(2);
const MB = 1024 * 1024;

function memory(pid: number): { hwm: number; rss: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)![1]) * 1024;
  return { hwm: field('VmHWM'), rss: field('VmRSS') };
}

function report(service: BenchProcess, step: string): number {
  const { hwm, rss } = memory(service.pid);
  process.stdout.write(`${step.padEnd(52)} peak ${(hwm / MB).toFixed(1).padStart(6)} MB   now ${(rss / MB).toFixed(1).padStart(6)} MB\n`);
  return hwm;
}

async function row(service: BenchProcess, reference: BenchProcess, key: string, spec: RowSpec, shape: Shape): Promise<void> {
  await setReference(reference, key, spec);
  const result = await compare({ service, reference }, { service: spec.path, reference: `/r/${key}` }, spec, shape);
  report(service, `${key} (ratio ${result.ratio.toFixed(2)}, ${result.cpuMicros.toFixed(0)} µs/req)`);
}

const port = await freePort();
const { dataDir } = await prepareDataDir(port);
const reference = await startReference(await freePort());
const peaks: number[] = [];
try {
  let service = await startService(dataDir, port, BENCH_POOL_SIZE, nodeFlags);
  try {
    report(service, 'first start');
    const waited = await waitForFullPool(dataDir, DERIVED_NETWORKS, BENCH_POOL_SIZE, 180_000);
    report(service, `pool of ${BENCH_POOL_SIZE} per network filled (${waited.toFixed(1)} s)`);
    const { rows, paymentId } = await prepareRows(service, dataDir);
    for (const key of ['payment', 'checkout', 'checkout-304', 'list'] satisfies RowKey[]) await row(service, reference, key, rows[key], READ_SHAPE);
    await row(service, reference, 'create', rows.create, CREATE_SHAPE);
    peaks.push(report(service, 'first start, in all'));
    await service.stop();

    const large = await seedPayments(dataDir, LARGE_TABLE);
    service = await startService(dataDir, port, 0, nodeFlags);
    report(service, `second start, ${large.totalPayments} payments`);
    const list = await listRow(service, dataDir);
    await row(service, reference, 'list-large', list.spec, READ_SHAPE);
    await heaviestWeights(service.url, paymentId, LOCALES);
    await dashboardWeight(service.url);
    peaks.push(report(service, 'page weights; second start, in all'));
  } finally {
    await service.stop();
  }
  process.stdout.write(`peak RSS over both starts: ${(Math.max(...peaks) / MB).toFixed(1)} MB\n`);
} finally {
  await reference.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
