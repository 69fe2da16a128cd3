/**
 * Runs the real service as a child process, compiled (`node dist/server/api/main.js`) as `npm start`
 * runs it, for end-to-end tests. The build must be current: `npm test` builds first.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { assertServerBuildIsCurrent, ROOT, SERVER_ENTRY } from '../../scripts/compiled-server.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

// Processes started on one DATA_DIR share one store: on PostgreSQL runs, one database (and one
// SERVER_KEY) per DATA_DIR, made on first use.
const sharedStores = new Map<string, Promise<{ database: TestDatabase; serverKey: string } | undefined>>();
function storeFor(dataDir: string) {
  let store = sharedStores.get(dataDir);
  if (!store) {
    store = createTestDatabase().then((database) => database && { database, serverKey: randomBytes(32).toString('hex') });
    sharedStores.set(dataDir, store);
  }
  return store;
}

/** The environment that points a process started on `dataDir` at the suite's store (nothing on SQLite runs). */
export async function storeEnv(dataDir: string): Promise<Record<string, string>> {
  const store = await storeFor(dataDir);
  return store ? { DATABASE_URL: store.database.url, SERVER_KEY: store.serverKey } : {};
}

/** A running service process. */
export interface ServerProcess {
  url: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Stops it with SIGTERM (or another signal) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts `node dist/server/api/main.js` with test-friendly defaults (quiet logs, no block timer)
 * and waits until /health answers. `env` overrides; pass DATA_DIR to share a directory. Throws if
 * the build is missing or older than its sources, so a stale build is never tested.
 */
export async function startServerProcess(env: Record<string, string> = {}): Promise<ServerProcess> {
  assertServerBuildIsCurrent();
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const dataDir = env.DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-e2e-'));
  const url = `http://127.0.0.1:${port}`;
  const store = env.DATABASE_URL === undefined ? await storeEnv(dataDir) : {};
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      PUBLIC_URL: url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      SIMULATOR: 'on',
      SIMULATOR_BLOCK_SECONDS: '0',
      ADDRESS_POOL_SIZE: '20',
      ...store,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before it was ready:\n${output}`);
    try {
      const response = await fetch(`${url}/health`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not answer /health within 30 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    url,
    port,
    dataDir,
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
