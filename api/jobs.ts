/** Background work of a running service: expiry sweeps, simulated blocks, address pool, payouts. */
import type { Services } from './services.ts';

const SWEEP_MS = 1_000;
const PAYOUT_RETRY_MS = 30_000;

/** Starts the timers; the returned function stops them. */
export function startJobs(services: Services): () => void {
  const { config, logger } = services;
  const guard = (name: string, work: () => unknown) => () => {
    try {
      const result = work();
      if (result instanceof Promise) result.catch((err: unknown) => logger.error({ err, job: name }, 'background job failed'));
    } catch (err) {
      logger.error({ err, job: name }, 'background job failed');
    }
  };
  const timers = [
    setInterval(guard('expiry-sweep', () => services.checkout.sweepExpired()), SWEEP_MS),
    setInterval(guard('payouts', () => services.withdrawals.sendPending()), PAYOUT_RETRY_MS),
  ];
  if (services.simulator && config.simulatorBlockSeconds > 0) {
    const simulator = services.simulator;
    timers.push(setInterval(guard('simulated-blocks', () => simulator.tick()), config.simulatorBlockSeconds * 1000));
  }
  guard('address-pool', () => services.addressPool.refill())();
  guard('payouts', () => services.withdrawals.sendPending())();
  return () => {
    for (const timer of timers) clearInterval(timer);
  };
}
