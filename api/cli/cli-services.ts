/**
 * @module The service's pieces for one CLI command: built by the same `createServices` as the
 * server, over the store the configuration names, and closed afterwards. No background loop runs
 * here (those start with the server's `startJobs`): what a command changes reaches the running
 * service through the store (the webhook outbox, key-change notices).
 */
import fs from 'node:fs';
import { loadConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { openDatabase, type StorageConfig, sqliteFile } from '../db/open-database.ts';
import { loadServerKey } from '../merchants/server-key.ts';
import { createMerchantServices, createServices, type MerchantServices, type ServiceOptions, type Services } from '../services.ts';
import { systemClock } from '../shared/clock.ts';
import { createLogger, type Logger } from '../shared/logger.ts';

/** Runs `work` with every service, then closes them and the database. Warnings go to stderr: stdout is the command's answer. */
export function withServices<T>(work: (services: Services) => Promise<T>): Promise<T> {
  return onStore(async (options) => {
    const services = await createServices(options);
    try {
      return await work(services);
    } finally {
      await services.close();
    }
  });
}

/** Runs `work` with the merchant services only (merchants, webhooks): no node is reached, no wallet brought up. */
export function withMerchantServices<T>(work: (services: MerchantServices) => Promise<T>): Promise<T> {
  return onStore(async (options) => work(await createMerchantServices(options)));
}

/**
 * Opens the store a command works on, as the service does. Without DATABASE_URL a command run where
 * no database is yet (another directory than the service's, DATABASE_URL forgotten) would work on a
 * new, empty one without a word: it says so on stderr (stdout is the command's answer).
 */
export async function openCliDatabase(config: StorageConfig, logger: Logger): Promise<Database> {
  const file = config.databaseUrl ? undefined : sqliteFile(config.dataDir);
  const fresh = file !== undefined && !fs.existsSync(file);
  const db = await openDatabase(config, logger);
  if (fresh) {
    process.stderr.write(
      `Note: there was no database at ${file}, so this command made a new, empty one. The service's data is where its DATABASE_URL (PostgreSQL) or DATA_DIR points: run the command with the same settings.\n`,
    );
  }
  return db;
}

// Opens the configured store for `work` and closes it afterwards.
async function onStore<T>(work: (options: ServiceOptions) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = createLogger('warn', 2);
  const db = await openCliDatabase(config, logger);
  try {
    return await work({ db, config, clock: systemClock, logger, serverKey: loadServerKey(config) });
  } finally {
    await db.close();
  }
}
