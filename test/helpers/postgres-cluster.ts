/**
 * A throw-away PostgreSQL cluster for tests: `initdb` in a temporary directory, started on a free
 * loopback port, stopped (and deleted) by `stop()`. PostgreSQL refuses to run as root, so as root
 * the cluster belongs to the unprivileged `postgres` user that Debian's package creates.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './server-process.ts';

/** A running cluster. */
export interface PostgresCluster {
  /** Superuser URL of the `postgres` database. */
  url: string;
  port: number;
  /** Stops the server (immediate shutdown, as a crash would); `start()` brings it back on the same port. */
  stop(): void;
  start(): void;
  /** Stops the server and deletes its files. */
  destroy(): void;
}

/** The directory of PostgreSQL's server programs, or undefined when none is installed. */
export function findPostgresBin(): string | undefined {
  if (process.env.PG_BIN && fs.existsSync(path.join(process.env.PG_BIN, 'initdb'))) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(root, versions[0]!, 'bin') : undefined;
}

const asRoot = process.getuid?.() === 0;

function run(bin: string, program: string, args: string[]): void {
  const command = path.join(bin, program);
  const result = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8' }) : spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${program} failed (${result.status}): ${result.stderr || result.stdout || result.error?.message}`);
}

/**
 * Starts a new cluster; throws when PostgreSQL is not installed or does not start. It trades
 * durability for speed (no fsync, asynchronous commit), so a `stop()` loses the last commits the
 * way a power cut would; `durable: true` keeps every acknowledged commit across `stop()` (the
 * operating system stays up, so fsync is still not needed). `production: true` runs it as an operator
 * would (fsync, synchronous commit and full page writes on), for benchmarks.
 */
export async function startPostgresCluster(options: { durable?: boolean; production?: boolean } = {}): Promise<PostgresCluster> {
  const bin = findPostgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; Debian: apt-get install postgresql)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-pg-'));
  const dataDir = path.join(dir, 'data');
  const socketDir = path.join(dir, 'socket');
  fs.mkdirSync(socketDir);
  if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  const port = await freePort();
  run(bin, 'initdb', ['-D', dataDir, '-U', 'checkout', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const durability = options.production ? '' : `-c fsync=off ${options.durable ? '' : '-c synchronous_commit=off '}-c full_page_writes=off `;
  const serverOptions = `-p ${port} -k ${socketDir} -c listen_addresses=127.0.0.1 ${durability}-c max_connections=400`;
  const start = () => run(bin, 'pg_ctl', ['-D', dataDir, '-o', serverOptions, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  const stop = () => {
    try {
      run(bin, 'pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // already stopped
    }
  };
  start();
  return {
    url: `postgres://checkout@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    destroy() {
      stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
