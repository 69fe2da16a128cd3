/** SQL for webhooks: endpoints, the event outbox, the delivery queue and the attempt log. */
import type { Sql } from '../db/database.ts';

/** Failed attempts after which an event stops holding its endpoint's later events back. */
export const HOLDS_BACK_FOR_ATTEMPTS = 3;

/**
 * The condition that holds delivery `d` back: an earlier event for the same endpoint still queued
 * that has failed, fewer than HOLDS_BACK_FOR_ATTEMPTS times (with the retry schedule, its first
 * five minutes or so). One not tried yet holds nothing: it goes first when due, and one stamped a
 * moment ahead of this instance's clock (another instance's) must not stall the queue meanwhile. Events go in order through a brief failure; an event the endpoint keeps
 * refusing (a handler's bug on one kind of event) then retries on its own schedule instead of
 * holding the endpoint's every later event, `payment.completed` included, for days. The probe
 * walks the pending (endpoint, seq) index from the oldest and stops at the first such event.
 */
const HELD_BEHIND = `SELECT 1 FROM webhook_deliveries h WHERE h.endpoint_id = d.endpoint_id AND h.state = 'pending' AND h.seq < d.seq AND h.attempts > 0 AND h.attempts < ${HOLDS_BACK_FOR_ATTEMPTS}`;

/** A merchant's webhook endpoint as stored. */
export interface WebhookEndpoint {
  id: string;
  merchantId: string;
  url: string;
  /** The event types it receives; null for all. */
  events: string[] | null;
  secretSealed: string;
  createdAt: number;
  disabledAt: number | null;
  disabledReason: string | null;
}

/** An event owed to an endpoint, with what sending it needs. */
export interface DueDelivery {
  seq: number;
  endpointId: string;
  eventId: string;
  type: string;
  body: string;
  /** Attempts on the retry schedule so far (what the next wait depends on). */
  attempts: number;
  /** Redeliveries asked for by the merchant so far (numbered among the attempts, off the schedule). */
  redeliveries: number;
}

/** Where an event owed to an endpoint stands. */
export interface QueuedDelivery {
  seq: number;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  redeliveries: number;
}

/** One attempt to send an event, as the delivery log shows it. */
export interface WebhookAttempt {
  id: string;
  endpointId: string;
  eventId: string;
  type: string;
  attempt: number;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  createdAt: number;
}

interface EndpointRow {
  id: string;
  merchant_id: string;
  url: string;
  events: string | null;
  secret_enc: string;
  created_at: number;
  disabled_at: number | null;
  disabled_reason: string | null;
}

interface AttemptRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  type: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  created_at: number;
}

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    url: row.url,
    events: row.events === null ? null : (JSON.parse(row.events) as string[]),
    secretSealed: row.secret_enc,
    createdAt: Number(row.created_at),
    disabledAt: row.disabled_at === null ? null : Number(row.disabled_at),
    disabledReason: row.disabled_reason,
  };
}

function toAttempt(row: AttemptRow): WebhookAttempt {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    type: row.type,
    attempt: Number(row.attempt),
    statusCode: row.status_code === null ? null : Number(row.status_code),
    durationMs: Number(row.duration_ms),
    error: row.error,
    createdAt: Number(row.created_at),
  };
}

const ENDPOINT_COLUMNS = 'id, merchant_id, url, events, secret_enc, created_at, disabled_at, disabled_reason';
const ATTEMPT_SELECT = `SELECT a.id, a.endpoint_id, a.event_id, e.type, a.attempt, a.status_code, a.duration_ms, a.error, a.created_at
  FROM webhook_attempts a JOIN webhook_events e ON e.id = a.event_id`;

/** SQL for webhooks, on the database or inside one transaction. */
export class WebhookStore {
  constructor(private readonly sql: Sql) {}

  /** Stores a new endpoint. */
  async insertEndpoint(endpoint: WebhookEndpoint): Promise<void> {
    await this.sql.run(
      'INSERT INTO webhook_endpoints (id, merchant_id, url, events, secret_enc, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      [endpoint.id, endpoint.merchantId, endpoint.url, endpoint.events === null ? null : JSON.stringify(endpoint.events), endpoint.secretSealed, endpoint.createdAt],
    );
  }

