-- Merchant API hardening: idempotent POSTs, rate limits that hold across instances, key rotation.

-- The first answer to a POST carrying an Idempotency-Key, per merchant and key, kept 24 hours.
-- While the first attempt runs, status_code is NULL and locked_until bounds how long it may hold
-- the key: a process that died mid-request leaves a row that lapses, and the key is usable again.
CREATE TABLE idempotency_keys (
  merchant_id   TEXT NOT NULL REFERENCES merchants(id),
  key           TEXT NOT NULL,
  -- SHA-256 of the method, path and exact body bytes: the same key with other bytes is refused.
  request_hash  TEXT NOT NULL,
  status_code   BIGINT,
  response_body TEXT,
  locked_until  BIGINT NOT NULL,
  created_at    BIGINT NOT NULL,
  expires_at    BIGINT NOT NULL,
  PRIMARY KEY (merchant_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- Requests counted per limited client (an API key's hash, or a client address) and minute.
CREATE TABLE rate_limit_windows (
  bucket       TEXT NOT NULL,
  window_start BIGINT NOT NULL,
  hits         BIGINT NOT NULL,
  PRIMARY KEY (bucket, window_start)
);

-- A merchant's keys before its last rotations, accepted until valid_until (epoch ms).
CREATE TABLE merchant_previous_keys (
  api_key_hash   TEXT PRIMARY KEY,
  merchant_id    TEXT NOT NULL REFERENCES merchants(id),
  secret_key_enc TEXT NOT NULL,
  valid_until    BIGINT NOT NULL
);
CREATE INDEX merchant_previous_keys_merchant ON merchant_previous_keys (merchant_id);
