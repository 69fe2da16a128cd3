/**
 * @module The service's pieces for one CLI command: built by the same `createServices` as the
 * server, over the store the configuration names, and closed afterwards. No background loop runs
 * here (those start with the server's `startJobs`): what a command changes reaches the running
 * service through the store (the webhook outbox, key-change notices).
 */
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/open-database.ts';
import { loadServerKey } from '../merchants/server-key.ts';
import { createServices, type Services } from '../services.ts';
import { systemClock } from '../shared/clock.ts';
import { createLogger } from '../shared/logger.ts';

/** Runs `work` with the services, then closes them and the database. Warnings go to stderr: stdout is the command's answer. */
export async function withServices<T>(work: (services: Services) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = createLogger('warn', 2);
  const db = await openDatabase(config, logger);
  try {
    const services = await createServices({ db, config, clock: systemClock, logger, serverKey: loadServerKey(config) });
    try {
      return await work(services);
    } finally {
      await services.close();
    }
  } finally {
    await db.close();
  }
}
