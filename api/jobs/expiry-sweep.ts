/**
 * @module The expiry sweep: stores EXPIRED on OPEN payments past their expiry and tells their live
 * viewers. Reads never depend on it (an OPEN payment past `expiresAt` is reported EXPIRED anyway);
 * it keeps stored statuses and status filters cheap, and announces each expiry to webhooks. Safe to run twice or in two instances at once:
 * the update changes each row once.
 */
import type { PaymentEvents } from '../checkout/payment-events.ts';
import type { PaymentTransitions } from '../payments/payment-transitions.ts';
import type { Clock } from '../shared/clock.ts';
import type { UnitOfWork } from '../unit-of-work.ts';

/** Creates the sweep. */
export function createExpirySweep(deps: { uow: UnitOfWork; clock: Clock; events: PaymentEvents; transitions: PaymentTransitions }) {
  const { uow, clock, events, transitions } = deps;
  return {
    /** Expires every overdue payment; returns how many it expired. */
    async run(): Promise<number> {
      // The statuses and their webhook events commit together.
      const expired = await uow.transaction((stores) => transitions.expireDue(stores, clock()));
      for (const id of expired) await events.changed(id);
      return expired.length;
    },
  };
}

/** The expiry sweep. */
export type ExpirySweep = ReturnType<typeof createExpirySweep>;
