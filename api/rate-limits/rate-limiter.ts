/**
 * @module Fixed one-minute windows of requests per client (an API key, or a client address). On
 * SQLite (one process) they are counted in memory. On PostgreSQL every instance counts in memory
 * too, against hits it claimed from the shared count of the window (`claim-ledger.ts`): the claims
 * of all instances go out together in one statement, when a bucket runs low and at a tick, never one
 * per request, and a request that finds its answer in memory awaits nothing.
 */
import { createClaimLedger, NEEDS_CLAIM, type PlannedRow } from './claim-ledger.ts';
import type { RateLimitResult } from './rate-limit-result.ts';
import { windowKey } from './rate-limit.store.ts';
import type { Clock } from '../shared/clock.ts';
import type { Logger } from '../shared/logger.ts';
import type { UnitOfWork } from '../unit-of-work.ts';

export type { RateLimitResult } from './rate-limit-result.ts';

const WINDOW_MS = 60_000;
// In-memory windows kept at most; the oldest go first (a flood of addresses cannot grow it).
const MEMORY_BUCKETS = 100_000;
// Claims of buckets running low, hits given back, unbacked hits: sent this often at most, when there are any.
const TICK_MS = 250;
// A request waits for at most this many claims before it is refused (each one brings the row to the limit or grants).
const MAX_CLAIM_ROUNDS = 8;
// A database that hangs rather than refuses: a request waits this long for a claim, then is decided
// from this instance's own count (its hit is added to the row later, like those of an outage).
const CLAIM_WAIT_MS = 2_000;

/** Creates the limiter; `shared` (PostgreSQL) reconciles claims with the database, else counts in memory alone. */
export function createRateLimiter(deps: { uow: UnitOfWork; clock: Clock; logger: Logger }) {
  const { uow, clock, logger } = deps;
  const memory = new Map<string, { windowStart: number; hits: number }>();
  const ledger = createClaimLedger();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let closed = false;

  function hitInMemory(bucket: string, limit: number, now: number): RateLimitResult {
    const windowStart = now - (now % WINDOW_MS);
    const entry = memory.get(bucket);
    let hits = 1;
    if (entry && entry.windowStart === windowStart) hits = ++entry.hits;
    else {
      memory.delete(bucket);
      if (memory.size >= MEMORY_BUCKETS) memory.delete(memory.keys().next().value!);
      memory.set(bucket, { windowStart, hits: 1 });
    }
    return { allowed: hits <= limit, remaining: Math.max(0, limit - hits), resetSeconds: Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000)) };
  }

  // One statement for everything the ledger has to send; a failure leaves the ledger offline (it
  // decides from memory) and is logged once, until a statement goes through again.
  async function reconcile(final = false): Promise<void> {
    const rows: PlannedRow[] = ledger.plan(clock(), final);
    if (rows.length === 0) return;
    const wasOffline = ledger.offline;
    try {
      const counts = await uow.stores.rateLimits.reconcile(rows);
      ledger.settle(rows, (row) => counts.get(windowKey(row.bucket, row.windowStart)) ?? 0);
      if (wasOffline) logger.info('rate-limit counts reach the database again');
    } catch (err) {
      ledger.fail(rows);
      if (!wasOffline) logger.warn({ err }, 'rate-limit counts cannot reach the database: this instance limits on its own counts until they can');
    }
  }

  // The next statement, after the one running (requests arriving meanwhile join it).
  function reconcileSoon(): Promise<void> {
    if (queued) return queued;
    const start = (): Promise<void> => {
      queued = undefined;
      running = reconcile().finally(() => {
        running = undefined;
        schedule();
      });
      return running;
    };
    queued = (running ?? new Promise<void>((resolve) => setImmediate(resolve))).then(start, start);
    return queued;
  }

  // A tick only while something waits to be sent: an idle instance writes nothing and runs no timer.
  function schedule(): void {
    if (closed || !ledger.pending) return;
    if (ledger.urgent) {
      void reconcileSoon();
      return;
    }
    if (timer || queued) return;
    timer = setTimeout(() => {
      timer = undefined;
      void reconcileSoon();
    }, TICK_MS);
    timer.unref();
  }

  async function hitShared(bucket: string, limit: number): Promise<RateLimitResult> {
    for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
      let wait: NodeJS.Timeout | undefined;
      const claimed = await Promise.race([reconcileSoon().then(() => true), new Promise<false>((resolve) => (wait = setTimeout(resolve, CLAIM_WAIT_MS, false)))]);
      clearTimeout(wait);
      const answer = ledger.decide(bucket, limit, clock(), !claimed);
      if (answer !== NEEDS_CLAIM) {
        schedule();
        return answer;
      }
    }
    const now = clock();
    return { allowed: false, remaining: 0, resetSeconds: Math.max(1, Math.ceil((now - (now % WINDOW_MS) + WINDOW_MS - now) / 1000)) };
  }

  return {
    /**
     * Counts a request in `bucket` against `limit` per minute. The answer is immediate unless this
     * instance must first claim hits from the shared count (PostgreSQL): then it is a promise.
     */
    hit(bucket: string, limit: number): RateLimitResult | Promise<RateLimitResult> {
      if (!uow.shared || closed) return hitInMemory(bucket, limit, clock());
      const answer = ledger.decide(bucket, limit, clock());
      if (answer === NEEDS_CLAIM) return hitShared(bucket, limit);
      schedule();
      return answer;
    },

    /** Deletes ended windows from the database (background housekeeping). */
    async purge(): Promise<number> {
      if (!uow.shared) return 0;
      const now = clock();
      return uow.stores.rateLimits.purgeBefore(now - (now % WINDOW_MS) - WINDOW_MS);
    },

    /** Stops the ticks and gives back the hits this instance holds (one statement, if any). */
    async close(): Promise<void> {
      closed = true;
      clearTimeout(timer);
      await queued;
      await running;
      if (uow.shared) await reconcile(true);
    },
  };
}

/** The rate limiter. */
export type RateLimiter = ReturnType<typeof createRateLimiter>;
