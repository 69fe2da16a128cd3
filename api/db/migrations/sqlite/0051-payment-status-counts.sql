-- How many payments each merchant has in each stored status, kept by triggers, so a list's total
-- costs the same for a merchant with a million payments as for one with a thousand (a COUNT(*)
-- walked every matching row). Only the OPEN payments past their expiry that the sweep has not yet
-- marked EXPIRED are counted from the table itself, and there are never many: the sweep runs
-- every second. One writer at a time on SQLite: every count lives in slot 0.
CREATE TABLE payment_status_counts (
  merchant_id TEXT NOT NULL,
  status      TEXT NOT NULL,
  slot        INTEGER NOT NULL,
  n           INTEGER NOT NULL,
  PRIMARY KEY (merchant_id, status, slot)
);
INSERT INTO payment_status_counts (merchant_id, status, slot, n) SELECT merchant_id, status, 0, COUNT(*) FROM payments GROUP BY merchant_id, status;

CREATE TRIGGER payment_counts_on_insert AFTER INSERT ON payments
FOR EACH ROW
BEGIN
  INSERT INTO payment_status_counts (merchant_id, status, slot, n) VALUES (NEW.merchant_id, NEW.status, 0, 1)
    ON CONFLICT (merchant_id, status, slot) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER payment_counts_on_status AFTER UPDATE OF status ON payments
FOR EACH ROW WHEN OLD.status <> NEW.status
BEGIN
  UPDATE payment_status_counts SET n = n - 1 WHERE merchant_id = OLD.merchant_id AND status = OLD.status AND slot = 0;
  INSERT INTO payment_status_counts (merchant_id, status, slot, n) VALUES (NEW.merchant_id, NEW.status, 0, 1)
    ON CONFLICT (merchant_id, status, slot) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER payment_counts_on_delete AFTER DELETE ON payments
FOR EACH ROW
BEGIN
  UPDATE payment_status_counts SET n = n - 1 WHERE merchant_id = OLD.merchant_id AND status = OLD.status AND slot = 0;
END;
