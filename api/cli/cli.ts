/**
 * Operator commands: `npm run cli -- merchant create --name NAME [--email E] [--site-url U]
 * [--logo-url U] [--json]`. With --json, stdout carries exactly one JSON document.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { openDatabase } from '../db/open-database.ts';
import { ApiError } from '../http/api-error.ts';
import { createMerchantService } from '../merchants/merchant.service.ts';
import { createMerchantStore } from '../merchants/merchant.store.ts';
import { loadServerKey } from '../merchants/server-key.ts';
import { systemClock } from '../shared/clock.ts';

const USAGE = `Usage:
  npm run cli -- merchant create --name NAME [--email EMAIL] [--site-url URL] [--logo-url URL] [--json]

Creates a merchant in DATA_DIR (default ./data) and prints its API key and secret key, once.`;

/** Runs a command line; returns the process exit code. */
export function runCli(argv: string[], out: (text: string) => void, err: (text: string) => void): number {
  const [resource, action, ...rest] = argv;
  if (resource === undefined) {
    err(USAGE + '\n');
    return 2;
  }
  if (resource === 'help' || resource === '--help' || resource === '-h') {
    out(USAGE + '\n');
    return 0;
  }
  if (resource !== 'merchant' || action !== 'create') {
    err(`Unknown command "${[resource, action].filter(Boolean).join(' ')}".\n${USAGE}\n`);
    return 2;
  }
  let values: { name?: string; email?: string; 'site-url'?: string; 'logo-url'?: string; json?: boolean };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { name: { type: 'string' }, email: { type: 'string' }, 'site-url': { type: 'string' }, 'logo-url': { type: 'string' }, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    err(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.name === undefined) {
    err(`--name is required.\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfig();
  const db = openDatabase(path.join(config.dataDir, 'checkout.db'));
  try {
    const merchants = createMerchantService({ store: createMerchantStore(db), serverKey: loadServerKey(config), clock: systemClock });
    merchants.checkServerKey();
    const created = merchants.create({
      name: values.name,
      ...(values.email !== undefined ? { email: values.email } : {}),
      ...(values['site-url'] !== undefined ? { siteUrl: values['site-url'] } : {}),
      ...(values['logo-url'] !== undefined ? { logoUrl: values['logo-url'] } : {}),
    });
    if (values.json) {
      out(JSON.stringify(created) + '\n');
    } else {
      out(
        `Merchant "${created.merchant.name}" created (id ${created.merchant.id}).\n` +
          `  API key:    ${created.apiKey}\n  Secret key: ${created.secretKey}\n` +
          'Store both now: the service keeps only a hash of the API key and an encrypted secret key.\n',
      );
    }
    return 0;
  } catch (e) {
    if (e instanceof ApiError && e.details) {
      const flag = (p: string) => `--${p.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
      err(e.details.map((d) => `${flag(d.path)} ${d.message}`).join('\n') + '\n');
      return 2;
    }
    throw e;
  } finally {
    db.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.exitCode = runCli(process.argv.slice(2), (t) => process.stdout.write(t), (t) => process.stderr.write(t));
  } catch (e) {
    process.stderr.write(`crypto-checkout: ${e instanceof ConfigError || e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  }
}
