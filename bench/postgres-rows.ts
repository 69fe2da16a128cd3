/**
 * The bench's PostgreSQL rows: the same requests against the service on PostgreSQL, one instance and
 * three behind the load generator, on a throw-away cluster (the test suite's) holding a copy of the
 * SQLite rows measured before (imported with the `db import-sqlite` code). Skipped, and said so,
 * when PostgreSQL is not installed.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { importSqlite, openSqliteSource } from '../api/db/import-sqlite.ts';
import { openPostgresDatabase } from '../api/db/postgres-database.ts';
import { silentLogger } from '../api/shared/logger.ts';
import { findPostgresBin, startPostgresCluster } from '../test/helpers/postgres-cluster.ts';
import { freePort } from '../test/helpers/server-process.ts';
import { socketUrlOf } from '../test/helpers/test-database.ts';
import { compareSpread, type Comparison, loadOnce, type LoadShape } from './load.ts';
import { waitForFullPool } from './pool-fill.ts';
import { type BenchProcess, type NodeFlags, startService } from './processes.ts';
import type { Row } from './report.ts';
import { ADDED_INSTANCES } from './run-settings.ts';
import { prepareRows, type RowKey, type RowSpec } from './scenario.ts';
import { DERIVED_NETWORKS } from './signed-create.ts';

type Shape = LoadShape & { rounds: number; warmup: LoadShape };

// Contract section 20, PostgreSQL with durable settings: reads at least 0.6 of the reference, signed creates 0.4.
const READ_TARGET = 0.6;
const CREATE_TARGET = 0.4;

/** What the PostgreSQL rows need from the run. */
export interface PostgresRowsOptions {
  dataDir: string;
  /** ADDRESS_POOL_SIZE of every instance (run-settings.ts: POSTGRES_POOL_SIZE). */
  poolSize: number;
  nodeFlags: NodeFlags;
  reference: BenchProcess;
  readShape: Shape;
  createShape: Shape;
  log(message: string): void;
  /** Measures one row against the reference (the run's own `measure`). */
  measure(label: string, key: string, service: BenchProcess, spec: RowSpec, shape: Shape): Promise<Comparison>;
  /** Registers the reference's answer for a row key, as `measure` does. */
  setReference(key: string, spec: RowSpec): Promise<void>;
}

/** Runs the PostgreSQL rows; returns them (none when PostgreSQL is not installed). */
export async function postgresRows(options: PostgresRowsOptions): Promise<Row[]> {
  const { dataDir, log } = options;
  if (!findPostgresBin()) {
    log('bench: PostgreSQL is not installed (Debian: apt-get install postgresql); its rows are SKIPPED');
    return [];
  }
  // As an operator runs it: every commit flushed to disk before it is acknowledged.
  const cluster = await startPostgresCluster({ production: true });
  const running: BenchProcess[] = [];
  try {
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query('CREATE DATABASE bench');
    await admin.end();
    const databaseUrl = cluster.url.replace(/\/postgres$/, '/bench');
    const serverKey = fs.readFileSync(path.join(dataDir, 'server.key'), 'utf8').trim();
    const started = performance.now();
    const source = openSqliteSource(path.join(dataDir, 'checkout.db'));
    const target = await openPostgresDatabase(databaseUrl, silentLogger());
    const counts = await importSqlite(source, target).finally(async () => {
      source.close();
      await target.close();
    });
    log(`bench: PostgreSQL ${cluster.url.replace(/^.*@/, '')}: imported ${JSON.stringify(counts)} in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // The instances run on the database's machine, so they connect as an operator there would:
    // through its Unix socket, which saves each round trip the TCP loopback's work.
    const env = { DATABASE_URL: (await socketUrlOf(databaseUrl)) ?? databaseUrl, SERVER_KEY: serverKey };
    const port = await freePort();
    // The imported pool is what the SQLite creates left; the first instance tops it up to
    // `poolSize` before the rows start, which leaves it above the refill mark through both create rows.
    const poolSize = options.poolSize;
    const first = await startService(dataDir, port, poolSize, options.nodeFlags, env);
    running.push(first);
    const waited = await waitForFullPool(dataDir, DERIVED_NETWORKS, poolSize, 300_000, databaseUrl);
    log(`bench: PostgreSQL address pool full after ${waited.toFixed(1)} s`);
    const { rows: specs } = await prepareRows(first, dataDir);

    const rows: Row[] = [];
    const one = async (label: string, key: RowKey, target: number, shape: Shape) => {
      const result = await options.measure(`PostgreSQL, 1 instance: ${label}`, key, first, specs[key], shape);
      rows.push({ label: `PostgreSQL, 1 instance: ${label}`, result, target });
    };
    await one('GET /v2/payment/:id', 'payment', READ_TARGET, options.readShape);
    await one('GET /v2/checkout/:id (200)', 'checkout', READ_TARGET, options.readShape);
    await one('GET /v2/payment, 2 filters', 'list', READ_TARGET, options.readShape);
    await one('POST /v2/payment (signed)', 'create', CREATE_TARGET, options.createShape);

    // Two more instances on the same database, behind the same public address. Each is warmed up
    // alone as the first was before its rows (every read row's warm-up, then the create row's),
    // so the rounds compare code V8 has finished optimising in all three: with only their share of
    // the spread's warm-up (450 creates each), the two new instances spent about twice the first's
    // CPU a create in the rounds (1,389 to 1,500 µs against 708, measured beside the bench).
    for (let i = 0; i < ADDED_INSTANCES; i++) {
      const added = await startService(dataDir, await freePort(), poolSize, options.nodeFlags, { ...env, PUBLIC_URL: first.url });
      running.push(added);
      for (const key of ['payment', 'checkout', 'list'] as const) await loadOnce(added, specs[key].path, specs[key], options.readShape.warmup);
      await loadOnce(added, specs.create.path, specs.create, options.createShape.warmup);
    }
    const three = async (label: string, key: RowKey, target: number, shape: Shape) => {
      await options.setReference(key, specs[key]);
      const { reference: result, alone } = await compareSpread({ services: running, reference: options.reference }, { service: specs[key].path, reference: `/r/${key}` }, specs[key], shape);
      log(`  PostgreSQL, 3 instances: ${label}: ${result.ours.toFixed(0)} req/s vs ${result.reference.toFixed(0)} (ratio ${result.ratio.toFixed(2)}), p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms`);
      log(`  PostgreSQL, 3 instances ÷ 1 instance: ${label}: ${alone.ours.toFixed(0)} vs ${alone.reference.toFixed(0)} req/s (ratio ${alone.ratio.toFixed(2)})`);
      rows.push({ label: `PostgreSQL, 3 instances: ${label}`, result, target });
      // Three instances on the same two cores must serve no less than one: against the first
      // instance alone, loaded in the same rounds.
      rows.push({ label: `PostgreSQL, 3 instances ÷ 1 instance: ${label}`, result: alone, target: 1 });
    };
    await three('GET /v2/payment/:id', 'payment', READ_TARGET, options.readShape);
    await three('POST /v2/payment (signed)', 'create', CREATE_TARGET, options.createShape);
    return rows;
  } finally {
    for (const child of running.reverse()) await child.stop().catch(() => undefined);
    cluster.destroy();
  }
}
