-- A list filtered by status must not walk the OPEN payments, however many a burst of creates left
-- (a sale, or a leaked key at the rate limit: 360,000 an hour). An OPEN payment past its expiry
-- reads as EXPIRED, so a status total corrects the stored counts by how many of those the sweep has
-- not marked yet. That number is kept per minute of expiry, by triggers: the correction sums the
-- past minutes' counts (minutes holding unswept payments: none while the sweep runs) and counts
-- only the current minute's payments on the index below, whose range also bounds a page of OPEN
-- payments that are still running, or past expiry. A minute's row goes once it counts none.
-- One writer at a time on SQLite: every count lives in slot 0, in the key's own b-tree (WITHOUT
-- ROWID), so a sum reads no second tree.
CREATE INDEX payments_open_by_expiry ON payments (merchant_id, expires_at) WHERE status = 'OPEN';

CREATE TABLE open_payment_expiries (
  merchant_id TEXT NOT NULL,
  minute      INTEGER NOT NULL,
  slot        INTEGER NOT NULL,
  n           INTEGER NOT NULL,
  PRIMARY KEY (merchant_id, minute, slot)
) WITHOUT ROWID;
INSERT INTO open_payment_expiries (merchant_id, minute, slot, n)
  SELECT merchant_id, expires_at / 60000, 0, COUNT(*) FROM payments WHERE status = 'OPEN' GROUP BY merchant_id, expires_at / 60000;

CREATE TRIGGER open_expiries_on_insert AFTER INSERT ON payments
FOR EACH ROW WHEN NEW.status = 'OPEN'
BEGIN
  INSERT INTO open_payment_expiries (merchant_id, minute, slot, n) VALUES (NEW.merchant_id, NEW.expires_at / 60000, 0, 1)
    ON CONFLICT (merchant_id, minute, slot) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER open_expiries_on_update AFTER UPDATE OF status, expires_at ON payments
FOR EACH ROW WHEN (OLD.status = 'OPEN' OR NEW.status = 'OPEN') AND (OLD.status IS NOT NEW.status OR OLD.expires_at IS NOT NEW.expires_at)
BEGIN
  INSERT INTO open_payment_expiries (merchant_id, minute, slot, n) SELECT NEW.merchant_id, NEW.expires_at / 60000, 0, 1 WHERE NEW.status = 'OPEN'
    ON CONFLICT (merchant_id, minute, slot) DO UPDATE SET n = n + 1;
  UPDATE open_payment_expiries SET n = n - 1 WHERE OLD.status = 'OPEN' AND merchant_id = OLD.merchant_id AND minute = OLD.expires_at / 60000 AND slot = 0;
  DELETE FROM open_payment_expiries WHERE merchant_id = OLD.merchant_id AND minute = OLD.expires_at / 60000 AND slot = 0 AND n = 0;
END;

CREATE TRIGGER open_expiries_on_delete AFTER DELETE ON payments
FOR EACH ROW WHEN OLD.status = 'OPEN'
BEGIN
  UPDATE open_payment_expiries SET n = n - 1 WHERE merchant_id = OLD.merchant_id AND minute = OLD.expires_at / 60000 AND slot = 0;
  DELETE FROM open_payment_expiries WHERE merchant_id = OLD.merchant_id AND minute = OLD.expires_at / 60000 AND slot = 0 AND n = 0;
END;
