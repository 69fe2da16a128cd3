/** SQL for dashboard users and the failed sign-ins counted per e-mail. */
import type { Sql } from '../db/database.ts';

/** A dashboard user's role: an owner changes things, a viewer only reads. */
export type UserRole = 'owner' | 'viewer';

/** A dashboard user as stored (the hash never leaves the users module). */
export interface DashboardUser {
  id: string;
  merchantId: string;
  email: string;
  role: UserRole;
  createdAt: number;
}

interface UserRow {
  id: string;
  merchant_id: string;
  email: string;
  role: UserRole;
  password_hash: string;
  created_at: number;
}

function toUser(row: UserRow): DashboardUser {
  return { id: row.id, merchantId: row.merchant_id, email: row.email, role: row.role, createdAt: Number(row.created_at) };
}

const RECORD_FAILURE = `INSERT INTO dashboard_sign_in_failures (email_hash, window_start, failures) VALUES (@emailHash, @now, 1)
  ON CONFLICT (email_hash) DO UPDATE SET
    failures = CASE WHEN dashboard_sign_in_failures.window_start <= @windowFloor THEN 1 ELSE dashboard_sign_in_failures.failures + 1 END,
    window_start = CASE WHEN dashboard_sign_in_failures.window_start <= @windowFloor THEN @now ELSE dashboard_sign_in_failures.window_start END`;

/** SQL for dashboard users. */
export class UserStore {
  constructor(private readonly sql: Sql) {}

  /** Stores a new user. */
  async insert(user: DashboardUser & { passwordHash: string }): Promise<void> {
    await this.sql.run('INSERT INTO dashboard_users (id, merchant_id, email, role, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
      user.id,
      user.merchantId,
      user.email,
      user.role,
      user.passwordHash,
      user.createdAt,
    ]);
  }

  /** A user by (lower-cased) e-mail, with the password hash. */
  async findByEmail(email: string): Promise<(DashboardUser & { passwordHash: string }) | undefined> {
    const row = await this.sql.get<UserRow>('SELECT * FROM dashboard_users WHERE email = ?', [email]);
    return row && { ...toUser(row), passwordHash: row.password_hash };
  }

  /** A user by id. */
  async findById(id: string): Promise<DashboardUser | undefined> {
    const row = await this.sql.get<UserRow>('SELECT * FROM dashboard_users WHERE id = ?', [id]);
    return row && toUser(row);
  }

  /** A merchant's users, oldest first. */
  async listOf(merchantId: string): Promise<DashboardUser[]> {
    const rows = await this.sql.all<UserRow>('SELECT * FROM dashboard_users WHERE merchant_id = ? ORDER BY created_at, id', [merchantId]);
    return rows.map(toUser);
  }

  /** Replaces a user's password hash; true if the user exists. */
  async setPasswordHash(id: string, passwordHash: string): Promise<boolean> {
    return (await this.sql.run('UPDATE dashboard_users SET password_hash = ? WHERE id = ?', [passwordHash, id])) === 1;
  }

  /** Deletes a user (their sessions go with them); true if the user existed. */
  async delete(id: string): Promise<boolean> {
    await this.sql.run('DELETE FROM dashboard_sessions WHERE user_id = ?', [id]);
    return (await this.sql.run('DELETE FROM dashboard_users WHERE id = ?', [id])) === 1;
  }

  /** Failed sign-ins for an e-mail in the window that began after `windowFloor`, if any. */
  async failures(emailHash: string, windowFloor: number): Promise<{ failures: number; windowStart: number } | undefined> {
    const row = await this.sql.get<{ failures: number; window_start: number }>(
      'SELECT failures, window_start FROM dashboard_sign_in_failures WHERE email_hash = ? AND window_start > ?',
      [emailHash, windowFloor],
    );
    return row && { failures: Number(row.failures), windowStart: Number(row.window_start) };
  }

  /**
   * Counts a sign-in attempt as failed until it succeeds; a window that began at or before
   * `windowFloor` starts over at `now`. Returns the count with this one, in one statement: of
   * attempts made at once, each gets its own number.
   */
  async recordFailure(emailHash: string, now: number, windowFloor: number): Promise<{ failures: number; windowStart: number }> {
    const row = (await this.sql.get<{ failures: number; window_start: number }>(`${RECORD_FAILURE} RETURNING failures, window_start`, { emailHash, now, windowFloor }))!;
    return { failures: Number(row.failures), windowStart: Number(row.window_start) };
  }

  /** Takes back one counted attempt whose password was never checked. */
  async forgetAttempt(emailHash: string): Promise<void> {
    await this.sql.run('UPDATE dashboard_sign_in_failures SET failures = failures - 1 WHERE email_hash = ? AND failures > 0', [emailHash]);
  }

  /** Forgets an e-mail's failures (a successful sign-in). */
  async clearFailures(emailHash: string): Promise<void> {
    await this.sql.run('DELETE FROM dashboard_sign_in_failures WHERE email_hash = ?', [emailHash]);
  }
}
