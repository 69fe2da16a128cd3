-- Creates stored together (one statement for several, PaymentStore.insertManyInOneStatement) take
-- their counter rows in one order, the order every other writer of a new payment takes them in,
-- so two such statements (of two instances), or one and a create stored alone, never each hold a
-- row the other waits for:
-- * a payment counts in the per-status counter's slot read off its id, as it already does in the
--   per-minute one, instead of a slot chosen at random on each change;
-- * a payment's per-status count moves before its per-minute one (triggers on the same event fire
--   in the order of their names: the per-minute triggers are renamed to sort after
--   payment_counts_*);
-- * a statement inserts its payments in the order of merchant, slot and expiry minute.
-- A status total is still the sum of its slots; the counts made before keep their rows.
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

ALTER TRIGGER open_expiries_on_insert ON payments RENAME TO payment_open_expiries_on_insert;
ALTER TRIGGER open_expiries_on_update ON payments RENAME TO payment_open_expiries_on_update;
ALTER TRIGGER open_expiries_on_delete ON payments RENAME TO payment_open_expiries_on_delete;
