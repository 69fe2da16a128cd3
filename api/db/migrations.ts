/** The migration files of each dialect, in the order they apply. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** One migration: its version (the file name without `.sql`) and its SQL. */
export interface Migration {
  version: string;
  sql: string;
}

/** Every migration of a dialect, sorted by file name. */
export function migrationFiles(dialect: 'sqlite' | 'postgres'): Migration[] {
  const dir = path.join(MIGRATIONS_DIR, dialect);
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((name) => ({ version: name.replace(/\.sql$/, ''), sql: fs.readFileSync(path.join(dir, name), 'utf8') }));
}
