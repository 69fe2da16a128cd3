/**
 * `npm run bench`: the service's throughput, latency, scale and memory against a bare Express
 * reference run side by side, and the payer's download weight. Prints one table and writes it to
 * bench/results.md. Set BENCH_CPU_PROFILE_DIR to also write V8 CPU profiles of the service.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test/helpers/server-process.ts';
import { compare, type Comparison } from './load.ts';
import { LOCALES } from '../widget/i18n/locales.ts';
import { BUDGET_BYTES, DASHBOARD_BUDGET_BYTES, dashboardWeight, heaviestWeights } from './page-weight.ts';
import { waitForFullPool } from './pool-fill.ts';
import { type BenchProcess, peakRss, startReference, startService } from './processes.ts';
import { formatResults, type Row } from './report.ts';
import { demoKeys, LARGE_TABLE, listRow, prepareDataDir, prepareRows, type RowSpec, setReference, SMALL_TABLE } from './scenario.ts';
import { seedPayments } from './seed.ts';
import { blockScanTable } from './block-scan.ts';
import { moneroScanTable } from './monero-scan.ts';
import { listScaleTable, measureListScale } from './list-scale.ts';
import { boundsTable, measureBounds } from './bounds.ts';
import { postgresRows } from './postgres-rows.ts';
import { createRequests, DERIVED_NETWORKS } from './signed-create.ts';
import { fiatCreateRow } from './fiat-create.ts';
import { BENCH_POOL_SIZE, CONNECTIONS, POSTGRES_POOL_SIZE, CREATE_SHAPE, CREATE_WARMUP, CREATES_PER_ROUND, READ_SHAPE, type Shape } from './run-settings.ts';

const POOL_SIZE = BENCH_POOL_SIZE;
/** ADDRESS_POOL_SIZE when it is not set. */
const DEFAULT_POOL_SIZE = 10_000;

function log(message: string): void {
  process.stdout.write(`${message}\n`);
}

async function measure(label: string, key: string, service: BenchProcess, reference: BenchProcess, spec: RowSpec, shape: Shape): Promise<Comparison> {
  await setReference(reference, key, spec);
  const started = performance.now();
  const result = await compare({ service, reference }, { service: spec.path, reference: `/r/${key}` }, spec, shape);
  log(
    `  ${label}: ${result.ours.toFixed(0)} req/s vs ${result.reference.toFixed(0)} (ratio ${result.ratio.toFixed(2)}), ` +
      `p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, CPU ${result.cpuMicros.toFixed(0)} vs ${result.referenceCpuMicros.toFixed(0)} µs/req [${((performance.now() - started) / 1000).toFixed(1)} s]`,
  );
  return result;
}

const BURST_SHAPE: Shape = { connections: 16, seconds: 0, amount: 2_500, rounds: 3, warmup: { connections: 16, seconds: 0, amount: 1_000 } };

