-- Refunds (contract section 17): one row per refund of a payment. A refund with an address is paid
-- out by a withdrawal of its own (withdrawal_id), through the same payout machinery as any other.
-- Its claim token is never stored: it is derived from the server key and the refund id.
CREATE TABLE refunds (
  id            TEXT PRIMARY KEY,
  merchant_id   TEXT NOT NULL REFERENCES merchants (id),
  payment_id    TEXT NOT NULL REFERENCES payments (id),
  asset_id      BIGINT NOT NULL REFERENCES assets (id),
  amount        TEXT NOT NULL,
  address_to    TEXT,
  dest_tag      TEXT,
  status        TEXT NOT NULL CHECK (status IN ('AWAITING_ADDRESS', 'REQUESTED', 'APPROVED', 'COMPLETE', 'CANCELLED')),
  requested_by  TEXT NOT NULL CHECK (requested_by IN ('merchant', 'payer')),
  withdrawal_id TEXT UNIQUE REFERENCES withdrawals (id),
  reason        TEXT,
  created_at    BIGINT NOT NULL,
  updated_at    BIGINT NOT NULL
);
CREATE INDEX refunds_by_merchant ON refunds (merchant_id, created_at DESC, id DESC);
CREATE INDEX refunds_by_payment ON refunds (payment_id);
-- One open request by the payer per payment.
CREATE UNIQUE INDEX refunds_one_request ON refunds (payment_id) WHERE status = 'REQUESTED';

-- A refund changes its payment's refundableAmount: the payment's version moves with it, so no
-- cached rendering of the payment outlives the change.
CREATE FUNCTION refunds_touch_payment() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE payments SET version = version + 1 WHERE id = NEW.payment_id;
  RETURN NULL;
END $$;
CREATE TRIGGER payments_version_on_refund_insert AFTER INSERT ON refunds
FOR EACH ROW EXECUTE FUNCTION refunds_touch_payment();
CREATE TRIGGER payments_version_on_refund_update AFTER UPDATE OF status ON refunds
FOR EACH ROW EXECUTE FUNCTION refunds_touch_payment();

-- A refund created without an address holds its amount in reserve under its own name until the
-- payer gives one ('refund-reserve'), then hands it to its withdrawal ('refund-release' beside a
-- 'withdrawal-reserve'), or gives it back when cancelled ('refund-release').
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
  CHECK (kind IN ('payment-credit', 'payment-reversal', 'withdrawal-reserve', 'withdrawal-release', 'withdrawal-send', 'refund-reserve', 'refund-release'));
ALTER TABLE ledger_entries ADD COLUMN refund_id TEXT REFERENCES refunds (id);
CREATE UNIQUE INDEX ledger_once_per_refund_step ON ledger_entries (refund_id, kind) WHERE refund_id IS NOT NULL;
