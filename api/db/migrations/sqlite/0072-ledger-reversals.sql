-- A reorganisation can take back a transaction already credited: the credit is reversed by a
-- posting of its own ('payment-reversal'), and credited again when the transaction is mined again
-- (the next credit_round). A transaction that left the chain after a ledger posting named it is
-- kept, marked dropped_at, so the history it appears in stays whole.
-- SQLite cannot change a CHECK constraint in place: the ledger table is rebuilt, rows unchanged.

CREATE TABLE ledger_entries_new (
  seq                    INTEGER PRIMARY KEY,
  merchant_id            TEXT NOT NULL REFERENCES merchants (id),
  asset_id               INTEGER NOT NULL REFERENCES assets (id),
  kind                   TEXT NOT NULL CHECK (kind IN ('payment-credit', 'payment-reversal', 'withdrawal-reserve', 'withdrawal-release', 'withdrawal-send')),
  available_delta        TEXT NOT NULL,
  reserved_delta         TEXT NOT NULL,
  available_after        TEXT NOT NULL,
  reserved_after         TEXT NOT NULL,
  payment_transaction_id INTEGER REFERENCES payment_transactions (id),
  withdrawal_id          TEXT REFERENCES withdrawals (id),
  created_at             INTEGER NOT NULL,
  credit_round           INTEGER NOT NULL DEFAULT 0
);
INSERT INTO ledger_entries_new (seq, merchant_id, asset_id, kind, available_delta, reserved_delta, available_after, reserved_after, payment_transaction_id, withdrawal_id, created_at)
  SELECT seq, merchant_id, asset_id, kind, available_delta, reserved_delta, available_after, reserved_after, payment_transaction_id, withdrawal_id, created_at FROM ledger_entries;
DROP TABLE ledger_entries;
ALTER TABLE ledger_entries_new RENAME TO ledger_entries;
CREATE INDEX ledger_by_account ON ledger_entries (merchant_id, asset_id, seq DESC);
-- Each round of a payment transaction is credited once and reversed at most once.
CREATE UNIQUE INDEX ledger_once_per_credit_round ON ledger_entries (payment_transaction_id, kind, credit_round) WHERE payment_transaction_id IS NOT NULL;
CREATE UNIQUE INDEX ledger_once_per_withdrawal_step ON ledger_entries (withdrawal_id, kind) WHERE withdrawal_id IS NOT NULL;

ALTER TABLE payment_transactions ADD COLUMN dropped_at INTEGER;
