/** `npm run cli -- wallet --network NAME [--json]`: the payout wallet of a network on a node. */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { isUtxoNetwork } from '../networks/chain-params.ts';
import { fromSats, payoutAddressOf } from '../networks/bitcoin-core/utxo-payouts.ts';
import { writeNewMnemonic } from '../networks/hd-wallet.ts';
import { createLogger } from '../shared/logger.ts';
import { loadAssetRegistry } from '../networks/asset-registry.ts';
import { createRpcClient } from '../networks/json-rpc-client.ts';
import { ethPayoutAddressOf, tokenBalance } from '../networks/ethereum/eth-payouts.ts';
import { formatUnits, loadEthTokens } from '../networks/ethereum/eth-tokens.ts';
import { Amount, formatAmount, parseAmount } from '../shared/money.ts';
import { createUnitOfWork } from '../unit-of-work.ts';
import { moneroWalletCommand } from './monero-wallet-command.ts';
import { openCliDatabase } from './cli-services.ts';

/** The usage line of the wallet command. */
export const WALLET_USAGE = `  npm run cli -- wallet --network bitcoin|litecoin|ethereum|monero [--json]
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
  if (network === 'ethereum') return ethereumWallet(values.json === true, out, err);
  if (network === 'monero') return moneroWalletCommand(values.json === true, out, err);
  if (!isUtxoNetwork(network)) {
    err(`--network ${network}: payouts are made from a wallet on bitcoin, litecoin, ethereum (through a node) and monero (through monero-wallet-rpc); ${network} is not one of them.\n`);
    return 2;
  }
  const config = loadConfig();
  const node = config.nodes[network];
  if (!node) {
    err(`${network} does not run on a node here: set ${network.toUpperCase()}_RPC_URL and ${network.toUpperCase()}_CHAIN as the service has them.\n`);
    return 1;
  }
  const db = await openCliDatabase(config, createLogger('warn'));
  try {
    const uow = createUnitOfWork(db);
    const xpub = await uow.stores.addresses.xpubOf(network);
    if (!xpub) {
      err(`${network} has no wallet account yet: start the service once with ${network.toUpperCase()}_RPC_URL set.\n`);
      return 1;
    }
    const totals = await uow.stores.wallet.totals(network);
    const wallet = { network, chain: node.chain, payoutAddress: payoutAddressOf(xpub, network, node.chain), spendable: { [NATIVE[network]]: fromSats(totals.spendable) } };
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

// Ethereum's payout address and what it holds now, asked of the node.
async function ethereumWallet(json: boolean, out: Print, err: Print): Promise<number> {
  const config = loadConfig();
  if (!config.ethereum) {
    err('ethereum does not run on a node here: set ETHEREUM_RPC_URL and ETHEREUM_CHAIN_ID as the service has them.\n');
    return 1;
  }
  const db = await openCliDatabase(config, createLogger('warn'));
  try {
    const uow = createUnitOfWork(db);
    const xpub = await uow.stores.addresses.xpubOf('ethereum');
    if (!xpub) {
      err('ethereum has no wallet account yet: start the service once.\n');
      return 1;
    }
    const rpc = createRpcClient(config.ethereum.rpcUrl, { version: '2.0' });
    const registry = await loadAssetRegistry(uow.stores.assets, config.publicUrl, {});
    const assets = registry.assets().filter((a) => a.network === 'ethereum');
    const tokens = await loadEthTokens(rpc, assets, createLogger('silent'));
    const payoutAddress = ethPayoutAddressOf(xpub);
    const spendable: Record<string, string> = {};
    for (const asset of assets) {
      const token = asset.contractAddress === null ? undefined : tokens.get(asset.contractAddress.toLowerCase());
      if (asset.contractAddress !== null && !token) continue;
      const units = token ? await tokenBalance(rpc, token.contract, payoutAddress) : BigInt(await rpc.call<string>('eth_getBalance', [payoutAddress, 'latest']));
      const exact = formatUnits(units, token ? token.decimals : 18);
      spendable[asset.short] = formatAmount(parseAmount(exact).toDecimalPlaces(asset.decimals, Amount.ROUND_DOWN), asset.decimals);
    }
    const wallet = { network: 'ethereum', chain: String(config.ethereum.chainId), payoutAddress, spendable };
    if (json) out(`${JSON.stringify(wallet)}\n`);
    else out(`Network:        ethereum (chain id ${config.ethereum.chainId})\nPayout address: ${payoutAddress} (payouts are sent from it; sweeps gather payments there)\nSpendable:      ${Object.entries(spendable).map(([short, amount]) => `${amount} ${short}`).join(', ')}\n`);
    return 0;
  } finally {
    await db.close();
  }
}
