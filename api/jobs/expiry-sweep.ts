/**
 * @module The expiry sweep: stores EXPIRED on OPEN payments past their expiry and tells their live
 * viewers. Reads never depend on it (an OPEN payment past `expiresAt` is reported EXPIRED anyway);
 * it keeps stored statuses and status filters cheap. Safe to run twice or in two instances at once:
 * the update changes each row once.
 */
import type { PaymentEvents } from '../checkout/payment-events.ts';
import type { Clock } from '../shared/clock.ts';
import type { UnitOfWork } from '../unit-of-work.ts';

/** Creates the sweep. */
export function createExpirySweep(deps: { uow: UnitOfWork; clock: Clock; events: PaymentEvents }) {
  const { uow, clock, events } = deps;
  return {
    /** Expires every overdue payment; returns how many it expired. */
    async run(): Promise<number> {
      const expired = await uow.stores.payments.expireDue(clock());
      for (const id of expired) await events.changed(id);
      return expired.length;
    },
  };
}

/** The expiry sweep. */
export type ExpirySweep = ReturnType<typeof createExpirySweep>;
