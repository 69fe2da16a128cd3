/**
 * @module The webhook dispatcher: delivers what the outbox queued. Every instance runs one; to send
 * to an endpoint an instance first claims it (a conditional update on the endpoint's row, renewed
 * before each attempt), so across instances each attempt is made once and an endpoint's events go
 * out one at a time, in the order they happened. A failed attempt is retried on Standard Webhooks'
 * schedule for more than three days, with the same `webhook-id`; the endpoint's later events wait
 * for it through its first attempts (webhook.store.ts: HELD_BEHIND); a 410 disables the endpoint.
 *
 * Fairness: an endpoint's turn (up to EVENTS_PER_TURN events, ended by its first failed attempt)
 * holds one of the instance's delivery slots, and one merchant's endpoints hold at most
 * SLOTS_PER_MERCHANT of them. A slot is given back, and the next due endpoint started, as each turn
 * ends: endpoints that never answer cost their own merchant's slots, not everyone's.
 */
import { randomUUID } from 'node:crypto';
import { DatabaseUnavailable } from '../db/database.ts';
import type { Clock } from '../shared/clock.ts';
import { InvalidState, NotFound } from '../shared/errors.ts';
import type { Logger } from '../shared/logger.ts';
import type { UnitOfWork } from '../unit-of-work.ts';
import type { WebhookSecrets } from './webhook-secrets.ts';
import { createDeliverySlots, PARALLEL_ENDPOINTS, SLOTS_PER_MERCHANT } from './delivery-slots.ts';
import { type SendOptions, type SendOutcome, sendWebhook } from './webhook-sender.ts';
import type { DueDelivery, WebhookAttempt, WebhookEndpoint } from './webhook.store.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/**
 * The wait after each failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then 10 h six more
 * times. Thirteen attempts over about 77.6 hours; then the delivery is given up (the log shows it
 * and `redeliver` can still send it).
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, ...Array<number>(7).fill(10 * HOUR)];
/** Events sent to one endpoint per turn, before others get theirs. */
const EVENTS_PER_TURN = 50;
const POLL_MS = 500;
const NUDGE_MS = 20;
/** How often a redelivery waiting for its endpoint tries to claim it. */
const REDELIVERY_CLAIM_EVERY_MS = 50;

/** What the dispatcher needs. */
export interface WebhookDispatcherDeps {
  uow: UnitOfWork;
  clock: Clock;
  logger: Logger;
  secrets: WebhookSecrets;
  send: SendOptions;
  /** The HTTP call (a test may count or slow it). */
  post?: typeof sendWebhook;
}

