/**
 * @module Where `npm run build` puts the compiled server (dist/server, the source tree's layout
 * kept) and a check that it is not older than the files it is built from, for the tests and the
 * bench, which run it as `npm start` does.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The repository root. */
export const ROOT = path.resolve(import.meta.dirname, '..');

/** The compiled server's folder. */
export const SERVER_BUILD_DIR = path.join(ROOT, 'dist', 'server');

/** The compiled entry point: `node dist/server/api/main.js` is what `npm start` runs. */
export const SERVER_ENTRY = path.join(SERVER_BUILD_DIR, 'api', 'main.js');

/** Folders the modules read files from beside themselves at run time; the build copies them. */
export const RUNTIME_FILE_DIRS = ['api/db/migrations', 'api/networks/logos', 'demo/public'];

// Everything the build compiles (api/ and demo/ and what they import) or copies.
const SOURCE_DIRS = ['api', 'demo', 'client', 'widget'];

function newestFile(dir: string): { file: string; mtimeMs: number } | undefined {
  let newest: { file: string; mtimeMs: number } | undefined;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const { mtimeMs } = fs.statSync(file);
    if (!newest || mtimeMs > newest.mtimeMs) newest = { file, mtimeMs };
  }
  return newest;
}

/** Throws, naming the fix, when dist/server is missing or older than one of its sources. */
export function assertServerBuildIsCurrent(): void {
  if (!fs.existsSync(SERVER_ENTRY)) {
    throw new Error(`${path.relative(ROOT, SERVER_ENTRY)} is missing: run \`npm run build\` first`);
  }
  const built = fs.statSync(SERVER_ENTRY).mtimeMs;
  for (const dir of SOURCE_DIRS) {
    const newest = newestFile(path.join(ROOT, dir));
    if (newest && newest.mtimeMs > built) {
      throw new Error(
        `${path.relative(ROOT, SERVER_ENTRY)} is older than ${path.relative(ROOT, newest.file)}: run \`npm run build\` first`,
      );
    }
  }
}
