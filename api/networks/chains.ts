/**
 * @module The chains an installation serves, brought up at start: each network on a node is checked
 * (reachable, credentials, the configured chain), the asset registry and HD accounts follow the
 * nodes' chains, the simulator takes every other network when it is on, and each network gets its
 * adapter (a follower of its node, or its simulated chain). Nothing here follows a chain yet:
 * `startJobs` starts the followers' polling with the other background loops.
 */
import type { Config } from '../config.ts';
import type { Logger } from '../shared/logger.ts';
import type { Clock } from '../shared/clock.ts';
import { createSimulator } from '../simulator/simulator.ts';
import type { UnitOfWork } from '../unit-of-work.ts';
import { loadAssetRegistry } from './asset-registry.ts';
import { checkNode, createNodeFollower } from './bitcoin-core/node-follower.ts';
import { createUtxoPayouts } from './bitcoin-core/utxo-payouts.ts';
import { chainParams } from './chain-params.ts';
import { checkEthereumNode, createEthFollower } from './ethereum/eth-follower.ts';
import { createEthereumWallet, type EthereumWallet } from './ethereum/ethereum-wallet.ts';
import { accountSigner, ensureHdAccounts, readMnemonic, rootKeyOf } from './hd-wallet.ts';
import { createRpcClient, type RpcClient } from './json-rpc-client.ts';
import type { ChainFollower, NetworkAdapter, NetworkPayouts } from './network-adapter.ts';
import { networkSources, warnUnserved } from './network-sources.ts';
import { type MoneroNetwork, startMoneroNetwork } from './monero/monero-network.ts';
import type { AddressDeriver } from './address-pool.ts';

/** What bringing up the chains needs. */
export interface ChainOptions {
  uow: UnitOfWork;
  config: Config;
  clock: Clock;
  logger: Logger;
}

