/**
 * @module Fixed one-minute windows of requests per client (an API key, or a client address). On
 * PostgreSQL the count lives in the database, so a limit holds across every instance; on SQLite
 * (one process) it is kept in memory, which costs no write per request.
 */
import type { Clock } from '../shared/clock.ts';
import type { UnitOfWork } from '../unit-of-work.ts';

const WINDOW_MS = 60_000;
// In-memory windows kept at most; the oldest go first (a flood of addresses cannot grow it).
const MEMORY_BUCKETS = 100_000;

/** A request counted against a limit. */
export interface RateLimitResult {
  allowed: boolean;
  /** Requests left in this window after this one. */
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** Creates the limiter; `shared` counts in the database (several instances), else in memory. */
export function createRateLimiter(deps: { uow: UnitOfWork; clock: Clock }) {
  const { uow, clock } = deps;
  const memory = new Map<string, { windowStart: number; hits: number }>();

  function hitInMemory(bucket: string, windowStart: number): number {
    const entry = memory.get(bucket);
    if (entry && entry.windowStart === windowStart) return ++entry.hits;
    memory.delete(bucket);
    if (memory.size >= MEMORY_BUCKETS) memory.delete(memory.keys().next().value!);
    memory.set(bucket, { windowStart, hits: 1 });
    return 1;
  }

  return {
    /** Counts a request in `bucket` against `limit` per minute. */
    async hit(bucket: string, limit: number): Promise<RateLimitResult> {
      const now = clock();
      const windowStart = now - (now % WINDOW_MS);
      const hits = uow.shared ? await uow.stores.rateLimits.hit(bucket, windowStart) : hitInMemory(bucket, windowStart);
      return { allowed: hits <= limit, remaining: Math.max(0, limit - hits), resetSeconds: Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000)) };
    },

    /** Deletes ended windows from the database (background housekeeping). */
    async purge(): Promise<number> {
      if (!uow.shared) return 0;
      const now = clock();
      return uow.stores.rateLimits.purgeBefore(now - (now % WINDOW_MS) - WINDOW_MS);
    },
  };
}

/** The rate limiter. */
export type RateLimiter = ReturnType<typeof createRateLimiter>;