async function oneNetworkBurst(reference: BenchProcess, nodeFlags: string[]): Promise<Row> {
  const port = await freePort();
  const { dataDir } = await prepareDataDir(port, 0);
  let service: BenchProcess | undefined;
  try {
    service = await startService(dataDir, port, undefined, nodeFlags);
    const waited = await waitForFullPool(dataDir, ['bitcoin'], DEFAULT_POOL_SIZE, 180_000);
    log(`bench: one-network burst: default pool (${DEFAULT_POOL_SIZE}) full after ${waited.toFixed(1)} s`);
    const keys = demoKeys(dataDir);
    const mixed = createRequests(keys, keys.shopUrl);
    // Every fifth request of the mixed generator is BTC; take those only.
    const bitcoinOnly = () => {
      for (;;) {
        const request = mixed();
        if (request.body.includes('"network":"bitcoin"')) return request;
      }
    };
    const sample = bitcoinOnly();
    const created = await fetch(`${service.url}/v2/payment`, { method: 'POST', headers: sample.headers, body: sample.body });
    const spec: RowSpec = { method: 'POST', path: '/v2/payment', perRequest: bitcoinOnly, expectStatus: 200, referenceStatus: 200, referenceBody: await created.json() };
    const label = `POST /v2/payment, BTC only, default pool, 16 connections`;
    const result = await measure(label, 'burst', service, reference, spec, BURST_SHAPE);
    return { label, result, target: 0.55 };
  } finally {
    await service?.stop().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR ? path.resolve(process.env.BENCH_CPU_PROFILE_DIR) : undefined;
  // One port for every start, so PUBLIC_URL (and the URLs stored with the demo merchant) stay the same origin.
  const port = await freePort();
  const nodeFlags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  log(`bench: ${os.cpus().length} cores, Node ${process.version}; address pool ${POOL_SIZE} per network`);
  const { dataDir, seeded } = await prepareDataDir(port);
  log(`bench: data in ${dataDir}; seeded ${seeded!.inserted} payments in ${seeded!.ms.toFixed(0)} ms`);
  const running: BenchProcess[] = [];
  try {
    const reference = await startReference(await freePort());
    running.push(reference);
    let service = await startService(dataDir, port, POOL_SIZE, nodeFlags);
    running.push(service);
    const waited = await waitForFullPool(dataDir, DERIVED_NETWORKS, POOL_SIZE, 180_000);
    log(`bench: address pool full after ${waited.toFixed(1)} s`);
    const { rows: specs, paymentId, listMatches } = await prepareRows(service, dataDir);

    const rows: Row[] = [];
    const row = async (label: string, key: keyof typeof specs, target: number, shape: Shape) => {
      const result = await measure(label, key, service, reference, specs[key], shape);
      rows.push({ label, result, target });
      return result;
    };
    // Targets: contract section 20.
    await row('GET /v2/payment/:id', 'payment', 0.8, READ_SHAPE);
    await row('GET /v2/checkout/:id (200)', 'checkout', 0.8, READ_SHAPE);
    await row('GET /v2/checkout/:id (304, If-None-Match)', 'checkout-304', 0.7, READ_SHAPE);
    const listSmall = await row(`GET /v2/payment, 2 filters, ${SMALL_TABLE.toLocaleString('en')} payments`, 'list', 0.7, READ_SHAPE);
    // Last on this database: every create adds a payment.
    await row('POST /v2/payment (signed, new body each)', 'create', 0.6, CREATE_SHAPE);
    const peakFirst = peakRss(service.pid);
    await running.pop()!.stop();

    // The same requests on PostgreSQL: a copy of this database, one instance, then three.
    rows.push(
      ...(await postgresRows({
        dataDir,
        poolSize: POSTGRES_POOL_SIZE,
        nodeFlags,
        reference,
        readShape: READ_SHAPE,
        createShape: CREATE_SHAPE,
        log,
        measure: (label, key, target, spec, shape) => measure(label, key, target, reference, spec, shape),
        setReference: (key, spec) => setReference(reference, key, spec),
      })),
    );

    // A burst of creates on one network, as a new user's first try: default settings (the default
    // address pool), 16 connections, far more creates than the pool holds.
    rows.push(await oneNetworkBurst(reference, nodeFlags));
    // Fiat prices cost a read of the rate book, never a call to a source.
    rows.push(await fiatCreateRow(nodeFlags, log));

    const large = await seedPayments(dataDir, LARGE_TABLE);
    log(`bench: seeded ${large.inserted} more payments (${large.totalPayments} in all) in ${large.ms.toFixed(0)} ms`);
    // No creates from here on, so no pool: the derivation worker never starts.
    service = await startService(dataDir, port, 0, nodeFlags);
    running.push(service);
    const list = await listRow(service, dataDir);
    if (list.matches !== listMatches) throw new Error(`the lookup matched ${listMatches} payments at ${SMALL_TABLE} but ${list.matches} at ${large.totalPayments}`);
    const listLarge = await measure('list, large table', 'list-large', service, reference, list.spec, READ_SHAPE);
    rows.push({ label: `GET /v2/payment, 2 filters, ${large.totalPayments.toLocaleString('en')} payments`, result: listLarge, target: 0.7 });

    const { widget, hosted } = await heaviestWeights(service.url, paymentId, LOCALES);
    const dashboard = await dashboardWeight(service.url);
    const peakSecond = peakRss(service.pid);
    await running.pop()!.stop();

    const report = formatResults({
      rows,
      scale: { small: listSmall, large: listLarge, matches: listMatches },
      peakRss: { bytes: Math.max(peakFirst, peakSecond), first: peakFirst, second: peakSecond },
      weights: { widget, hosted, budget: BUDGET_BYTES, dashboard, dashboardBudget: DASHBOARD_BUDGET_BYTES },
      settings: { connections: CONNECTIONS, rounds: READ_SHAPE.rounds, readSeconds: READ_SHAPE.seconds, readWarmupSeconds: READ_SHAPE.warmup.seconds, createsPerRound: CREATES_PER_ROUND, createWarmup: CREATE_WARMUP, poolSize: POOL_SIZE },
      elapsedSeconds: (performance.now() - started) / 1000,
    });
    log(`\n${report.table}`);
    // The contract's resource bounds (section 15), on a service of their own.
    const bounds = boundsTable(await measureBounds(log));
    log(`\n${bounds}`);
    // Following a real chain: one block's cost against 1,000 and 1,000,000 watched addresses.
    const blocks = await blockScanTable(log);
    const monero = await moneroScanTable(log);
    log(`\n${blocks}`);
    // Every list filter at 1,000 and at 1,000,000 payments (contract section 15: at most 1.5×).
    const scale = await measureListScale(1_000_000, log);
    const lists = listScaleTable(scale.rows);
    log(`\n${lists}`);
    fs.writeFileSync(
      path.join(import.meta.dirname, 'results.md'),
      `${report.markdown}\n## Resource bounds (bench/bounds.ts)\n\n${bounds}\n\n## Following a block (bench/block-scan.ts)\n\n${blocks}\n\n## Following a Monero block (bench/monero-scan.ts)\n\n${monero}\n\n## Lists at a million payments (bench/list-scale.ts)\n\n${lists}\n`,
    );
    log(`\nbench: wrote bench/results.md; ${((performance.now() - started) / 1000).toFixed(0)} s in all`);
    if (profileDir) log(`bench: CPU profiles of the service in ${profileDir}`);
  } finally {
    for (const child of running.reverse()) await child.stop().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