/** Brings up every chain the configuration names; throws with one line naming the variable when a node is wrong. */
export async function bootstrapChains(options: ChainOptions) {
  const { uow, config, clock, logger } = options;
  // Networks on a node: checked before anything else (reachable, credentials right, the configured
  // chain); their addresses and derivation follow the node's chain.
  const nodeNetworks = Object.keys(config.nodes) as Array<'bitcoin' | 'litecoin'>;
  const rpcs = new Map<string, RpcClient>();
  for (const network of nodeNetworks) {
    const node = config.nodes[network]!;
    const rpc = createRpcClient(node.rpcUrl);
    try {
      await checkNode(rpc, network, node.chain);
    } catch (err) {
      throw new Error(`${network.toUpperCase()}_RPC_URL: ${err instanceof Error ? err.message : String(err)}`);
    }
    rpcs.set(network, rpc);
  }
  let ethereumRpc: RpcClient | undefined;
  if (config.ethereum) {
    ethereumRpc = createRpcClient(config.ethereum.rpcUrl, { version: '2.0' });
    try {
      await checkEthereumNode(ethereumRpc, config.ethereum.chainId);
    } catch (err) {
      throw new Error(`ETHEREUM_RPC_URL: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const registry = await loadAssetRegistry(uow.stores.assets, config.publicUrl, Object.fromEntries(nodeNetworks.map((n) => [n, config.nodes[n]!.chain])));
  const mnemonicFile = await ensureHdAccounts(uow.stores.addresses, registry, config.walletMnemonicFile, { create: !config.production });
  if (mnemonicFile) logger.warn({ file: mnemonicFile }, 'generated this installation\'s HD wallet; back up the mnemonic file and move it off this machine');

  // Monero on its wallet: the wallet makes the payment addresses (subaddresses), for the address pool.
  const monero: MoneroNetwork | undefined = config.monero ? await startMoneroNetwork({ config: config.monero, uow, registry, clock, logger }) : undefined;

  const realNetworks: string[] = [...nodeNetworks, ...(ethereumRpc ? ['ethereum'] : []), ...(monero ? ['monero'] : [])];
  const simulator = config.simulator ? await createSimulator({ uow, registry, clock, skip: realNetworks }) : undefined;

  // Each network on a node follows it for payments, and pays out from the wallet it received.
  const walletMnemonic = nodeNetworks.length > 0 ? readMnemonic(config.walletMnemonicFile) : undefined;
  const walletRoot = walletMnemonic === undefined ? undefined : rootKeyOf(walletMnemonic);
  const followers = new Map<string, ChainFollower>();
  const payoutsOf = new Map<string, NetworkPayouts>();
  for (const network of nodeNetworks) {
    const node = config.nodes[network]!;
    const rpc = rpcs.get(network)!;
    const native = registry.assets().find((a) => a.network === network && a.contractAddress === null);
    if (!native) throw new Error(`network ${network} has no native asset in the registry`);
    const xpub = (await uow.stores.addresses.xpubOf(network))!;
    const accountPath = registry.network(network).accountPath;
    // Payouts need the mnemonic; without it (or with another wallet's) the installation only receives.
    let signer: ReturnType<typeof accountSigner>;
    let noSignerReason = `Payouts on ${network} are off: there is no wallet mnemonic at ${config.walletMnemonicFile} (WALLET_MNEMONIC_FILE), so this installation receives on ${network} but cannot sign.`;
    if (walletRoot) {
      signer = accountSigner(walletRoot, accountPath, xpub);
      noSignerReason = `Payouts on ${network} are off: the mnemonic at ${config.walletMnemonicFile} is not the wallet whose addresses this installation hands out.`;
    }
    if (!signer) logger.warn({ network }, noSignerReason);
    const payouts = createUtxoPayouts({
      network,
      params: chainParams(network, node.chain),
      chain: node.chain,
      rpc,
      uow,
      clock,
      xpub,
      signer,
      noSignerReason,
      fallbackFeeRate: node.fallbackFeeRate,
    });
    const follower = createNodeFollower({ network, chain: node.chain, rpc, uow, asset: native, clock, logger, payoutAddress: payouts.payoutAddress });
    payoutsOf.set(network, payouts);
    await follower.start();
    followers.set(network, follower);
  }

  let ethereum: EthereumWallet | undefined;
  if (ethereumRpc) {
    ethereum = await createEthereumWallet({ rpc: ethereumRpc, uow, registry, clock, logger, chainId: config.ethereum!.chainId, mnemonicFile: config.walletMnemonicFile, stuckMs: config.ethereum!.stuckSeconds * 1000 });
    const follower = createEthFollower({ rpc: ethereumRpc, uow, native: ethereum.native, tokens: ethereum.tokens, clock, logger });
    payoutsOf.set('ethereum', ethereum.payouts);
    await follower.start();
    followers.set('ethereum', follower);
  }

  if (monero) {
    payoutsOf.set('monero', monero.payouts);
    followers.set('monero', monero.follower);
  }

  // Served: a network on a node, or on the simulator; on ethereum, a token whose contract answered.
  const simulated = new Set((simulator?.networks() ?? []).map((n) => n.adapter.network));
  registry.serveOnly((asset) => {
    if (asset.network === 'ethereum' && ethereum) return asset.contractAddress === null || ethereum.tokens.has(asset.contractAddress.toLowerCase());
    return followers.has(asset.network) || simulated.has(asset.network);
  });
  const sources = networkSources(registry.networks(), { onNode: new Set(followers.keys()), simulated });
  warnUnserved(sources, logger);

  // A network on a node: its follower's events and its wallet's payouts, as one adapter.
  const joined = new Map<string, NetworkAdapter>();
  for (const [network, follower] of followers) {
    const payouts = payoutsOf.get(network)!;
    joined.set(network, {
      network,
      watch: follower.watch,
      close: follower.close,
      send: (payout) => payouts.send(payout),
      ...(payouts.resend ? { resend: (reference: string) => payouts.resend!(reference) } : {}),
      ...(payouts.payoutsDisabled !== undefined ? { payoutsDisabled: payouts.payoutsDisabled } : {}),
    });
  }
  const adapter = (network: string): NetworkAdapter => {
    const onNode = joined.get(network);
    if (onNode) return onNode;
    if (simulator) return simulator.adapter(network);
    throw new Error(`no network adapter for ${network}: set its node's RPC URL or run with SIMULATOR=on`);
  };


  return {
    registry,
    simulator,
    /** Each network on a node, by name. */
    followers,
    /** Ethereum's wallet (payouts, sweeps) when ethereum runs on a node. */
    ethereum,
    /** What serves each network (node, simulator, unserved), for GET /health. */
    sources,
    adapter,
    /** Monero's wallet when monero runs on monero-wallet-rpc. */
    monero,
    /** Networks whose payment addresses come from elsewhere than their xpub (Monero's wallet), for the address pool. */
    derivers: (monero ? { monero: monero.deriveAddress } : {}) as Readonly<Record<string, AddressDeriver>>,
    /** Whether a network runs on the simulator (the payer is told no real funds move). */
    isSimulated: (network: string) => simulated.has(network),
    /** Stops every chain's event delivery and polling. */
    close(): void {
      for (const network of simulator?.networks() ?? []) network.adapter.close();
      for (const follower of followers.values()) follower.close();
      monero?.close();
    },
  };
}

/** The chains of a running installation. */
export type Chains = Awaited<ReturnType<typeof bootstrapChains>>;
