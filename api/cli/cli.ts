/**
 * Operator commands: merchants (create, rotate-keys, list), webhooks (add, list, delete), dashboard
 * users (create, list, reset-password, delete), the
 * payout wallet, token contracts, sweeps, cancelling a stuck withdrawal, and the SQLite-to-PostgreSQL
 * import.
 * With --json, stdout carries exactly one JSON document.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { ImportRefused, importSqlite, openSqliteSource, sampleSealedSecret } from '../db/import-sqlite.ts';
import { decryptSecretKey } from '../merchants/merchant-keys.ts';
import { printFieldErrors } from './flags.ts';
import { logoProblem, readNewMerchant, type MerchantService } from '../merchants/merchant.service.ts';
import { openCliDatabase, withMerchantServices } from './cli-services.ts';
import { InvalidInput } from '../shared/errors.ts';
import { loadServerKey } from '../merchants/server-key.ts';
import { createLogger } from '../shared/logger.ts';
import { isoTime } from '../shared/clock.ts';
import { ASSET_USAGE, assetCommand } from './asset-command.ts';
import { SWEEP_USAGE, sweepCommand } from './sweep-command.ts';
import { WALLET_USAGE, walletCommand } from './wallet-command.ts';
import { USER_USAGE, userCommand } from './user-commands.ts';
import { WEBHOOK_USAGE, webhookCommand } from './webhook-commands.ts';
import { WITHDRAWAL_USAGE, withdrawalCommand } from './withdrawal-command.ts';

const USAGE = `Usage:
  npm run cli -- merchant create --name NAME [--email EMAIL] [--site-url URL] [--logo-url URL] [--json]
  npm run cli -- merchant rotate-keys --id MERCHANT_ID [--grace-seconds N] [--json]
  npm run cli -- merchant list [--json]
  npm run cli -- db import-sqlite --file PATH/TO/checkout.db [--json]
${WEBHOOK_USAGE}
${USER_USAGE}
${WALLET_USAGE}
${ASSET_USAGE}
${SWEEP_USAGE}
${WITHDRAWAL_USAGE}

merchant create: creates a merchant in the configured store (DATABASE_URL, else DATA_DIR, default
./data) and prints its API key and secret key, once.
merchant rotate-keys: gives the merchant a new API key and secret key, printed once; the old pair
keeps working for --grace-seconds (default 86400, one day; 0 ends it now), then stops on every
instance within a second.
merchant list: every merchant (id, name, e-mail, site, when its previous keys stop working); no keys.
db import-sqlite: copies an existing SQLite installation into the empty PostgreSQL database named by
DATABASE_URL; run it with the SERVER_KEY that sealed that installation's keys (its DATA_DIR/server.key).
wallet: the payout wallet of a network on a node (BITCOIN_/LITECOIN_/ETHEREUM_RPC_URL): the address
payouts are sent from (on bitcoin and litecoin change returns there too), and what it can send now.
wallet create-mnemonic: writes a new wallet mnemonic file (default WALLET_MNEMONIC_FILE), mode 0600,
never over an existing one; production never generates one by itself.
asset set-contract: the contract address of an ethereum token (USDT, USDC) on the chain the node is
on (mainnet contracts are the default); restart the service to watch it.
sweep: moves every ethereum payment address's ETH and tokens to the payout address now (tokens
need their gas sent first: run it again once that is mined); the service also sweeps by itself.
withdrawal cancel: cancels an APPROVED withdrawal that cannot go out (a recipient the token blocks,
payouts that reverted) and puts its amount back in the merchant's available balance; refused while a
payout transaction is signed for it.
user create: a dashboard user of a merchant (owner: everything; viewer: reads only), with a generated
password printed once. user reset-password: a new generated password, printed once; every session of
theirs ends and their failed sign-ins are forgotten. user delete: removes the user and ends their sessions.
webhook add: registers an endpoint for a merchant's events (every type unless --events names some)
and prints its signing secret, once. webhook list / delete: the merchant's endpoints.`;

const HELP = ['help', '--help', '-h'];

/**
 * The help of one command (`user --help`, `user create -h`, `user help`), taken from USAGE: its
 * usage lines (those of the action, when one is named and known) and the paragraphs about it;
 * undefined for a command USAGE does not name.
 */
