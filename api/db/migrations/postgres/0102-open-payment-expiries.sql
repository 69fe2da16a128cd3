-- A list filtered by status must not walk the OPEN payments, however many a burst of creates left
-- (a sale, or a leaked key at the rate limit: 360,000 an hour). An OPEN payment past its expiry
-- reads as EXPIRED, so a status total corrects the stored counts by how many of those the sweep has
-- not marked yet. That number is kept per minute of expiry, by triggers: the correction sums the
-- past minutes' counts (minutes holding unswept payments: none while the sweep runs) and counts
-- only the current minute's payments on the index below, whose range also bounds a page of OPEN
-- payments that are still running, or past expiry. A minute's row goes once it counts none.
-- Concurrent creates of one merchant expire in the same minute: each payment counts in one of
-- eight slots chosen by its id (so its +1 and its -1 meet in one row, which empties), and creates
-- do not queue on one counter row.
CREATE INDEX payments_open_by_expiry ON payments (merchant_id, expires_at) WHERE status = 'OPEN';

CREATE TABLE open_payment_expiries (
  merchant_id TEXT NOT NULL,
  minute      BIGINT NOT NULL,
  slot        INTEGER NOT NULL,
  n           BIGINT NOT NULL,
  PRIMARY KEY (merchant_id, minute, slot)
);
INSERT INTO open_payment_expiries (merchant_id, minute, slot, n)
  SELECT merchant_id, expires_at / 60000, ascii(right(id, 1)) % 8, COUNT(*) FROM payments WHERE status = 'OPEN'
  GROUP BY merchant_id, expires_at / 60000, ascii(right(id, 1)) % 8;

CREATE FUNCTION payments_count_open_expiry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'DELETE' AND NEW.status = 'OPEN' THEN
    INSERT INTO open_payment_expiries AS c (merchant_id, minute, slot, n) VALUES (NEW.merchant_id, NEW.expires_at / 60000, ascii(right(NEW.id, 1)) % 8, 1)
      ON CONFLICT (merchant_id, minute, slot) DO UPDATE SET n = c.n + 1;
  END IF;
  IF TG_OP <> 'INSERT' AND OLD.status = 'OPEN' THEN
    UPDATE open_payment_expiries SET n = n - 1 WHERE merchant_id = OLD.merchant_id AND minute = OLD.expires_at / 60000 AND slot = ascii(right(OLD.id, 1)) % 8;
    DELETE FROM open_payment_expiries WHERE merchant_id = OLD.merchant_id AND minute = OLD.expires_at / 60000 AND slot = ascii(right(OLD.id, 1)) % 8 AND n = 0;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER open_expiries_on_insert AFTER INSERT ON payments
FOR EACH ROW WHEN (NEW.status = 'OPEN') EXECUTE FUNCTION payments_count_open_expiry();

CREATE TRIGGER open_expiries_on_update AFTER UPDATE OF status, expires_at ON payments
FOR EACH ROW WHEN ((OLD.status = 'OPEN' OR NEW.status = 'OPEN') AND (OLD.status IS DISTINCT FROM NEW.status OR OLD.expires_at IS DISTINCT FROM NEW.expires_at))
EXECUTE FUNCTION payments_count_open_expiry();

CREATE TRIGGER open_expiries_on_delete AFTER DELETE ON payments
FOR EACH ROW WHEN (OLD.status = 'OPEN') EXECUTE FUNCTION payments_count_open_expiry();
