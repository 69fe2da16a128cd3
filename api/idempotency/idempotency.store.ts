/** SQL for idempotency records: the first answer to a POST with an Idempotency-Key, per merchant and key. */
import type { Sql } from '../db/database.ts';

/** A key's record: running (no status yet) or answered. */
export interface IdempotencyRecord {
  requestHash: string;
  statusCode: number | null;
  responseBody: string | null;
  lockedUntil: number;
}

interface Row {
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
  locked_until: number;
}

const toRecord = (row: Row): IdempotencyRecord => ({
  requestHash: row.request_hash,
  statusCode: row.status_code === null ? null : Number(row.status_code),
  responseBody: row.response_body,
  lockedUntil: Number(row.locked_until),
});

// A new key, or one whose record expired, or one whose first attempt stopped answering (its
// process died): the caller takes it. Any other existing record is left alone, and nothing returns.
const CLAIM = `INSERT INTO idempotency_keys (merchant_id, key, request_hash, status_code, response_body, locked_until, created_at, expires_at)
  VALUES (@merchantId, @key, @requestHash, NULL, NULL, @lockedUntil, @now, @expiresAt)
  ON CONFLICT (merchant_id, key) DO UPDATE SET request_hash = excluded.request_hash, status_code = NULL, response_body = NULL,
    locked_until = excluded.locked_until, created_at = excluded.created_at, expires_at = excluded.expires_at
  WHERE idempotency_keys.expires_at <= @now OR (idempotency_keys.status_code IS NULL AND idempotency_keys.locked_until <= @now)
  RETURNING request_hash`;

/** SQL for idempotency records. */
export class IdempotencyStore {
  constructor(private readonly sql: Sql) {}

  /** Takes a key for a first attempt; false when a live record holds it (look it up with `find`). */
  async claim(merchantId: string, key: string, requestHash: string, now: number, lockedUntil: number, expiresAt: number): Promise<boolean> {
    return (await this.sql.get(CLAIM, { merchantId, key, requestHash, now, lockedUntil, expiresAt })) !== undefined;
  }

  /** The record of a key. */
  async find(merchantId: string, key: string): Promise<IdempotencyRecord | undefined> {
    const row = await this.sql.get<Row>('SELECT request_hash, status_code, response_body, locked_until FROM idempotency_keys WHERE merchant_id = ? AND key = ?', [merchantId, key]);
    return row && toRecord(row);
  }

  /** Stores the first attempt's answer, if this attempt still holds the key. */
  async complete(merchantId: string, key: string, requestHash: string, statusCode: number, responseBody: string): Promise<void> {
    await this.sql.run(
      'UPDATE idempotency_keys SET status_code = ?, response_body = ? WHERE merchant_id = ? AND key = ? AND request_hash = ? AND status_code IS NULL',
      [statusCode, responseBody, merchantId, key, requestHash],
    );
  }

  /** Gives a key back unanswered (the attempt failed in a way worth retrying), so it can be used again at once. */
  async release(merchantId: string, key: string, requestHash: string): Promise<void> {
    await this.sql.run('DELETE FROM idempotency_keys WHERE merchant_id = ? AND key = ? AND request_hash = ? AND status_code IS NULL', [merchantId, key, requestHash]);
  }

  /** Deletes records that expired; returns how many. */
  async purgeExpired(now: number): Promise<number> {
    return this.sql.run('DELETE FROM idempotency_keys WHERE expires_at <= ?', [now]);
  }
}
