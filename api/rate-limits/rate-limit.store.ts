/** SQL for rate-limit counters shared by every instance on one database. */
import type { Sql } from '../db/database.ts';

// One statement for a whole batch: rows with a delta are added to (in bucket order, so two instances
// lock shared rows in the same order), rows with none are only read. PostgreSQL only (arrays): on
// SQLite one process counts in memory.
const RECONCILE = `WITH input AS (
    SELECT * FROM unnest(?::text[], ?::bigint[], ?::bigint[]) AS input(bucket, window_start, delta)
  ), counted AS (
    INSERT INTO rate_limit_windows (bucket, window_start, hits)
    SELECT bucket, window_start, delta FROM input WHERE delta <> 0 ORDER BY bucket, window_start
    ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_windows.hits + excluded.hits
    RETURNING bucket, window_start, hits
  )
  SELECT bucket, window_start, hits FROM counted
  UNION ALL
  SELECT w.bucket, w.window_start, w.hits FROM rate_limit_windows w
    JOIN input ON input.bucket = w.bucket AND input.window_start = w.window_start AND input.delta = 0`;

/** A change to one bucket's window: `delta` hits added (0 only reads it). */
export interface WindowDelta {
  bucket: string;
  windowStart: number;
  delta: number;
}

/** SQL for rate-limit windows. */
export class RateLimitStore {
  constructor(private readonly sql: Sql) {}

  /** Adds each delta to its window's count in one statement; returns every window's count after it, keyed by `windowKey`. */
  async reconcile(rows: readonly WindowDelta[]): Promise<Map<string, number>> {
    const counts = await this.sql.all<{ bucket: string; window_start: number | string; hits: number | string }>(RECONCILE, [
      rows.map((row) => row.bucket),
      rows.map((row) => row.windowStart),
      rows.map((row) => row.delta),
    ]);
    return new Map(counts.map((row) => [windowKey(row.bucket, Number(row.window_start)), Number(row.hits)]));
  }

  /** Deletes windows that ended before `before`; returns how many. */
  async purgeBefore(before: number): Promise<number> {
    return this.sql.run('DELETE FROM rate_limit_windows WHERE window_start < ?', [before]);
  }
}

/** The key of one bucket's window in `reconcile`'s answer. */
export function windowKey(bucket: string, windowStart: number): string {
  return `${windowStart} ${bucket}`;
}
