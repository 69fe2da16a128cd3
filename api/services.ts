/** The composition root of the domain: every store and use case, wired once. */
import { createLedger } from './balance/ledger.store.ts';
import { createCheckoutService } from './checkout/checkout.service.ts';
import { createPaymentEvents } from './checkout/payment-events.ts';
import type { Config } from './config.ts';
import { createGroupCommit } from './db/group-commit.ts';
import type { Db } from './db/open-database.ts';
import { createMerchantService } from './merchants/merchant.service.ts';
import { createMerchantStore } from './merchants/merchant.store.ts';
import { createAddressPool } from './networks/address-pool.ts';
import { loadAssetRegistry } from './networks/asset-registry.ts';
import { createChainWatcher } from './networks/chain-watcher.ts';
import { ensureHdAccounts } from './networks/hd-wallet.ts';
import type { NetworkAdapter } from './networks/network-adapter.ts';
import { createPaymentService } from './payments/payment.service.ts';
import { createPaymentStore } from './payments/payment.store.ts';
import type { Clock } from './shared/clock.ts';
import type { Logger } from './shared/logger.ts';
import { createSimulator } from './simulator/simulator.ts';
import { createWithdrawalService } from './withdrawals/withdrawal.service.ts';
import { createWithdrawalStore } from './withdrawals/withdrawal.store.ts';

/** What the services are built from. */
export interface ServiceOptions {
  db: Db;
  config: Config;
  clock: Clock;
  logger: Logger;
  serverKey: Buffer;
}

/** Builds every service over one database. */
export function createServices(options: ServiceOptions) {
  const { db, config, clock, logger, serverKey } = options;
  const registry = loadAssetRegistry(db, config.publicUrl);
  const mnemonicFile = ensureHdAccounts(db, registry, config.dataDir);
  if (mnemonicFile) logger.warn({ file: mnemonicFile }, 'generated this installation\'s HD wallet; back up the mnemonic file and move it off this machine');

  const events = createPaymentEvents();
  const merchants = createMerchantService({ store: createMerchantStore(db), serverKey, clock });
  merchants.checkServerKey();
  const paymentStore = createPaymentStore(db);
  const withdrawalStore = createWithdrawalStore(db);
  const ledger = createLedger(db, clock);
  const addressPool = createAddressPool({ db, registry, poolSize: config.addressPoolSize, logger });
  const simulator = config.simulator ? createSimulator({ db, registry, clock }) : undefined;

  const adapter = (network: string): NetworkAdapter => {
    if (simulator) return simulator.adapter(network);
    throw new Error(`no network adapter for ${network}: this build ships only the simulator (SIMULATOR=on)`);
  };

  const payments = createPaymentService({
    db,
    writes: createGroupCommit(db),
    store: paymentStore,
    registry,
    addressPool,
    clock,
    publicUrl: config.publicUrl,
    paymentTimeoutSeconds: config.paymentTimeoutSeconds,
  });
  const withdrawals = createWithdrawalService({ db, store: withdrawalStore, ledger, registry, clock, adapter, logger });
  const watcher = createChainWatcher({ db, payments: paymentStore, withdrawals: withdrawalStore, ledger, registry, clock, events, logger });
  for (const network of simulator?.networks() ?? []) network.adapter.watch((event) => watcher.handle(event));
  const checkout = createCheckoutService({ db, payments: paymentStore, merchants, registry, clock, events });

  return {
    config,
    db,
    clock,
    logger,
    registry,
    events,
    merchants,
    payments,
    withdrawals,
    ledger,
    checkout,
    addressPool,
    simulator,
    watcher,
    /** Stops background work owned by the services (not the database). */
    async close(): Promise<void> {
      for (const network of simulator?.networks() ?? []) network.adapter.close();
      await addressPool.close();
    },
  };
}

/** Every service. */
export type Services = ReturnType<typeof createServices>;
