/**
 * The two processes a benchmark loads: the real service (`dist/server/api/main.js`, started as
 * `npm run serve` would, with the e2e helper's quiet settings) and the bare Express reference
 * (`dist/server/bench/reference-server.js`). Both are compiled by `npm run build` and run by plain
 * `node` with the same flags, no TypeScript loader; the bench launches them itself so it can add V8
 * flags (--cpu-prof cannot go through NODE_OPTIONS) and read their memory.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { assertServerBuildIsCurrent, ROOT, SERVER_BUILD_DIR, SERVER_ENTRY } from '../scripts/compiled-server.ts';

const REFERENCE_ENTRY = path.join(SERVER_BUILD_DIR, 'bench', 'reference-server.js');

// Checked at the first start only: a source edited during a long run must not abort it.
let buildChecked = false;

/** A running child that answers HTTP. */
export interface BenchProcess {
  url: string;
  pid: number;
  /** Everything it wrote to stdout and stderr. */
  output(): string;
  /** Stops it with SIGTERM; throws if it did not exit cleanly. */
  stop(): Promise<void>;
}

/** Extra V8 flags for the service, e.g. ['--cpu-prof', '--cpu-prof-dir=/tmp/p']. */
export type NodeFlags = string[];

async function startNode(script: string, port: number, env: Record<string, string>, nodeFlags: NodeFlags): Promise<BenchProcess> {
  if (!buildChecked) assertServerBuildIsCurrent();
  buildChecked = true;
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...nodeFlags, script], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode} before it was ready:\n${output}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${script} did not answer /health within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    pid: child.pid!,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const code = await exited;
      if (code !== 0) throw new Error(`${script} exited with ${code}:\n${output}`);
    },
  };
}

/**
 * Starts the real service on a data directory; `poolSize` is ADDRESS_POOL_SIZE (undefined: the
 * default); `env` adds variables (DATABASE_URL and SERVER_KEY for PostgreSQL, PUBLIC_URL).
 */
export function startService(dataDir: string, port: number, poolSize: number | undefined, nodeFlags: NodeFlags = [], env: Record<string, string> = {}): Promise<BenchProcess> {
  return startNode(
    SERVER_ENTRY,
    port,
    {
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      SIMULATOR: 'on',
      SIMULATOR_BLOCK_SECONDS: '0',
      // The load generator is one client: limits this high are never reached, but every request
      // still pays for being counted, so the rows include the limiter's cost.
      RATE_LIMIT_MERCHANT: '10000000',
      RATE_LIMIT_PUBLIC: '10000000',
      SSE_MAX_STREAMS_PER_CLIENT: '1000000',
      ...(poolSize === undefined ? {} : { ADDRESS_POOL_SIZE: String(poolSize) }),
      ...env,
    },
    nodeFlags,
  );
}

/** Starts the reference app with the same Node flags as the service. */
export function startReference(port: number, nodeFlags: NodeFlags = []): Promise<BenchProcess> {
  return startNode(REFERENCE_ENTRY, port, { LOG_LEVEL: 'warn' }, nodeFlags);
}

/** The process's peak resident set so far (VmHWM), in bytes. */
export function peakRss(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  if (!match) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds (user + system, all threads) the process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name; utime and stime are the 14th and 15th overall.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}
