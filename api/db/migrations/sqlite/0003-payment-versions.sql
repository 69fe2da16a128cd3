-- A payment's version moves with every change to the payment row or to any of its transactions.
-- Triggers do it, so no code path and no other process sharing this file can change a payment
-- without moving its version: a view rendered at one version stays exact while the version stands.
ALTER TABLE payments ADD COLUMN version INTEGER NOT NULL DEFAULT 1;

-- The guard skips the trigger's own UPDATE (and updates that already moved the version).
CREATE TRIGGER payments_version_on_update AFTER UPDATE ON payments
FOR EACH ROW WHEN NEW.version = OLD.version
BEGIN
  UPDATE payments SET version = OLD.version + 1 WHERE id = NEW.id;
END;

CREATE TRIGGER payments_version_on_transaction_insert AFTER INSERT ON payment_transactions
FOR EACH ROW
BEGIN
  UPDATE payments SET version = version + 1 WHERE id = NEW.payment_id;
END;

CREATE TRIGGER payments_version_on_transaction_update AFTER UPDATE ON payment_transactions
FOR EACH ROW
BEGIN
  UPDATE payments SET version = version + 1 WHERE id IN (OLD.payment_id, NEW.payment_id);
END;

CREATE TRIGGER payments_version_on_transaction_delete AFTER DELETE ON payment_transactions
FOR EACH ROW
BEGIN
  UPDATE payments SET version = version + 1 WHERE id = OLD.payment_id;
END;
