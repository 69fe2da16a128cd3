/**
 * Runs a node:test suite twice: on SQLite, then on PostgreSQL (a throw-away cluster on a free
 * loopback port, stopped however the run ends). Without PostgreSQL installed the second half is
 * skipped, and says so; under CI (CI=true) that is a failure, because CI must run both.
 *
 *   node --import tsx scripts/test-both-stores.ts [node --test arguments...]
 */
import { spawnSync } from 'node:child_process';
import { findPostgresBin, startPostgresCluster } from '../test/helpers/postgres-cluster.ts';

const args = process.argv.slice(2);
const runSuite = (label: string, env: NodeJS.ProcessEnv): number => {
  process.stdout.write(`\n=== ${label} ===\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...args], { stdio: 'inherit', env });
  return result.status ?? 1;
};

const only = process.env.TEST_STORE; // 'sqlite' or 'postgres' to run one half
let failed = false;
if (only !== 'postgres') failed = runSuite('SQLite', { ...process.env, TEST_DATABASE_URL: '' }) !== 0;

if (only !== 'sqlite') {
  if (!findPostgresBin()) {
    const message = 'PostgreSQL is not installed: the PostgreSQL half of the suite was SKIPPED (Debian: apt-get install postgresql).';
    process.stdout.write(`\n!!! ${message}\n`);
    if (process.env.CI) {
      process.stderr.write('CI must run both halves.\n');
      failed = true;
    }
  } else {
    const cluster = await startPostgresCluster();
    const stop = () => cluster.destroy();
    process.on('SIGINT', () => {
      stop();
      process.exit(130);
    });
    try {
      if (runSuite(`PostgreSQL (throw-away cluster on 127.0.0.1:${cluster.port})`, { ...process.env, TEST_DATABASE_URL: cluster.url }) !== 0) failed = true;
    } finally {
      stop();
    }
  }
}
process.exitCode = failed ? 1 : 0;
