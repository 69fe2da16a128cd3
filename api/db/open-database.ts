/** Opens the configured database: PostgreSQL when DATABASE_URL is set, else SQLite in DATA_DIR. */
import path from 'node:path';
import type { Logger } from '../shared/logger.ts';
import type { Database } from './database.ts';
import { openPostgresDatabase } from './postgres-database.ts';
import { openSqliteDatabase } from './sqlite-database.ts';

/** Where the data lives. */
export interface StorageConfig {
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
}

/** The SQLite file of an installation without DATABASE_URL. */
export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'checkout.db');
}

/** Opens the database and brings its schema up to date. */
export async function openDatabase(config: StorageConfig, logger: Logger): Promise<Database> {
  if (config.databaseUrl) return openPostgresDatabase(config.databaseUrl, logger);
  return openSqliteDatabase(sqliteFile(config.dataDir));
}