function commandHelp(resource: string, action: string | undefined): string | undefined {
  const [usage = '', about = ''] = USAGE.split('\n\n');
  const lines = usage.split('\n').filter((line) => line.startsWith(`  npm run cli -- ${resource} `));
  if (lines.length === 0) return undefined;
  const ofAction = lines.filter((line) => action !== undefined && line.startsWith(`  npm run cli -- ${resource} ${action} `));
  // A paragraph starts on a line that begins with a command's name ("user create:", "wallet:").
  const commands = new Set(usage.split('\n').flatMap((line) => /^ {2}npm run cli -- (\S+)/.exec(line)?.[1] ?? []));
  const paragraphs: string[][] = [];
  for (const line of about.split('\n')) {
    if (commands.has(/^([a-z-]+)[ :]/.exec(line)?.[1] ?? '') || paragraphs.length === 0) paragraphs.push([line]);
    else paragraphs.at(-1)!.push(line);
  }
  const aboutIt = paragraphs.filter((p) => new RegExp(`^${resource}[ :]`).test(p[0]!)).map((p) => p.join('\n'));
  return ['Usage:', ...(ofAction.length > 0 ? ofAction : lines), '', ...aboutIt].join('\n');
}

/** The usage line of one command (`merchant create`), for a message about how it was called. */
function usageOf(resource: string, action: string): string {
  return `Usage:\n${USAGE.split('\n').filter((line) => line.startsWith(`  npm run cli -- ${resource} ${action} `)).join('\n')}`;
}

/** Runs a command line; returns the process exit code. */
export async function runCli(argv: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  const [resource, action, ...rest] = argv;
  if (resource === undefined) {
    err(USAGE + '\n');
    return 2;
  }
  if (HELP.includes(resource)) {
    out(USAGE + '\n');
    return 0;
  }
  // Asked anywhere after the command (no flag takes a value that starts with "-"), help is printed
  // and nothing runs.
  const help = argv.slice(1).some((arg) => HELP.includes(arg) && arg !== 'help') || action === 'help' ? commandHelp(resource, action) : undefined;
  if (help !== undefined) {
    out(help + '\n');
    return 0;
  }
  if (resource === 'db' && action === 'import-sqlite') return importCommand(rest, out, err);
  if (resource === 'webhook') return webhookCommand(action, rest, out, err);
  if (resource === 'user') return userCommand(action, rest, out, err);
  if (resource === 'wallet') return walletCommand(argv.slice(1), out, err);
  if (resource === 'asset') return assetCommand(action, rest, out, err);
  if (resource === 'sweep') return sweepCommand(argv.slice(1), out, err);
  if (resource === 'withdrawal') return withdrawalCommand(action, rest, out, err);
  if (resource === 'merchant' && action === 'rotate-keys') return rotateKeysCommand(rest, out, err);
  if (resource === 'merchant' && action === 'list') return listCommand(rest, out, err);
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
    err(`${(e as Error).message}\n${usageOf('merchant', 'create')}\n`);
    return 2;
  }
  if (values.name === undefined) {
    err(`--name is required.\n${usageOf('merchant', 'create')}\n`);
    return 2;
  }
  const given = {
    name: values.name,
    ...(values.email !== undefined ? { email: values.email } : {}),
    ...(values['site-url'] !== undefined ? { siteUrl: values['site-url'] } : {}),
    ...(values['logo-url'] !== undefined ? { logoUrl: values['logo-url'] } : {}),
  };
  // Every bad flag at once, a logo the payer's page would not show among them (judged against the
  // service's own address, PUBLIC_URL or PORT), each named by its flag, before any store is opened.
  const { publicUrl } = loadConfig();
  let input;
  try {
    input = readNewMerchant(given, publicUrl);
  } catch (e) {
    if (!(e instanceof InvalidInput)) throw e;
    printFieldErrors(e.details ?? [], { name: '--name', email: '--email', siteUrl: '--site-url', logoUrl: '--logo-url' }, err);
    // A logo on this machine refused only because the command was not told the service's address.
    const logo = given.logoUrl !== undefined && URL.canParse(given.logoUrl) ? new URL(given.logoUrl).hostname : '';
    const local = ['localhost', '127.0.0.1', '[::1]', new URL(publicUrl).hostname].includes(logo);
    if (local && logoProblem(given.logoUrl, new URL(publicUrl).origin) && !process.env.PUBLIC_URL && !process.env.PORT) {
      err('(This service\'s address is read from PUBLIC_URL or PORT, as the service reads it; neither is set for this command.)\n');
    }
    return 2;
  }
  return withMerchants(async (merchants) => {
    const created = await merchants.create(input);
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
  });
}

// The merchant use cases, as the server builds them.
const withMerchants = (work: (merchants: MerchantService) => Promise<number>): Promise<number> => withMerchantServices((services) => work(services.merchants));

