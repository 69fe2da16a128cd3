/** Wires every use case over one database: the only place that knows what needs what. */
import { createBalanceService } from './balance/balance.service.ts';
import type { Config } from './config.ts';
import { createCheckoutService } from './checkout/checkout.service.ts';
import { createPaymentEvents } from './checkout/payment-events.ts';
import type { Database } from './db/database.ts';
import { createIdempotencyService } from './idempotency/idempotency.service.ts';
import { createKeyChanges } from './merchants/key-changes.ts';
import { createMerchantService } from './merchants/merchant.service.ts';
import { createAddressPool } from './networks/address-pool.ts';
import { loadAssetRegistry } from './networks/asset-registry.ts';
import { createChainWatcher } from './jobs/chain-watcher.ts';
import { useUtxoChain } from './networks/address-codecs.ts';
import { chainParams } from './networks/chain-params.ts';
import { checkNode, createNodeFollower } from './networks/bitcoin-core/node-follower.ts';
import { checkEthereumNode, createEthFollower } from './networks/ethereum/eth-follower.ts';
import { createEthereumWallet, type EthereumWallet } from './networks/ethereum/ethereum-wallet.ts';
import type { ChainFollower } from './networks/network-adapter.ts';
import { createRpcClient, type RpcClient } from './networks/json-rpc-client.ts';
import { accountSigner, ensureHdAccounts, readMnemonic, rootKeyOf } from './networks/hd-wallet.ts';
import { createUtxoPayouts } from './networks/bitcoin-core/utxo-payouts.ts';
import { createExpirySweep } from './jobs/expiry-sweep.ts';
import type { NetworkAdapter } from './networks/network-adapter.ts';
import { createPaymentReceipts } from './payments/payment-receipts.ts';
import { createPaymentTransitions } from './payments/payment-transitions.ts';
import { createPaymentService } from './payments/payment.service.ts';
import { createRateLimiter } from './rate-limits/rate-limiter.ts';
import { createRateBook } from './rates/rate-book.ts';
import { createRateSources } from './rates/rate-sources.ts';
import { createRateService } from './rates/rates.service.ts';
import type { Clock } from './shared/clock.ts';
import type { Logger } from './shared/logger.ts';
import { createSimulator } from './simulator/simulator.ts';
import { createUnitOfWork } from './unit-of-work.ts';
import { createPayoutSender } from './withdrawals/payout-sender.ts';
import { createPayoutTracker } from './withdrawals/payout-tracker.ts';
import { createWebhookDispatcher } from './webhooks/webhook-dispatcher.ts';
import { createWebhookOutbox } from './webhooks/webhook-outbox.ts';
import { createWebhookSecrets } from './webhooks/webhook-secrets.ts';
import { createWebhookService } from './webhooks/webhook.service.ts';
import { createWithdrawalService } from './withdrawals/withdrawal.service.ts';
import { createWithdrawalTransitions } from './withdrawals/withdrawal-transitions.ts';

/** What the services are built from. */
export interface ServiceOptions {
  db: Database;
  config: Config;
  clock: Clock;
  logger: Logger;
  serverKey: Buffer;
}

