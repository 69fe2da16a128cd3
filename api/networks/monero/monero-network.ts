/**
 * @module Monero on a real wallet, started in one call: the two RPC clients, the wallet checked and
 * its keys read, its payout side and its follower (started: its cursor stored before any address is
 * handed out), and the subaddress deriver the address pool uses for the `monero` network.
 */
import type { MoneroConfig } from '../../config.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../../shared/logger.ts';
import type { UnitOfWork } from '../../unit-of-work.ts';
import type { AssetRegistry } from '../asset-registry.ts';
import type { ChainFollower } from '../network-adapter.ts';
import { createMoneroFollower } from './monero-follower.ts';
import { createMoneroPayouts, type MoneroPayouts } from './monero-payouts.ts';
import { createMoneroRpc, type MoneroRpc } from './monero-rpc.ts';
import { connectMoneroWallet, MONERO, type MoneroWallet } from './monero-wallet.ts';

/** A running Monero network. */
export interface MoneroNetwork {
  follower: ChainFollower;
  /** The wallet's payout side, joined to the follower into the network's adapter. */
  payouts: MoneroPayouts;
  wallet: MoneroWallet;
  /** The wallet's RPC (the CLI's `wallet` command reads its balance). */
  walletRpc: MoneroRpc;
  /** The payment address at a database index, for the address pool. */
  deriveAddress(index: number): string;
  close(): void;
}

/** Connects to monero-wallet-rpc and monerod; throws a one-line message naming the variable at fault. */
export async function startMoneroNetwork(options: { config: MoneroConfig; uow: UnitOfWork; registry: AssetRegistry; clock: Clock; logger: Logger }): Promise<MoneroNetwork> {
  const { config, uow, registry, clock, logger } = options;
  const walletRpc = createMoneroRpc(config.walletRpcUrl);
  const daemon = createMoneroRpc(config.daemonRpcUrl);
  try {
    const wallet = await connectMoneroWallet({ wallet: walletRpc, daemon, uow });
    if (wallet.payoutsDisabled) logger.warn({ network: MONERO }, wallet.payoutsDisabled);
    // Addresses pooled before (the simulator's, or another wallet's) are not this wallet's.
    await uow.stores.addresses.dropPooled(MONERO);
    const asset = registry.find('XMR', MONERO);
    if (!asset) throw new Error('the registry has no XMR asset on monero');
    const payouts = createMoneroPayouts({ wallet: walletRpc, moneroWallet: wallet, uow, clock });
    const follower = createMoneroFollower({ wallet: walletRpc, daemon, moneroWallet: wallet, uow, asset, clock, logger, pollMs: config.pollMs });
    await follower.start();
    return {
      follower,
      payouts,
      wallet,
      walletRpc,
      deriveAddress: wallet.addressAt,
      close() {
        follower.close();
        walletRpc.close();
        daemon.close();
      },
    };
  } catch (err) {
    walletRpc.close();
    daemon.close();
    throw err;
  }
}
