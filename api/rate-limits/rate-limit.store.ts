/** SQL for rate-limit counters shared by every instance on one database. */
import type { Sql } from '../db/database.ts';

const HIT = `INSERT INTO rate_limit_windows (bucket, window_start, hits) VALUES (?, ?, 1)
  ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_windows.hits + 1
  RETURNING hits`;

/** SQL for rate-limit windows. */
export class RateLimitStore {
  constructor(private readonly sql: Sql) {}

  /** Counts one request in a bucket's window; returns the window's count including it. */
  async hit(bucket: string, windowStart: number): Promise<number> {
    return Number((await this.sql.get<{ hits: number }>(HIT, [bucket, windowStart]))!.hits);
  }

  /** Deletes windows that ended before `before`; returns how many. */
  async purgeBefore(before: number): Promise<number> {
    return this.sql.run('DELETE FROM rate_limit_windows WHERE window_start < ?', [before]);
  }
}
