/**
 * `npm run build:server`: compiles the server (tsconfig.server.json) and copies the files its
 * modules read beside themselves at run time, so `node dist/server/api/main.js` needs no
 * TypeScript loader.
 *
 * The build is made in a fresh folder and then swapped in, so nothing deleted from the sources
 * (a module, a migration) lingers and a server never starts from a half-written folder. The swap
 * is two renames, not one atomic step: a server already running that loads a file later (the
 * derivation worker) can miss it for that moment; its address pool then retries on the next refill.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, RUNTIME_FILE_DIRS, SERVER_BUILD_DIR } from './compiled-server.ts';

const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const next = `${SERVER_BUILD_DIR}.next-${process.pid}`;
const previous = `${SERVER_BUILD_DIR}.previous-${process.pid}`;

try {
  execFileSync(process.execPath, [TSC, '-p', 'tsconfig.server.json', '--outDir', next], { cwd: ROOT, stdio: 'inherit' });
  for (const dir of RUNTIME_FILE_DIRS) fs.cpSync(path.join(ROOT, dir), path.join(next, dir), { recursive: true });
  if (fs.existsSync(SERVER_BUILD_DIR)) fs.renameSync(SERVER_BUILD_DIR, previous);
  fs.renameSync(next, SERVER_BUILD_DIR);
} catch (err) {
  process.stderr.write(`build-server: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
} finally {
  fs.rmSync(next, { recursive: true, force: true });
  fs.rmSync(previous, { recursive: true, force: true });
}
