/**
 * @module The installation's Ethereum wallet over its node: the registry's tokens as the node knows
 * them, the payout side (signing from the payout address) and the sweeper. The service builds it at
 * start-up (with the follower beside it); `npm run cli -- sweep` and `wallet` build the same.
 */
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../../shared/logger.ts';
import type { UnitOfWork } from '../../unit-of-work.ts';
import type { AssetRegistry } from '../asset-registry.ts';
import { accountSigner, readMnemonic, rootKeyOf } from '../hd-wallet.ts';
import type { RpcClient } from '../json-rpc-client.ts';
import { createEthPayouts } from './eth-payouts.ts';
import { createEthSweeper } from './eth-sweeper.ts';
import { loadEthTokens } from './eth-tokens.ts';

/** Builds the wallet; `mnemonicFile` is read for the signing key (none: receive only). */
export async function createEthereumWallet(deps: { rpc: RpcClient; uow: UnitOfWork; registry: AssetRegistry; clock: Clock; logger: Logger; chainId: number; mnemonicFile: string; stuckMs?: number }) {
  const { rpc, uow, registry, clock, logger, chainId, mnemonicFile } = deps;
  const assets = registry.assets().filter((a) => a.network === 'ethereum');
  const native = assets.find((a) => a.contractAddress === null);
  if (!native) throw new Error('network ethereum has no native asset in the registry');
  const tokens = await loadEthTokens(rpc, assets, logger);
  const xpub = await uow.stores.addresses.xpubOf('ethereum');
  if (!xpub) throw new Error('ethereum has no wallet account yet: start the service once');
  const mnemonic = readMnemonic(mnemonicFile);
  const signer = mnemonic === undefined ? undefined : accountSigner(rootKeyOf(mnemonic), registry.network('ethereum').accountPath, xpub);
  const noSignerReason =
    mnemonic === undefined
      ? `Payouts on ethereum are off: there is no wallet mnemonic at ${mnemonicFile} (WALLET_MNEMONIC_FILE), so this installation receives on ethereum but cannot sign.`
      : `Payouts on ethereum are off: the mnemonic at ${mnemonicFile} is not the wallet whose addresses this installation hands out.`;
  if (!signer) logger.warn({ network: 'ethereum' }, noSignerReason);
  const payouts = createEthPayouts({ rpc, uow, clock, chainId, xpub, signer, noSignerReason, tokens, stuckMs: deps.stuckMs ?? 600_000 });
  const sweeper = createEthSweeper({ rpc, uow, chainId, tokens, payouts, logger });
  return { native, tokens, payouts, sweeper };
}

/** The Ethereum wallet. */
export type EthereumWallet = Awaited<ReturnType<typeof createEthereumWallet>>;
