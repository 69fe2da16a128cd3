-- The language the payer last chose on a payment's page: its receipt and its mail speak it.
ALTER TABLE payments ADD COLUMN payer_locale TEXT;

-- Mail waiting to go out (contract section 17), written in the same transaction as the change it
-- tells of: a rollback takes it away, a commit makes it durable. The mail job (one instance at a
-- time, under its lease) sends each once, retrying with backoff while the server is down.
CREATE TABLE mail_outbox (
  id              TEXT PRIMARY KEY,
  recipient       TEXT NOT NULL,
  subject         TEXT NOT NULL,
  text_body       TEXT NOT NULL,
  html_body       TEXT NOT NULL,
  kind            TEXT NOT NULL,
  created_at      BIGINT NOT NULL,
  attempts        BIGINT NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  sent_at         BIGINT,
  last_error      TEXT
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL;
