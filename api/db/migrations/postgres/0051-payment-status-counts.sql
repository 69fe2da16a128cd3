-- How many payments each merchant has in each stored status, kept by triggers, so a list's total
-- costs the same for a merchant with a million payments as for one with a thousand (a COUNT(*)
-- walked every matching row). Only the OPEN payments past their expiry that the sweep has not yet
-- marked EXPIRED are counted from the table itself, and there are never many: the sweep runs
-- every second. Each change adds +1 or -1 to one of eight slots chosen at random, so concurrent
-- creates of one merchant do not queue on one counter row; a total is the sum of the slots.
CREATE TABLE payment_status_counts (
  merchant_id TEXT NOT NULL,
  status      TEXT NOT NULL,
  slot        INTEGER NOT NULL,
  n           BIGINT NOT NULL,
  PRIMARY KEY (merchant_id, status, slot)
);
INSERT INTO payment_status_counts (merchant_id, status, slot, n) SELECT merchant_id, status, 0, COUNT(*) FROM payments GROUP BY merchant_id, status;

CREATE FUNCTION payments_count_status() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  chosen_slot INTEGER := floor(random() * 8)::INTEGER;
BEGIN
  IF TG_OP = 'INSERT' OR TG_OP = 'UPDATE' THEN
    INSERT INTO payment_status_counts AS c (merchant_id, status, slot, n) VALUES (NEW.merchant_id, NEW.status, chosen_slot, 1)
      ON CONFLICT (merchant_id, status, slot) DO UPDATE SET n = c.n + 1;
  END IF;
  IF TG_OP = 'UPDATE' OR TG_OP = 'DELETE' THEN
    INSERT INTO payment_status_counts AS c (merchant_id, status, slot, n) VALUES (OLD.merchant_id, OLD.status, chosen_slot, -1)
      ON CONFLICT (merchant_id, status, slot) DO UPDATE SET n = c.n - 1;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER payment_counts_on_insert_delete AFTER INSERT OR DELETE ON payments
FOR EACH ROW EXECUTE FUNCTION payments_count_status();

CREATE TRIGGER payment_counts_on_status AFTER UPDATE OF status ON payments
FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION payments_count_status();
