-- The per-status and per-minute counts each spread over 64 rows instead of 8. A create moves one
-- row of each, and PostgreSQL holds a moved row until the transaction's commit is on disk: with
-- eight rows, most of ten concurrent creates waited for another's commit (measured: 0.6 of the
-- ten connections waiting on a row lock under the bench's signed creates). With 64 few collide.
-- A count is the sum over its slots; sums read at most 64 small rows.
LOCK TABLE payments IN SHARE ROW EXCLUSIVE MODE;

CREATE OR REPLACE FUNCTION payments_count_status() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  chosen_slot INTEGER := floor(random() * 64)::INTEGER;
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

CREATE FUNCTION payment_counter_slot(id TEXT) RETURNS INTEGER LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT get_byte(decode(md5(id), 'hex'), 0) % 64 $$;

-- A payment's slot is read off its id (a byte of its hash), so its decrement finds the row its
-- increment made. The rows are counted again under the new slots.
CREATE OR REPLACE FUNCTION payments_count_open_expiry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'DELETE' AND NEW.status = 'OPEN' THEN
    INSERT INTO open_payment_expiries AS c (merchant_id, minute, slot, n) VALUES (NEW.merchant_id, NEW.expires_at / 60000, payment_counter_slot(NEW.id), 1)
      ON CONFLICT (merchant_id, minute, slot) DO UPDATE SET n = c.n + 1;
  END IF;
  IF TG_OP <> 'INSERT' AND OLD.status = 'OPEN' THEN
    UPDATE open_payment_expiries SET n = n - 1 WHERE merchant_id = OLD.merchant_id AND minute = OLD.expires_at / 60000 AND slot = payment_counter_slot(OLD.id);
    DELETE FROM open_payment_expiries WHERE merchant_id = OLD.merchant_id AND minute = OLD.expires_at / 60000 AND slot = payment_counter_slot(OLD.id) AND n = 0;
  END IF;
  RETURN NULL;
END $$;

DELETE FROM open_payment_expiries;
INSERT INTO open_payment_expiries (merchant_id, minute, slot, n)
  SELECT merchant_id, expires_at / 60000, payment_counter_slot(id), COUNT(*) FROM payments WHERE status = 'OPEN'
  GROUP BY merchant_id, expires_at / 60000, payment_counter_slot(id);
