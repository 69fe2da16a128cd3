-- Webhooks (Standard Webhooks 1.0): merchants' endpoints, an outbox of events written in the same
-- transaction as the change each announces, a queue of deliveries per endpoint, and every attempt.

-- A merchant's endpoint. `events` is a JSON array of event types, NULL for all of them. The signing
-- secret is sealed under the server key (AES-256-GCM, the endpoint id bound in). While an instance
-- sends to the endpoint it holds it (locked_by, until locked_until), so events go out one at a
-- time, in order, from one instance. An endpoint answering 410 is disabled.
CREATE TABLE webhook_endpoints (
  id              TEXT PRIMARY KEY,
  merchant_id     TEXT NOT NULL REFERENCES merchants(id),
  url             TEXT NOT NULL,
  events          TEXT,
  secret_enc      TEXT NOT NULL,
  created_at      INTEGER NOT NULL,
  disabled_at     INTEGER,
  disabled_reason TEXT,
  locked_by       TEXT,
  locked_until    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX webhook_endpoints_merchant ON webhook_endpoints (merchant_id);

-- One event: `body` holds the exact bytes signed and sent on every attempt; `id` is its webhook-id.
CREATE TABLE webhook_events (
  id          TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  type        TEXT NOT NULL,
  body        TEXT NOT NULL,
  created_at  INTEGER NOT NULL
);
CREATE INDEX webhook_events_created ON webhook_events (created_at);

-- An event owed to one endpoint: 'pending' until delivered, or 'failed' once the retries ran out.
-- `seq` orders an endpoint's events as they happened.
CREATE TABLE webhook_deliveries (
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,
  endpoint_id     TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  event_id        TEXT NOT NULL REFERENCES webhook_events(id),
  state           TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, seq) WHERE state = 'pending';

-- Every attempt to send an event to an endpoint: the delivery log.
CREATE TABLE webhook_attempts (
  id          TEXT PRIMARY KEY,
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  event_id    TEXT NOT NULL REFERENCES webhook_events(id),
  attempt     INTEGER NOT NULL,
  status_code INTEGER,
  duration_ms INTEGER NOT NULL,
  error       TEXT,
  created_at  INTEGER NOT NULL
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, created_at);