/** Builds every service over one database. */
export async function createServices(options: ServiceOptions) {
  const { db, config, clock, logger, serverKey } = options;
  const uow = createUnitOfWork(db);
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
  for (const network of nodeNetworks) useUtxoChain(network, chainParams(network, config.nodes[network]!.chain));
  const registry = await loadAssetRegistry(uow.stores.assets, config.publicUrl, Object.fromEntries(nodeNetworks.map((n) => [n, config.nodes[n]!.chain])));
  const mnemonicFile = await ensureHdAccounts(uow.stores.addresses, registry, config.walletMnemonicFile, { create: !config.production });
  if (mnemonicFile) logger.warn({ file: mnemonicFile }, 'generated this installation\'s HD wallet; back up the mnemonic file and move it off this machine');

  const events = await createPaymentEvents(db);
  // Subscribed before the first request: a rotation elsewhere is noticed from the start.
  const keyChanges = createKeyChanges(db, clock);
  await keyChanges.generation();
  const merchants = createMerchantService({ uow, serverKey, clock, keyChanges });
  await merchants.checkServerKey();
  const addressPool = createAddressPool({ uow, registry, poolSize: config.addressPoolSize, logger });
  const realNetworks: string[] = [...nodeNetworks, ...(ethereumRpc ? ['ethereum'] : [])];
  const simulator = config.simulator ? await createSimulator({ uow, registry, clock, skip: realNetworks }) : undefined;

  // Each network on a node follows it for payments, and pays out from the wallet it received.
  const walletMnemonic = nodeNetworks.length > 0 ? readMnemonic(config.walletMnemonicFile) : undefined;
  const walletRoot = walletMnemonic === undefined ? undefined : rootKeyOf(walletMnemonic);
  const followers = new Map<string, ChainFollower>();
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
      rpc,
      uow,
      clock,
      xpub,
      signer,
      noSignerReason,
      fallbackFeeRate: node.fallbackFeeRate,
    });
    const follower = createNodeFollower({ network, chain: node.chain, rpc, uow, asset: native, clock, logger, payouts });
    await follower.start();
    followers.set(network, follower);
  }

  let ethereum: EthereumWallet | undefined;
  if (ethereumRpc) {
    ethereum = await createEthereumWallet({ rpc: ethereumRpc, uow, registry, clock, logger, chainId: config.ethereum!.chainId, mnemonicFile: config.walletMnemonicFile, stuckMs: config.ethereum!.stuckSeconds * 1000 });
    const follower = createEthFollower({ rpc: ethereumRpc, uow, native: ethereum.native, tokens: ethereum.tokens, clock, logger, payouts: ethereum.payouts });
    await follower.start();
    followers.set('ethereum', follower);
  }

  // Served: a network on a node, or on the simulator; on ethereum, a token whose contract answered.
  const simulated = new Set((simulator?.networks() ?? []).map((n) => n.adapter.network));
  registry.serveOnly((asset) => {
    if (asset.network === 'ethereum' && ethereum) return asset.contractAddress === null || ethereum.tokens.has(asset.contractAddress.toLowerCase());
    return followers.has(asset.network) || simulated.has(asset.network);
  });

  const adapter = (network: string): NetworkAdapter => {
    const follower = followers.get(network);
    if (follower) return follower;
    if (simulator) return simulator.adapter(network);
    throw new Error(`no network adapter for ${network}: set its node's RPC URL or run with SIMULATOR=on`);
  };

  // Webhooks: events queued in the transactions that change statuses, delivered by the dispatcher.
  const secrets = createWebhookSecrets(serverKey);
  const dispatcher = createWebhookDispatcher({
    uow,
    clock,
    logger,
    secrets,
    send: { timeoutMs: config.webhookTimeoutMs, allowPrivate: config.webhookAllowPrivate },
  });
  const outbox = createWebhookOutbox({ queued: () => dispatcher.nudge() });
  const webhooks = createWebhookService({ uow, clock, secrets, dispatcher, allowPrivate: config.webhookAllowPrivate });
  const paymentTransitions = createPaymentTransitions({ registry, publicUrl: config.publicUrl, outbox });
  const withdrawalTransitions = createWithdrawalTransitions({ registry, outbox });

  // Fiat prices: quotes of the served assets, kept fresh in the background (startJobs starts it).
  const rateBook = createRateBook({
    sources: createRateSources(config.rates),
    clock,
    logger,
    maxAgeMs: config.rates.maxAgeSeconds * 1000,
    refreshMs: config.rates.refreshSeconds * 1000,
    timeoutMs: config.rates.timeoutMs,
    tickers: () => [...new Set(registry.assets().filter((asset) => registry.isServed(asset)).map((asset) => asset.short))],
  });
  const rates = createRateService({ book: rateBook, registry, spreadPercent: config.rates.spreadPercent });
  const payments = createPaymentService({
    uow,
    registry,
    addressPool,
    clock,
    publicUrl: config.publicUrl,
    paymentTimeoutSeconds: config.paymentTimeoutSeconds,
    rates,
  });
  const payouts = createPayoutSender({ uow, registry, clock, adapter, logger });
  const withdrawals = createWithdrawalService({ uow, registry, clock, adapter, logger, transitions: withdrawalTransitions, payouts });
  const balance = createBalanceService({ uow, registry });
  const watcher = createChainWatcher({
    uow,
    receipts: createPaymentReceipts({ registry, clock, logger, transitions: paymentTransitions }),
    payouts: createPayoutTracker({ registry, clock, transitions: withdrawalTransitions }),
    events,
  });
  for (const network of simulator?.networks() ?? []) network.adapter.watch((event) => watcher.handle(event));
  for (const follower of followers.values()) follower.watch((event) => watcher.handle(event));
  const checkout = createCheckoutService({ uow, merchants, registry, clock, events });
  const expirySweep = createExpirySweep({ uow, clock, events, transitions: paymentTransitions });
  const idempotency = createIdempotencyService({ uow, clock });
  const rateLimiter = createRateLimiter({ uow, clock });

  return {
    config,
    db,
    uow,
    clock,
    logger,
    registry,
    events,
    keyChanges,
    merchants,
    payments,
    withdrawals,
    payouts,
    balance,
    checkout,
    expirySweep,
    idempotency,
    rateLimiter,
    rateBook,
    rates,
    webhooks,
    webhookSecrets: secrets,
    dispatcher,
    addressPool,
    simulator,
    followers,
    /** Ethereum's wallet (payouts, sweeps) when ethereum runs on a node. */
    ethereum,
    watcher,
    /** Stops background work owned by the services (not the database). */
    async close(): Promise<void> {
      for (const network of simulator?.networks() ?? []) network.adapter.close();
      for (const follower of followers.values()) follower.close();
      await addressPool.close();
    },
  };
}

/** Every service. */
export type Services = Awaited<ReturnType<typeof createServices>>;
