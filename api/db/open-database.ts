import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The SQLite connection type used throughout the service. */
export type Db = Database.Database;

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Opens (creating if needed) the database file, switches it to WAL and runs pending migrations.
 * Safe to call from two processes at once: migrations run under an immediate write lock.
 */
export function openDatabase(file: string): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file, { timeout: 10_000 });
  db.pragma('journal_mode = WAL');
  // NORMAL in WAL mode survives a process crash (kill -9); only a power loss can lose the last commits.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

/** Applies every migration file not yet recorded, in file-name order, each in one transaction. */
export function migrate(db: Db): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const files = fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((name) => name.endsWith('.sql'))
    .sort();
  const applied = db.prepare<[string], { version: string }>('SELECT version FROM schema_migrations WHERE version = ?');
  const record = db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)');
  const applyPending = db.transaction(() => {
    for (const file of files) {
      const version = file.replace(/\.sql$/, '');
      if (applied.get(version)) continue;
      db.exec(fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8'));
      record.run(version, Date.now());
    }
  });
  applyPending.immediate();
}
