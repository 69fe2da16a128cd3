/**
 * Profiles the service under one bench row: starts it with `--cpu-prof` on the bench's data, loads
 * only that row (no reference), stops it and prints the profile's summary.
 *
 *   node --import tsx bench/profile.ts <create|payment|checkout|checkout-304|list|list-large> [seconds] [profile dir]
 *
 * With BENCH_PROFILE_REFERENCE=1 it also profiles the bare Express reference under the same load
 * (answering the same bytes) and prints the two side by side, self µs per request.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { freePort } from '../test/helpers/server-process.ts';
import { loadOnce } from './load.ts';
import { waitForFullPool } from './pool-fill.ts';
import { startReference, startService } from './processes.ts';
import { LARGE_TABLE, listRow, prepareDataDir, prepareRows, type RowKey } from './scenario.ts';
import { seedPayments } from './seed.ts';
import { DERIVED_NETWORKS } from './signed-create.ts';

const ROWS = ['create', 'payment', 'checkout', 'checkout-304', 'list', 'list-large'] as const;
const [rowArg, secondsArg, dirArg] = process.argv.slice(2);
const row = ROWS.find((r) => r === rowArg);
if (!row) {
  process.stderr.write(`usage: profile.ts <${ROWS.join('|')}> [seconds] [profile dir]\n`);
  process.exit(2);
}
const seconds = Number(secondsArg ?? 8);
const profileDir = path.resolve(dirArg ?? fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-profile-')));
const CREATES = Number(process.env.BENCH_PROFILE_CREATES ?? 2000);
// Above three quarters (the refill mark) for the whole row, as in run.ts: no derivation during it.
const poolSize = row === 'create' ? 4 * Math.ceil(CREATES / 5) + 100 : 0;

let serviceRequests = 0;
let referenceRequests = 0;
let referenceProfile: string | undefined;
const port = await freePort();
const { dataDir } = await prepareDataDir(port);
try {
  if (row === 'list-large') await seedPayments(dataDir, LARGE_TABLE);
  const service = await startService(dataDir, port, poolSize, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]);
  try {
    if (poolSize > 0) await waitForFullPool(dataDir, DERIVED_NETWORKS, poolSize, 180_000);
    const spec = row === 'list-large' ? (await listRow(service, dataDir)).spec : (await prepareRows(service, dataDir)).rows[row as RowKey];
    const shape = row === 'create' ? { connections: 10, seconds: 0, amount: CREATES } : { connections: 10, seconds };
    const result = await loadOnce(service, spec.path, spec, shape);
    serviceRequests = result.requests;
    process.stdout.write(`${row}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, ${result.cpuMicros.toFixed(0)} µs CPU per request\n`);
    if (process.env.BENCH_PROFILE_REFERENCE) {
      const referenceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-profile-reference-'));
      const reference = await startReference(await freePort(), ['--cpu-prof', `--cpu-prof-dir=${referenceDir}`]);
      try {
        const set = await fetch(`${reference.url}/__doc/${row}`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ status: spec.expectStatus, body: row === 'checkout-304' ? null : await (await fetch(`${service.url}${spec.path}`, { headers: spec.headers })).json() }),
        });
        if (set.status !== 204) throw new Error(`could not set the reference document: ${set.status}`);
        const referenceResult = await loadOnce(reference, `/r/${row}`, spec, shape);
        process.stdout.write(`reference: ${referenceResult.requestsPerSecond.toFixed(0)} req/s, ${referenceResult.cpuMicros.toFixed(0)} µs CPU per request\n`);
        referenceRequests = referenceResult.requests;
      } finally {
        await reference.stop();
      }
      referenceProfile = path.join(referenceDir, fs.readdirSync(referenceDir).find((f) => f.endsWith('.cpuprofile'))!);
    }
  } finally {
    await service.stop();
  }
  const profile = fs
    .readdirSync(profileDir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(profileDir, f))
    .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
  if (!profile) throw new Error(`no profile in ${profileDir}`);
  process.stdout.write(`profile: ${profile}\n`);
  const summary = path.join(import.meta.dirname, 'profile-summary.ts');
  process.stdout.write(execFileSync(process.execPath, ['--import', 'tsx', summary, profile, '--top', '30'], { encoding: 'utf8' }));
  if (referenceProfile) {
    process.stdout.write(`\nreference profile: ${referenceProfile}\n`);
    process.stdout.write(
      execFileSync(process.execPath, ['--import', 'tsx', summary, profile, '--vs', referenceProfile, '--requests', `${serviceRequests},${referenceRequests}`, '--top', '40'], { encoding: 'utf8' }),
    );
  }
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
