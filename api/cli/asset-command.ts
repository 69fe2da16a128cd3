/** `npm run cli -- asset set-contract`: point a token asset at its contract on the chain in use. */
import { addr } from 'micro-eth-signer';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { createLogger } from '../shared/logger.ts';
import { createUnitOfWork } from '../unit-of-work.ts';
import { openCliDatabase } from './cli-services.ts';

/** The usage line of the asset command. */
export const ASSET_USAGE = '  npm run cli -- asset set-contract --short USDT --network ethereum --contract 0x… [--json]';

type Print = (text: string) => void;

/** Runs `asset <action> …`; returns the exit code. */
export async function assetCommand(action: string | undefined, args: string[], out: Print, err: Print): Promise<number> {
  if (action !== 'set-contract') {
    err(`Unknown command "asset${action ? ` ${action}` : ''}".\nUsage:\n${ASSET_USAGE}\n`);
    return 2;
  }
  let values: { short?: string; network?: string; contract?: string; json?: boolean };
  try {
    ({ values } = parseArgs({ args, options: { short: { type: 'string' }, network: { type: 'string' }, contract: { type: 'string' }, json: { type: 'boolean' } }, strict: true, allowPositionals: false }));
  } catch (e) {
    err(`${(e as Error).message}\nUsage:\n${ASSET_USAGE}\n`);
    return 2;
  }
  for (const flag of ['short', 'network', 'contract'] as const) {
    if (values[flag] === undefined) {
      err(`--${flag} is required.\nUsage:\n${ASSET_USAGE}\n`);
      return 2;
    }
  }
  if (values.network !== 'ethereum') {
    err(`--network ${values.network}: contracts are set for ethereum tokens (the other networks' tokens stay simulated).\n`);
    return 2;
  }
  const contract = values.contract!;
  if (!/^0x[0-9a-fA-F]{40}$/.test(contract) || !addr.isValid(contract)) {
    err(`--contract ${contract} is not an Ethereum address (0x and 40 hexadecimal digits; mixed case must match its EIP-55 checksum).\n`);
    return 2;
  }
  const checksummed = addr.addChecksum(contract.toLowerCase());
  const config = loadConfig();
  const db = await openCliDatabase(config, createLogger('warn'));
  try {
    const uow = createUnitOfWork(db);
    if (!(await uow.stores.assets.setContract(values.short!, values.network, checksummed))) {
      const tokens = (await uow.stores.assets.assets()).filter((a) => a.network === 'ethereum' && a.contract_address !== null).map((a) => a.short);
      err(`No token ${values.short} on ethereum; the tokens there are ${tokens.join(', ')}.\n`);
      return 1;
    }
    if (values.json) out(`${JSON.stringify({ short: values.short, network: values.network, contract: checksummed })}\n`);
    else out(`${values.short} on ethereum is now the contract ${checksummed}. Restart the service to watch it.\n`);
    return 0;
  } finally {
    await db.close();
  }
}
