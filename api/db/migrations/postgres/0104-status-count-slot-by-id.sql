-- A payment counts in the per-status counter's slot read off its id, as it already does in the
-- per-minute one, instead of a slot chosen at random on each change. Creates stored by one
-- statement then take their counter rows in the order of their slots (the statement inserts them
-- so), the order in which a create stored alone takes its two: two such statements, from two
-- instances, do not each hold a row the other waits for. A status total is still the sum of its
-- slots; the counts made before keep their rows.
CREATE OR REPLACE FUNCTION payments_count_status() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  chosen_slot INTEGER := payment_counter_slot(CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
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