  /** A merchant's endpoints, oldest first. */
  async endpointsOf(merchantId: string): Promise<WebhookEndpoint[]> {
    const rows = await this.sql.all<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE merchant_id = ? ORDER BY created_at, id`, [merchantId]);
    return rows.map(toEndpoint);
  }

  /** The merchant's enabled endpoints (what an event is owed to). */
  async enabledEndpointsOf(merchantId: string): Promise<WebhookEndpoint[]> {
    const rows = await this.sql.all<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE merchant_id = ? AND disabled_at IS NULL ORDER BY created_at, id`, [merchantId]);
    return rows.map(toEndpoint);
  }

  /** One endpoint, whoever owns it. */
  async findEndpoint(id: string): Promise<WebhookEndpoint | undefined> {
    const row = await this.sql.get<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ?`, [id]);
    return row && toEndpoint(row);
  }

  /** Removes an endpoint with its queue and log (the events stay for other endpoints); true if it existed. */
  async deleteEndpoint(merchantId: string, id: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM webhook_endpoints WHERE id = ? AND merchant_id = ?', [id, merchantId])) === 1;
  }

  /** Disables an endpoint (it answered 410), saying why. */
  async disable(id: string, reason: string, at: number): Promise<void> {
    await this.sql.run('UPDATE webhook_endpoints SET disabled_at = ?, disabled_reason = ? WHERE id = ? AND disabled_at IS NULL', [at, reason, id]);
  }

  /** Enables an endpoint again (a redelivery it accepted). */
  async enable(id: string): Promise<void> {
    await this.sql.run('UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL WHERE id = ?', [id]);
  }

  /** Writes an event and queues it for each endpoint, due at once. */
  async insertEvent(event: { id: string; merchantId: string; subjectId: string | null; type: string; body: string; createdAt: number }, endpointIds: readonly string[]): Promise<void> {
    await this.sql.run('INSERT INTO webhook_events (id, merchant_id, subject_id, type, body, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
      event.id,
      event.merchantId,
      event.subjectId,
      event.type,
      event.body,
      event.createdAt,
    ]);
    // The endpoints were read earlier in the transaction; one deleted since (by another instance,
    // or the merchant) gets no delivery instead of failing the change the event announces. The
    // lock keeps one not yet deleted until the transaction ends: its delete then takes the new
    // deliveries with it.
    for (const endpointId of endpointIds) {
      await this.sql.run(
        `INSERT INTO webhook_deliveries (endpoint_id, event_id, state, attempts, next_attempt_at, updated_at)
         SELECT id, ?, 'pending', 0, ?, ? FROM webhook_endpoints WHERE id = ?${this.sql.dialect.forKeyShare}`,
        [event.id, event.createdAt, event.createdAt, endpointId],
      );
    }
  }

  /**
   * Enabled endpoints with a queued event due by `now` that nothing holds back (see HELD_BEHIND) and
   * nobody sending to them, taken in turn across
   * merchants (each merchant's first, then each one's second, ...), the longest waiting first. A
   * merchant whose endpoints are being sent to (by any instance) already gets that many fewer, and
   * none gets more than `perMerchant` in all; at most `limit` endpoints.
   */
  async endpointsWithDue(now: number, bounds: { perMerchant: number; limit: number }): Promise<{ endpointId: string; merchantId: string }[]> {
    const rows = await this.sql.all<{ endpoint_id: string; merchant_id: string }>(
      `WITH due AS (
         SELECT d.endpoint_id, d.next_attempt_at AS due_at FROM webhook_deliveries d
          WHERE d.state = 'pending' AND d.next_attempt_at <= ?
            AND NOT EXISTS (${HELD_BEHIND})
       ), busy AS (
         SELECT merchant_id, COUNT(*) AS held FROM webhook_endpoints WHERE locked_until > ? GROUP BY merchant_id
       ), ranked AS (
         SELECT w.id AS endpoint_id, w.merchant_id, due.due_at,
                ROW_NUMBER() OVER (PARTITION BY w.merchant_id ORDER BY due.due_at, w.id) + COALESCE(busy.held, 0) AS place
           FROM due JOIN webhook_endpoints w ON w.id = due.endpoint_id LEFT JOIN busy ON busy.merchant_id = w.merchant_id
          WHERE w.disabled_at IS NULL AND w.locked_until <= ?
       )
       SELECT endpoint_id, merchant_id FROM ranked WHERE place <= ? ORDER BY place, due_at, endpoint_id LIMIT ${Math.trunc(bounds.limit)}`,
      [now, now, now, Math.trunc(bounds.perMerchant)],
    );
    return rows.map((row) => ({ endpointId: row.endpoint_id, merchantId: row.merchant_id }));
  }

  /**
   * Takes (or renews) the right to send to an endpoint until `until`; true if `holder` has it. One
   * conditional update, so of two instances racing for an endpoint exactly one wins. A disabled
   * endpoint is claimed only `evenDisabled` (a redelivery, which may enable it again).
   */
  async claimEndpoint(id: string, holder: string, now: number, until: number, options: { evenDisabled?: boolean } = {}): Promise<boolean> {
    const changed = await this.sql.run(
      `UPDATE webhook_endpoints SET locked_by = ?, locked_until = ? WHERE id = ?${options.evenDisabled ? '' : ' AND disabled_at IS NULL'} AND (locked_by = ? OR locked_until <= ?)`,
      [holder, until, id, holder, now],
    );
    return changed === 1;
  }

  /** Gives an endpoint up, so any instance may send to it at once. */
  async releaseEndpoint(id: string, holder: string): Promise<void> {
    await this.sql.run('UPDATE webhook_endpoints SET locked_until = 0 WHERE id = ? AND locked_by = ?', [id, holder]);
  }

  /** The endpoint's earliest queued event due by `now` that nothing holds back (see HELD_BEHIND). */
  async nextDue(endpointId: string, now: number): Promise<DueDelivery | undefined> {
    const row = await this.sql.get<{ seq: number; endpoint_id: string; event_id: string; type: string; body: string; attempts: number; redeliveries: number }>(
      `SELECT d.seq, d.endpoint_id, d.event_id, e.type, e.body, d.attempts, d.redeliveries FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE d.endpoint_id = ? AND d.state = 'pending' AND d.next_attempt_at <= ? AND NOT EXISTS (${HELD_BEHIND})
        ORDER BY d.seq LIMIT 1`,
      [endpointId, now],
    );
    return (
      row && {
        seq: Number(row.seq),
        endpointId: row.endpoint_id,
        eventId: row.event_id,
        type: row.type,
        body: row.body,
        attempts: Number(row.attempts),
        redeliveries: Number(row.redeliveries),
      }
    );
  }

  /** Where an event owed to an endpoint stands, if it was ever queued for it. */
  async queuedDelivery(endpointId: string, eventId: string): Promise<QueuedDelivery | undefined> {
    const row = await this.sql.get<{ seq: number; state: QueuedDelivery['state']; attempts: number; redeliveries: number }>(
      'SELECT seq, state, attempts, redeliveries FROM webhook_deliveries WHERE endpoint_id = ? AND event_id = ?',
      [endpointId, eventId],
    );
    return row && { seq: Number(row.seq), state: row.state, attempts: Number(row.attempts), redeliveries: Number(row.redeliveries) };
  }

  /** An event's type and body, if it was ever sent to the endpoint. */
  async eventFor(endpointId: string, eventId: string): Promise<{ type: string; body: string } | undefined> {
    return this.sql.get<{ type: string; body: string }>(
      'SELECT e.type, e.body FROM webhook_events e WHERE e.id = ? AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = ? AND d.event_id = e.id)',
      [eventId, endpointId],
    );
  }

  /** Settles a queued delivery after an attempt: delivered, failed for good, or due again at `nextAttemptAt`. */
  async settleDelivery(seq: number, outcome: { state: 'pending' | 'delivered' | 'failed'; attempts: number; nextAttemptAt: number; at: number }): Promise<void> {
    await this.sql.run('UPDATE webhook_deliveries SET state = ?, attempts = ?, next_attempt_at = ?, updated_at = ? WHERE seq = ?', [
      outcome.state,
      outcome.attempts,
      outcome.nextAttemptAt,
      outcome.at,
      seq,
    ]);
  }

  /** Counts a redelivery of a queued event; one the endpoint accepted settles it as delivered (nothing more is sent on the schedule). */
  async settleRedelivery(seq: number, outcome: { delivered: boolean; at: number }): Promise<void> {
    await this.sql.run(
      `UPDATE webhook_deliveries SET redeliveries = redeliveries + 1, state = ${outcome.delivered ? "'delivered'" : 'state'}, updated_at = ? WHERE seq = ?`,
      [outcome.at, seq],
    );
  }

  /** Records an attempt in the log. */
  async insertAttempt(attempt: Omit<WebhookAttempt, 'type'>): Promise<void> {
    await this.sql.run(
      'INSERT INTO webhook_attempts (id, endpoint_id, event_id, attempt, status_code, duration_ms, error, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [attempt.id, attempt.endpointId, attempt.eventId, attempt.attempt, attempt.statusCode, attempt.durationMs, attempt.error, attempt.createdAt],
    );
  }

  /** One attempt of an endpoint's log. */
  async findAttempt(endpointId: string, id: string): Promise<WebhookAttempt | undefined> {
    const row = await this.sql.get<AttemptRow>(`${ATTEMPT_SELECT} WHERE a.endpoint_id = ? AND a.id = ?`, [endpointId, id]);
    return row && toAttempt(row);
  }

  /** A page of an endpoint's attempts, newest first, with the total. */
  async attempts(endpointId: string, offset: number, limit: number): Promise<{ attempts: WebhookAttempt[]; total: number }> {
    const rows = await this.sql.all<AttemptRow>(`${ATTEMPT_SELECT} WHERE a.endpoint_id = ? ORDER BY a.created_at DESC, a.attempt DESC, a.id DESC LIMIT ${Math.trunc(limit)} OFFSET ${Math.trunc(offset)}`, [endpointId]);
    const count = await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM webhook_attempts WHERE endpoint_id = ?', [endpointId]);
    return { attempts: rows.map(toAttempt), total: Number(count?.n ?? 0) };
  }

  /** The newest attempts (at most `limit`) to deliver the merchant's events about one record, with the endpoint each went to. */
  async attemptsAbout(merchantId: string, subjectId: string, limit: number): Promise<Array<WebhookAttempt & { url: string }>> {
    const rows = await this.sql.all<AttemptRow & { url: string }>(
      `SELECT a.id, a.endpoint_id, a.event_id, e.type, a.attempt, a.status_code, a.duration_ms, a.error, a.created_at, w.url
         FROM webhook_events e JOIN webhook_attempts a ON a.event_id = e.id JOIN webhook_endpoints w ON w.id = a.endpoint_id
        WHERE e.merchant_id = ? AND e.subject_id = ? AND w.merchant_id = ?
        ORDER BY a.created_at DESC, a.attempt DESC, a.id DESC LIMIT ${Math.trunc(limit)}`,
      [merchantId, subjectId, merchantId],
    );
    return rows.map((row) => ({ ...toAttempt(row), url: row.url }));
  }

  /** Forgets attempts, finished deliveries and events older than `before`; returns how many rows went. */
  async purge(before: number): Promise<number> {
    let removed = await this.sql.run('DELETE FROM webhook_attempts WHERE created_at < ?', [before]);
    removed += await this.sql.run("DELETE FROM webhook_deliveries WHERE state <> 'pending' AND updated_at < ?", [before]);
    removed += await this.sql.run(
      'DELETE FROM webhook_events WHERE created_at < ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id) AND NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.event_id = webhook_events.id)',
      [before],
    );
    return removed;
  }
}
