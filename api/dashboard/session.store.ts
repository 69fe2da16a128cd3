/** SQL for dashboard sessions: a cookie's hash, its user, its CSRF token and when it was last used. */
import type { Sql } from '../db/database.ts';
import type { UserRole } from '../users/user.store.ts';

/** A live session with the user it signs in. */
export interface SessionRecord {
  tokenHash: string;
  csrfToken: string;
  lastSeenAt: number;
  user: { id: string; merchantId: string; email: string; role: UserRole };
}

interface SessionRow {
  token_hash: string;
  csrf_token: string;
  last_seen_at: number;
  user_id: string;
  merchant_id: string;
  email: string;
  role: UserRole;
}

/** SQL for dashboard sessions. */
export class SessionStore {
  constructor(private readonly sql: Sql) {}

  /** Stores a new session. */
  async insert(session: { tokenHash: string; userId: string; csrfToken: string; now: number }): Promise<void> {
    await this.sql.run('INSERT INTO dashboard_sessions (token_hash, user_id, csrf_token, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)', [
      session.tokenHash,
      session.userId,
      session.csrfToken,
      session.now,
      session.now,
    ]);
  }

  /** The session a cookie's hash names, with its user, if it was last used after `idleFloor`. */
  async findLive(tokenHash: string, idleFloor: number): Promise<SessionRecord | undefined> {
    const row = await this.sql.get<SessionRow>(
      `SELECT s.token_hash, s.csrf_token, s.last_seen_at, u.id AS user_id, u.merchant_id, u.email, u.role
         FROM dashboard_sessions s JOIN dashboard_users u ON u.id = s.user_id
        WHERE s.token_hash = ? AND s.last_seen_at > ?`,
      [tokenHash, idleFloor],
    );
    return (
      row && {
        tokenHash: row.token_hash,
        csrfToken: row.csrf_token,
        lastSeenAt: Number(row.last_seen_at),
        user: { id: row.user_id, merchantId: row.merchant_id, email: row.email, role: row.role },
      }
    );
  }

  /** Marks a session used at `now`. */
  async touch(tokenHash: string, now: number): Promise<void> {
    await this.sql.run('UPDATE dashboard_sessions SET last_seen_at = ? WHERE token_hash = ?', [now, tokenHash]);
  }

  /** Ends one session. */
  async delete(tokenHash: string): Promise<void> {
    await this.sql.run('DELETE FROM dashboard_sessions WHERE token_hash = ?', [tokenHash]);
  }

  /** Ends every session of a user (a new password). */
  async deleteOfUser(userId: string): Promise<void> {
    await this.sql.run('DELETE FROM dashboard_sessions WHERE user_id = ?', [userId]);
  }

  /** Deletes sessions idle since `idleFloor` or before; returns how many. */
  async purgeIdle(idleFloor: number): Promise<number> {
    return this.sql.run('DELETE FROM dashboard_sessions WHERE last_seen_at <= ?', [idleFloor]);
  }
}
