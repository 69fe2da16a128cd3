/** SQL for job leases: which process does a background job, until when. */
import type { Sql } from '../db/database.ts';

/** SQL for job leases, on the database or inside one transaction. */
export class JobLeaseStore {
  constructor(private readonly sql: Sql) {}

  /**
   * Takes or renews the lease on a job for `holder` until `expiresAt`; true if `holder` now holds
   * it. A lease held by another is taken only once it has expired. One statement each way, so two
   * processes racing for a free lease cannot both win.
   */
  async acquire(name: string, holder: string, now: number, expiresAt: number): Promise<boolean> {
    await this.sql.run('INSERT INTO job_leases (name, holder, expires_at) VALUES (?, ?, 0) ON CONFLICT DO NOTHING', [name, holder]);
    const changes = await this.sql.run('UPDATE job_leases SET holder = ?, expires_at = ? WHERE name = ? AND (holder = ? OR expires_at <= ?)', [holder, expiresAt, name, holder, now]);
    return changes === 1;
  }

  /** Gives a lease up, so another process can take the job at once. */
  async release(name: string, holder: string): Promise<void> {
    await this.sql.run('UPDATE job_leases SET expires_at = 0 WHERE name = ? AND holder = ?', [name, holder]);
  }
}
