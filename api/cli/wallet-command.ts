/** `npm run cli -- wallet --network NAME [--json]`: the payout wallet of a network on a node. */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/open-database.ts';
import { useUtxoChain } from '../networks/address-codecs.ts';
import { chainParams, isUtxoNetwork } from '../networks/bitcoin-core/chain-params.ts';
import { fromSats, payoutAddressOf } from '../networks/bitcoin-core/utxo-payouts.ts';
import { writeNewMnemonic } from '../networks/hd-wallet.ts';
import { createLogger } from '../shared/logger.ts';
import { createUnitOfWork } from '../unit-of-work.ts';

/** The usage line of the wallet command. */
export const WALLET_USAGE = `  npm run cli -- wallet --network bitcoin|litecoin [--json]
  npm run cli -- wallet create-mnemonic [--file PATH]`;

type Print = (text: string) => void;

const NATIVE: Record<'bitcoin' | 'litecoin', string> = { bitcoin: 'BTC', litecoin: 'LTC' };

/** Runs `wallet …`; returns the exit code. */
export async function walletCommand(args: string[], out: Print, err: Print): Promise<number> {
  if (args[0] === 'create-mnemonic') return createMnemonicCommand(args.slice(1), out, err);
  let values: { network?: string; json?: boolean };
  try {
    ({ values } = parseArgs({ args, options: { network: { type: 'string' }, json: { type: 'boolean' } }, strict: true, allowPositionals: false }));
  } catch (e) {
    err(`${(e as Error).message}\nUsage:\n${WALLET_USAGE}\n`);
    return 2;
  }
  const network = values.network;
  if (network === undefined) {
    err(`--network is required.\nUsage:\n${WALLET_USAGE}\n`);
    return 2;
  }
  if (!isUtxoNetwork(network)) {
    err(`--network ${network}: payouts are made from a wallet on bitcoin and litecoin (through a node); ${network} is not one of them.\n`);
    return 2;
  }
  const config = loadConfig();
  const node = config.nodes[network];
  if (!node) {
    err(`${network} does not run on a node here: set ${network.toUpperCase()}_RPC_URL and ${network.toUpperCase()}_CHAIN as the service has them.\n`);
    return 1;
  }
  useUtxoChain(network, chainParams(network, node.chain));
  const db = await openDatabase(config, createLogger('warn'));
  try {
    const uow = createUnitOfWork(db);
    const xpub = await uow.stores.addresses.xpubOf(network);
    if (!xpub) {
      err(`${network} has no wallet account yet: start the service once with ${network.toUpperCase()}_RPC_URL set.\n`);
      return 1;
    }
    const totals = await uow.stores.wallet.totals(network);
    const wallet = { network, chain: node.chain, payoutAddress: payoutAddressOf(xpub, network), spendable: { [NATIVE[network]]: fromSats(totals.spendable) } };
    if (values.json) {
      out(`${JSON.stringify(wallet)}\n`);
    } else {
      out(
        `Network:        ${network} (${node.chain})\n` +
          `Payout address: ${wallet.payoutAddress} (payouts are sent from this wallet; change returns here)\n` +
          `Spendable:      ${wallet.spendable[NATIVE[network]]} ${NATIVE[network]}` +
          (totals.unconfirmed > 0n ? ` (and ${fromSats(totals.unconfirmed)} waiting for a block)\n` : '\n'),
      );
    }
    return 0;
  } finally {
    await db.close();
  }
}

// A new installation wallet for a production start (which never generates one itself).
function createMnemonicCommand(args: string[], out: Print, err: Print): number {
  let values: { file?: string };
  try {
    ({ values } = parseArgs({ args, options: { file: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (e) {
    err(`${(e as Error).message}\nUsage:\n${WALLET_USAGE}\n`);
    return 2;
  }
  const file = values.file ?? loadConfig().walletMnemonicFile;
  try {
    writeNewMnemonic(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      err(`${file} exists already; a wallet file is never overwritten.\n`);
      return 1;
    }
    throw e;
  }
  out(`Wrote a new wallet mnemonic to ${file} (mode 0600). Back it up offline: it controls every address and signs payouts.\n`);
  return 0;
}