/** Creates the dispatcher. */
export function createWebhookDispatcher(deps: WebhookDispatcherDeps) {
  const { uow, clock, logger, secrets } = deps;
  const post = deps.post ?? sendWebhook;
  const holder = randomUUID();
  // Long enough for one attempt and its bookkeeping; renewed before each attempt.
  const claimMs = 2 * deps.send.timeoutMs + 5 * SECOND;

  /** Sends one event to an endpoint and records the attempt; returns it with the outcome. */
  async function attempt(endpoint: WebhookEndpoint, event: { id: string; type: string; body: string }, number: number): Promise<{ record: WebhookAttempt; outcome: SendOutcome }> {
    const outcome = await post(endpoint.url, { id: event.id, body: event.body, secret: secrets.open(endpoint) }, deps.send);
    const record: WebhookAttempt = {
      id: randomUUID(),
      endpointId: endpoint.id,
      eventId: event.id,
      type: event.type,
      attempt: number,
      statusCode: outcome.statusCode,
      durationMs: outcome.durationMs,
      error: outcome.error,
      createdAt: clock(),
    };
    return { record, outcome };
  }

  // Sends one due event and settles it; true if the endpoint acknowledged it. Redeliveries take
  // attempt numbers too, but not steps of the schedule.
  async function deliver(endpoint: WebhookEndpoint, due: DueDelivery): Promise<boolean> {
    const { record, outcome } = await attempt(endpoint, { id: due.eventId, type: due.type, body: due.body }, due.attempts + due.redeliveries + 1);
    const now = clock();
    const attempts = due.attempts + 1;
    await uow.transaction(async (stores) => {
      await stores.webhooks.insertAttempt(record);
      if (outcome.error === null) {
        await stores.webhooks.settleDelivery(due.seq, { state: 'delivered', attempts, nextAttemptAt: now, at: now });
        return;
      }
      const wait = RETRY_SCHEDULE_MS[attempts - 1];
      await stores.webhooks.settleDelivery(due.seq, wait === undefined ? { state: 'failed', attempts, nextAttemptAt: now, at: now } : { state: 'pending', attempts, nextAttemptAt: now + wait, at: now });
      if (outcome.statusCode === 410) await stores.webhooks.disable(endpoint.id, `the endpoint answered 410 Gone at ${new Date(now).toISOString()}; nothing more is sent to it`, now);
    });
    if (outcome.error !== null) logger.warn({ endpointId: endpoint.id, eventId: due.eventId, attempt: attempts, error: outcome.error }, 'webhook delivery failed');
    return outcome.error === null;
  }

  // Endpoints a redelivery of this instance waits for (how many wait): a turn gives them up
  // between two events, so a merchant's redelivery does not wait behind a whole backlog.
  const redeliveriesWaiting = new Map<string, number>();

  // Sends the endpoint's due events in order while this instance holds it; a failure ends the turn
  // (an endpoint that does not answer holds its slot for one deadline, not one per queued event),
  // and so does a redelivery waiting for the endpoint (the next poll starts a turn again).
  async function drain(endpointId: string): Promise<number> {
    let sent = 0;
    try {
      while (sent < EVENTS_PER_TURN && !redeliveriesWaiting.has(endpointId)) {
        const now = clock();
        if (!(await uow.stores.webhooks.claimEndpoint(endpointId, holder, now, now + claimMs))) break;
        const endpoint = await uow.stores.webhooks.findEndpoint(endpointId);
        const due = endpoint && (await uow.stores.webhooks.nextDue(endpointId, now));
        if (!endpoint || !due) break;
        const delivered = await deliver(endpoint, due);
        sent += 1;
        if (!delivered) break;
      }
    } finally {
      await uow.stores.webhooks.releaseEndpoint(endpointId, holder).catch(() => {});
    }
    return sent;
  }

  const slots = createDeliverySlots();
  // Each turn under way, resolving to what failed it (undefined when it ended normally).
  const turns = new Set<Promise<unknown>>();
  let attempts = 0;
  let stopping = false;
  let quietUntil = 0;
  // A database outage fails every poll the same way: said once a minute, not twice a second.
  const report = (err: unknown) => {
    if (err instanceof DatabaseUnavailable) {
      if (Date.now() < quietUntil) return;
      quietUntil = Date.now() + 60_000;
      logger.warn({ cause: err.message }, 'webhook dispatch waits for the database; events stay queued');
      return;
    }
    logger.error({ err }, 'webhook dispatch failed; it will be retried');
  };

  // Starts an endpoint's turn in a free slot; when it ends the slot goes to the next due endpoint
  // (after a turn that failed, the next poll fills it: an endpoint that breaks each turn is not
  // taken again and again at once).
  function begin(endpointId: string, merchantId: string): void {
    if (!slots.take(endpointId, merchantId)) return;
    const turn: Promise<unknown> = drain(endpointId).then(
      (sent) => {
        attempts += sent;
        return undefined;
      },
      (err: unknown) => {
        report(err);
        return err ?? new Error('a webhook turn failed');
      },
    );
    turns.add(turn);
    void turn.then((failure) => {
      slots.give(endpointId);
      turns.delete(turn);
      if (!stopping && failure === undefined) fill().catch(report);
    });
  }

  // Fills the free slots with due endpoints, in turn across merchants; one query at a time, again if asked meanwhile.
  let filling: Promise<void> | undefined;
  let refill = false;
  function fill(): Promise<void> {
    if (filling) {
      refill = true;
      return filling;
    }
    filling = (async () => {
      try {
        do {
          refill = false;
          if (slots.free() === 0) break;
          const due = await uow.stores.webhooks.endpointsWithDue(clock(), { perMerchant: SLOTS_PER_MERCHANT, limit: 4 * PARALLEL_ENDPOINTS });
          // Not one a redelivery of this instance waits for: it is about to claim it.
          for (const { endpointId, merchantId } of due) if (!redeliveriesWaiting.has(endpointId)) begin(endpointId, merchantId);
        } while (refill);
      } finally {
        filling = undefined;
      }
    })();
    return filling;
  }

  let nudge: () => void = () => {};
  let nudged: NodeJS.Timeout | undefined;

  return {
    /**
     * Sends every event due now, each endpoint's in order, and whatever falls due meanwhile; resolves,
     * once nothing is due or being sent, to how many attempts were made meanwhile.
     */
    async run(): Promise<number> {
      const before = attempts;
      await fill();
      while (turns.size > 0) {
        const failure = (await Promise.all(turns)).find((outcome) => outcome !== undefined);
        if (failure !== undefined) throw failure;
        await fill();
      }
      return attempts - before;
    },

    /**
     * Sends one event again now, as a new attempt with the same webhook-id, while holding the
     * endpoint as a turn does (so it never races an attempt of the schedule). Accepted, it settles
     * the event's queued delivery; refused, the schedule stays as it was. While the endpoint is
     * being sent to it waits, up to one attempt's deadline, for the endpoint to be free: a turn of
     * this instance gives it up after its current attempt. Throws `InvalidState` if the endpoint is
     * still busy then (another instance's turn), `NotFound` if it or the event's delivery is gone.
     */
    async redeliver(endpoint: WebhookEndpoint, event: { id: string; type: string; body: string }): Promise<WebhookAttempt> {
      // A claim of its own, not the instance's: a turn of this instance holding the endpoint must refuse it too.
      const redelivery = randomUUID();
      const claim = () => {
        const now = clock();
        return uow.stores.webhooks.claimEndpoint(endpoint.id, redelivery, now, now + claimMs, { evenDisabled: true });
      };
      let claimed = await claim();
      // Waits while the endpoint is there (a deletion meanwhile ends the wait: NotFound below).
      if (!claimed && (await uow.stores.webhooks.findEndpoint(endpoint.id))) {
        redeliveriesWaiting.set(endpoint.id, (redeliveriesWaiting.get(endpoint.id) ?? 0) + 1);
        try {
          const until = Date.now() + deps.send.timeoutMs + SECOND;
          while (!claimed && Date.now() < until) {
            await new Promise((resolve) => setTimeout(resolve, REDELIVERY_CLAIM_EVERY_MS));
            claimed = await claim();
            if (!claimed && !(await uow.stores.webhooks.findEndpoint(endpoint.id))) break;
          }
        } finally {
          const left = redeliveriesWaiting.get(endpoint.id)! - 1;
          if (left === 0) redeliveriesWaiting.delete(endpoint.id);
          else redeliveriesWaiting.set(endpoint.id, left);
        }
      }
      try {
        // Read again under the claim: a turn may have disabled it (410) since the caller read it.
        const current = await uow.stores.webhooks.findEndpoint(endpoint.id);
        if (!current) throw new NotFound('webhook-not-found', `No webhook endpoint with id "${endpoint.id}" exists for this merchant.`);
        if (!claimed) throw new InvalidState('invalid-state', 'An event is being sent to this webhook endpoint right now; redeliver again in a few seconds.');
        const queued = await uow.stores.webhooks.queuedDelivery(current.id, event.id);
        if (!queued) throw new NotFound('delivery-not-found', `No delivery of event "${event.id}" exists for this webhook endpoint.`);
        const { record, outcome } = await attempt(current, event, queued.attempts + queued.redeliveries + 1);
        await uow.transaction(async (stores) => {
          await stores.webhooks.insertAttempt(record);
          await stores.webhooks.settleRedelivery(queued.seq, { delivered: outcome.error === null, at: clock() });
          // An endpoint disabled by a 410 that accepts a redelivery is back in service.
          if (outcome.error === null && current.disabledAt !== null) await stores.webhooks.enable(current.id);
        });
        return record;
      } finally {
        if (claimed) {
          await uow.stores.webhooks.releaseEndpoint(endpoint.id, redelivery).catch(() => {});
          // A turn may have given the endpoint up for this redelivery: its due events go on now.
          nudge();
        }
      }
    },

    /** Polls for due events until the returned function is called (which waits for the turns under way). */
    start(): () => Promise<void> {
      stopping = false;
      const tick = () => void fill().catch(report);
      const timer = setInterval(tick, POLL_MS);
      // Events queued here go out as soon as their transaction has had time to commit.
      nudge = () => {
        if (nudged) return;
        nudged = setTimeout(() => {
          nudged = undefined;
          tick();
        }, NUDGE_MS);
      };
      tick();
      return async () => {
        stopping = true;
        clearInterval(timer);
        clearTimeout(nudged);
        nudge = () => {};
        await filling?.catch(() => {});
        while (turns.size > 0) await Promise.all(turns);
      };
    },

    /** Says events were queued in this process: a started dispatcher runs shortly, without waiting for its poll. */
    nudge(): void {
      nudge();
    },
  };
}

/** The webhook dispatcher. */
export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