async function rotateKeysCommand(args: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  let values: { id?: string; 'grace-seconds'?: string; json?: boolean };
  try {
    // A negative period (`--grace-seconds -1`) is read as the flag's value, so the range check below
    // names it, rather than parseArgs taking "-1" for a flag.
    const joined: string[] = [];
    for (let i = 0; i < args.length; i++) {
      if (args[i] === '--grace-seconds' && /^-[0-9.]/.test(args[i + 1] ?? '')) joined.push(`--grace-seconds=${args[++i]}`);
      else joined.push(args[i]!);
    }
    ({ values } = parseArgs({ args: joined, options: { id: { type: 'string' }, 'grace-seconds': { type: 'string' }, json: { type: 'boolean' } }, strict: true, allowPositionals: false }));
  } catch (e) {
    err(`${(e as Error).message}\n${usageOf('merchant', 'rotate-keys')}\n`);
    return 2;
  }
  if (values.id === undefined) {
    err(`--id is required (the merchant's id; \`npm run cli -- merchant list\` shows them).\n${usageOf('merchant', 'rotate-keys')}\n`);
    return 2;
  }
  const graceRaw = values['grace-seconds'] ?? '86400';
  if (!/^[0-9]{1,9}$/.test(graceRaw) || Number(graceRaw) > 90 * 86400) {
    err(`--grace-seconds must be a whole number of seconds from 0 to ${90 * 86400} (90 days), got "${graceRaw}".\n`);
    return 2;
  }
  const id = values.id;
  return withMerchants(async (merchants) => {
    const rotated = await merchants.rotateKeys(id, Number(graceRaw));
    if (!rotated) {
      err(`No merchant with id "${id}".\n`);
      return 1;
    }
    const result = { apiKey: rotated.apiKey, secretKey: rotated.secretKey, previousKeysValidUntil: isoTime(rotated.previousKeysValidUntil) };
    if (values.json) out(JSON.stringify(result) + '\n');
    else {
      out(
        `New keys for merchant ${id} (shown once):\n  API key:    ${result.apiKey}\n  Secret key: ${result.secretKey}\n` +
          `The previous keys keep working until ${result.previousKeysValidUntil}.\n`,
      );
    }
    return 0;
  });
}

async function listCommand(args: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  let values: { json?: boolean };
  try {
    ({ values } = parseArgs({ args, options: { json: { type: 'boolean' } }, strict: true, allowPositionals: false }));
  } catch (e) {
    err(`${(e as Error).message}\n${usageOf('merchant', 'list')}\n`);
    return 2;
  }
  return withMerchants(async (merchants) => {
    const listed = (await merchants.list()).map((m) => ({
      ...m,
      createdAt: isoTime(m.createdAt),
      previousKeysValidUntil: m.previousKeysValidUntil === null ? null : isoTime(m.previousKeysValidUntil),
    }));
    if (values.json) out(JSON.stringify({ data: listed }) + '\n');
    else if (listed.length === 0) out('No merchants yet: npm run cli -- merchant create --name NAME\n');
    else out(listed.map((m) => `${m.id}  ${m.name}${m.email ? ` <${m.email}>` : ''}  created ${m.createdAt}${m.previousKeysValidUntil ? `  previous keys valid until ${m.previousKeysValidUntil}` : ''}`).join('\n') + '\n');
    return 0;
  });
}

async function importCommand(args: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  let values: { file?: string; json?: boolean };
  try {
    ({ values } = parseArgs({ args, options: { file: { type: 'string' }, json: { type: 'boolean' } }, strict: true, allowPositionals: false }));
  } catch (e) {
    err(`${(e as Error).message}\n${usageOf('db', 'import-sqlite')}\n`);
    return 2;
  }
  if (values.file === undefined) {
    err(`--file is required.\n${usageOf('db', 'import-sqlite')}\n`);
    return 2;
  }
  const config = loadConfig();
  if (!config.databaseUrl) {
    err('db import-sqlite copies into PostgreSQL: set DATABASE_URL (and the SERVER_KEY of the SQLite installation).\n');
    return 2;
  }
  let source;
  try {
    source = openSqliteSource(values.file);
  } catch (e) {
    if (e instanceof ImportRefused) {
      err(`${e.message}\n`);
      return 1;
    }
    throw e;
  }
  try {
    const sample = sampleSealedSecret(source);
    const serverKey = loadServerKey(config);
    if (sample) {
      try {
        decryptSecretKey(sample.secretKeyEnc, sample.id, serverKey);
      } catch {
        err('SERVER_KEY does not open the merchant keys in that file: run with the key that installation used (its DATA_DIR/server.key, or its SERVER_KEY).\n');
        return 1;
      }
    }
    const db = await openCliDatabase(config, createLogger('warn'));
    try {
      const counts = await importSqlite(source, db);
      if (values.json) out(JSON.stringify(counts) + '\n');
      else out(`Imported ${Object.entries(counts).map(([kind, n]) => `${n} ${kind}`).join(', ')} into PostgreSQL.\n`);
      return 0;
    } catch (e) {
      if (e instanceof ImportRefused) {
        err(`${e.message}\n`);
        return 1;
      }
      throw e;
    } finally {
      await db.close();
    }
  } finally {
    source.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.exitCode = await runCli(process.argv.slice(2), (t) => process.stdout.write(t), (t) => process.stderr.write(t));
  } catch (e) {
    process.stderr.write(`crypto-checkout: ${e instanceof ConfigError || e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  }
}
