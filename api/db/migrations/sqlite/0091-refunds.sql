-- Refunds (contract section 17): one row per refund of a payment. A refund with an address is paid
-- out by a withdrawal of its own (withdrawal_id), through the same payout machinery as any other.
-- Its claim token is never stored: it is derived from the server key and the refund id.
CREATE TABLE refunds (
  id            TEXT PRIMARY KEY,
  merchant_id   TEXT NOT NULL REFERENCES merchants (id),
  payment_id    TEXT NOT NULL REFERENCES payments (id),
  asset_id      INTEGER NOT NULL REFERENCES assets (id),
  amount        TEXT NOT NULL,
  address_to    TEXT,
  dest_tag      TEXT,
  status        TEXT NOT NULL CHECK (status IN ('AWAITING_ADDRESS', 'REQUESTED', 'APPROVED', 'COMPLETE', 'CANCELLED')),
  requested_by  TEXT NOT NULL CHECK (requested_by IN ('merchant', 'payer')),
  withdrawal_id TEXT UNIQUE REFERENCES withdrawals (id),
  reason        TEXT,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
);
CREATE INDEX refunds_by_merchant ON refunds (merchant_id, created_at DESC, id DESC);
CREATE INDEX refunds_by_payment ON refunds (payment_id);
-- One open request by the payer per payment.
CREATE UNIQUE INDEX refunds_one_request ON refunds (payment_id) WHERE status = 'REQUESTED';

-- A refund changes its payment's refundableAmount: the payment's version moves with it, so no
-- cached rendering of the payment outlives the change.
CREATE TRIGGER payments_version_on_refund_insert AFTER INSERT ON refunds
FOR EACH ROW
BEGIN
  UPDATE payments SET version = version + 1 WHERE id = NEW.payment_id;
END;
CREATE TRIGGER payments_version_on_refund_update AFTER UPDATE OF status ON refunds
FOR EACH ROW
BEGIN
  UPDATE payments SET version = version + 1 WHERE id = NEW.payment_id;
END;

-- A refund created without an address holds its amount in reserve under its own name until the
-- payer gives one ('refund-reserve'), then hands it to its withdrawal ('refund-release' beside a
-- 'withdrawal-reserve'), or gives it back when cancelled ('refund-release').
-- SQLite cannot change a CHECK constraint in place: the ledger table is rebuilt, rows unchanged.
CREATE TABLE ledger_entries_new (
  seq                    INTEGER PRIMARY KEY,
  merchant_id            TEXT NOT NULL REFERENCES merchants (id),
  asset_id               INTEGER NOT NULL REFERENCES assets (id),
  kind                   TEXT NOT NULL CHECK (kind IN ('payment-credit', 'payment-reversal', 'withdrawal-reserve', 'withdrawal-release', 'withdrawal-send', 'refund-reserve', 'refund-release')),
  available_delta        TEXT NOT NULL,
  reserved_delta         TEXT NOT NULL,
  available_after        TEXT NOT NULL,
  reserved_after         TEXT NOT NULL,
  payment_transaction_id INTEGER REFERENCES payment_transactions (id),
  withdrawal_id          TEXT REFERENCES withdrawals (id),
  created_at             INTEGER NOT NULL,
  credit_round           INTEGER NOT NULL DEFAULT 0,
  refund_id              TEXT REFERENCES refunds (id)
);
INSERT INTO ledger_entries_new (seq, merchant_id, asset_id, kind, available_delta, reserved_delta, available_after, reserved_after, payment_transaction_id, withdrawal_id, created_at, credit_round)
  SELECT seq, merchant_id, asset_id, kind, available_delta, reserved_delta, available_after, reserved_after, payment_transaction_id, withdrawal_id, created_at, credit_round FROM ledger_entries;
DROP TABLE ledger_entries;
ALTER TABLE ledger_entries_new RENAME TO ledger_entries;
CREATE INDEX ledger_by_account ON ledger_entries (merchant_id, asset_id, seq DESC);
CREATE UNIQUE INDEX ledger_once_per_credit_round ON ledger_entries (payment_transaction_id, kind, credit_round) WHERE payment_transaction_id IS NOT NULL;
CREATE UNIQUE INDEX ledger_once_per_withdrawal_step ON ledger_entries (withdrawal_id, kind) WHERE withdrawal_id IS NOT NULL;
CREATE UNIQUE INDEX ledger_once_per_refund_step ON ledger_entries (refund_id, kind) WHERE refund_id IS NOT NULL;
