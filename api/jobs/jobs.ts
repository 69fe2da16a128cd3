/**
 * @module Every background loop of a running service starts here: following each node's chain,
 * expiry sweeps, payout broadcasts, webhook deliveries, simulated blocks, Ethereum sweeps, rate
 * refreshes, mail, housekeeping (expired idempotency records, ended rate-limit windows) and address pool
 * refills. Each shared job runs in one process at a time, whichever holds its
 * lease (a row in `job_leases`): several instances on one database sweep, pay out and mine once.
 * A process that dies stops renewing; its leases lapse and another instance takes the jobs over.
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import type { SweepThresholds } from '../networks/ethereum/eth-sweeper.ts';
import { type EthTokens, parseUnits } from '../networks/ethereum/eth-tokens.ts';
import type { Clock } from '../shared/clock.ts';
import type { Logger } from '../shared/logger.ts';
import type { UnitOfWork } from '../unit-of-work.ts';

/** The parts of a running service the jobs drive (createServices gives them all). */
export interface JobServices {
  config: Config;
  logger: Logger;
  uow: UnitOfWork;
  clock: Clock;
  expirySweep: { run(): Promise<unknown> };
  idempotency: { purgeExpired(): Promise<unknown> };
  rateLimiter: { purge(): Promise<unknown> };
  sessions: { purgeIdle(): Promise<unknown> };
  payouts: { sendPending(): Promise<unknown> };
  simulator?: { tick(): Promise<unknown> } | undefined;
  addressPool: { refill(): Promise<unknown>; idleFor(ms: number): boolean };
  ethereum?: { tokens: EthTokens; sweeper: { sweep(thresholds: SweepThresholds): Promise<unknown> } } | undefined;
  dispatcher: { start(): () => Promise<unknown> };
  /** Each network on a node: following it is one of the background loops. */
  followers: ReadonlyMap<string, { follow(): void; close(): void }>;
  rateBook: { startRefreshing(): () => Promise<void> };
  /** The mail job, when SMTP_URL is set. */
  mail?: { run(): Promise<unknown> } | undefined;
}

const SWEEP_MS = 1_000;
// Approved payouts waiting for funds (or for the node) are tried again this often.
const PAYOUT_RETRY_MS = 5_000;
const HOUSEKEEPING_MS = 60_000;
const POOL_IDLE_MS = 1_000;
const WEBHOOK_LOG_DAYS = 30;
// Mail waiting in the outbox goes out this often, by one instance at a time.
const MAIL_MS = 2_000;
/** A lease outlives a few runs of its job, and no more, so a takeover after a crash is quick. */
const LEASE_MS = 10_000;

/** Starts the timers; the returned function stops them and gives the leases up. */
export function startJobs(services: JobServices): () => Promise<void> {
  const { config, logger, uow } = services;
  const holder = randomUUID();
  const held = new Set<string>();
  const running = new Set<string>();

  // Runs `work` if this process holds (or can take) the job's lease, never twice at once here.
  const leased = (name: string, work: () => Promise<unknown>) => async () => {
    if (running.has(name)) return;
    running.add(name);
    try {
      const now = Date.now();
      const ttl = Math.max(LEASE_MS, 3 * intervalOf(name));
      if (!(await uow.stores.leases.acquire(name, holder, now, now + ttl))) {
        held.delete(name);
        return;
      }
      held.add(name);
      await work();
    } catch (err) {
      logger.error({ err, job: name }, 'background job failed');
    } finally {
      running.delete(name);
    }
  };
  const intervals = new Map<string, number>();
  const intervalOf = (name: string) => intervals.get(name) ?? SWEEP_MS;
  const timers: NodeJS.Timeout[] = [];
  const every = (name: string, ms: number, work: () => Promise<unknown>) => {
    intervals.set(name, ms);
    const run = leased(name, work);
    timers.push(setInterval(() => void run(), ms));
    return run;
  };

  every('expiry-sweep', SWEEP_MS, () => services.expirySweep.run());
  // Expired idempotency records and ended rate-limit windows.
  // Webhook delivery logs and delivered events are kept 30 days.
  every('housekeeping', HOUSEKEEPING_MS, () =>
    Promise.all([services.idempotency.purgeExpired(), services.rateLimiter.purge(), services.sessions.purgeIdle(), uow.stores.webhooks.purge(services.clock() - WEBHOOK_LOG_DAYS * 86_400_000)]),
  );
  const payouts = every('payouts', PAYOUT_RETRY_MS, () => services.payouts.sendPending());
  const mail = services.mail;
  if (mail) every('mail', MAIL_MS, () => mail.run());
  if (services.simulator && config.simulatorBlockSeconds > 0) {
    const simulator = services.simulator;
    every('simulated-blocks', config.simulatorBlockSeconds * 1000, () => simulator.tick());
  }
  // Each instance keeps its own pool stocked; claims are safe across instances. Topped up at start,
  // and whenever creates pause (a burst runs on what was derived before it).
  void services.addressPool.refill();
  const poolTimer = setInterval(() => {
    if (services.addressPool.idleFor(POOL_IDLE_MS)) void services.addressPool.refill();
  }, POOL_IDLE_MS);
  timers.push(poolTimer);
  void payouts();
  // Ethereum payments swept to the payout address, above the configured thresholds.
  const ethereum = services.ethereum;
  if (ethereum && config.ethereum && config.ethereum.sweepSeconds > 0) {
    const { sweepMinEth, sweepMinToken } = config.ethereum;
    const thresholds = {
      ether: parseUnits(sweepMinEth, 18),
      token: (contract: string) => parseUnits(sweepMinToken, ethereum.tokens.get(contract)?.decimals ?? 18),
    };
    every('ethereum-sweep', config.ethereum.sweepSeconds * 1000, () => ethereum.sweeper.sweep(thresholds));
  }
  // Every instance follows each node (a block's events are applied once, under the payment's lock).
  for (const follower of services.followers.values()) follower.follow();
  // Every instance delivers webhooks; each endpoint is claimed by one instance at a time.
  const stopDispatcher = services.dispatcher.start();
  // Every instance keeps its own rate book fresh (no lease: any instance's quotes will do).
  const stopRates = services.rateBook.startRefreshing();
  return async () => {
    for (const timer of timers) clearInterval(timer);
    for (const follower of services.followers.values()) follower.close();
    await stopRates();
    await stopDispatcher();
    for (const name of held) await uow.stores.leases.release(name, holder).catch(() => {});
  };
}
