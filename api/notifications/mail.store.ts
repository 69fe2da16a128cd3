/** SQL for the mail outbox: messages written with the change they tell of, sent once by the mail job. */
import type { Sql } from '../db/database.ts';

/** A message waiting to go out (or sent). */
export interface MailMessage {
  /** One per event (`receipt:<payment id>`, `refund-claim:<refund id>`…): the same event never queues twice. */
  id: string;
  recipient: string;
  subject: string;
  textBody: string;
  htmlBody: string;
  kind: string;
  createdAt: number;
  attempts: number;
  nextAttemptAt: number;
}

interface MailRow {
  id: string;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string;
  kind: string;
  created_at: number;
  attempts: number;
  next_attempt_at: number;
}

const toMessage = (row: MailRow): MailMessage => ({
  id: row.id,
  recipient: row.recipient,
  subject: row.subject,
  textBody: row.text_body,
  htmlBody: row.html_body,
  kind: row.kind,
  createdAt: Number(row.created_at),
  attempts: Number(row.attempts),
  nextAttemptAt: Number(row.next_attempt_at),
});

/** The next attempt of a message given up: never. */
export const MAIL_GIVEN_UP = Number.MAX_SAFE_INTEGER;

/** SQL for the mail outbox, on the database or inside one transaction. */
export class MailStore {
  constructor(private readonly sql: Sql) {}

  /** Queues a message; one already queued under its id stays as it is. */
  async queue(message: Omit<MailMessage, 'attempts' | 'nextAttemptAt'>): Promise<void> {
    await this.sql.run(
      `INSERT INTO mail_outbox (id, recipient, subject, text_body, html_body, kind, created_at, attempts, next_attempt_at)
       VALUES (@id, @recipient, @subject, @textBody, @htmlBody, @kind, @createdAt, 0, @createdAt) ON CONFLICT (id) DO NOTHING`,
      message,
    );
  }

  /** Messages due at `now`, oldest first. */
  async due(now: number, limit: number): Promise<MailMessage[]> {
    const rows = await this.sql.all<MailRow>('SELECT * FROM mail_outbox WHERE sent_at IS NULL AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?', [now, limit]);
    return rows.map(toMessage);
  }

  /** Takes a due message for one attempt (until `until`); false when another instance took it first. */
  async claim(id: string, now: number, until: number): Promise<boolean> {
    return (await this.sql.run('UPDATE mail_outbox SET next_attempt_at = ? WHERE id = ? AND sent_at IS NULL AND next_attempt_at <= ?', [until, id, now])) === 1;
  }

  /** Records a message as sent. */
  async markSent(id: string, at: number): Promise<void> {
    // The bodies go once sent: a refund's claim link is a bearer credential, and a copied database
    // or backup must not hold it (claim-tokens.ts stores none); the subject says what was sent.
    await this.sql.run("UPDATE mail_outbox SET sent_at = ?, attempts = attempts + 1, last_error = NULL, text_body = '', html_body = '' WHERE id = ?", [at, id]);
  }

  /** Records a failed attempt and when to try again. */
  async markFailed(id: string, nextAttemptAt: number, error: string): Promise<void> {
    await this.sql.run('UPDATE mail_outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ?', [nextAttemptAt, error.slice(0, 500), id]);
  }

  /**
   * Gives a message up: never due again (its next attempt at the largest safe time), its bodies
   * dropped as for one sent, the reason kept.
   */
  async giveUp(id: string, error: string): Promise<void> {
    await this.sql.run("UPDATE mail_outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ?, text_body = '', html_body = '' WHERE id = ?", [
      MAIL_GIVEN_UP,
      error.slice(0, 500),
      id,
    ]);
  }

  /** A message by id, with whether it went out (tests and the operator's look). */
  async find(id: string): Promise<(MailMessage & { sentAt: number | null; lastError: string | null }) | undefined> {
    const row = await this.sql.get<MailRow & { sent_at: number | null; last_error: string | null }>('SELECT * FROM mail_outbox WHERE id = ?', [id]);
    return row && { ...toMessage(row), sentAt: row.sent_at === null ? null : Number(row.sent_at), lastError: row.last_error };
  }
}
