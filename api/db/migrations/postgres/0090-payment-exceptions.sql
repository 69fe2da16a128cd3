-- Tolerance and exceptions (contract section 17). Each payment keeps the tolerance it was created
-- under (PAYMENT_TOLERANCE_PERCENT then), so a later change of the setting never changes how an
-- existing payment reads. `exception` is the exception last announced for it (payment.overpaid,
-- payment.paid-late go out once, when it changes); the record computes its own from the transactions.
ALTER TABLE payments ADD COLUMN tolerance_percent TEXT NOT NULL DEFAULT '0';
ALTER TABLE payments ADD COLUMN exception TEXT CHECK (exception IN ('OVERPAID', 'UNDERPAID', 'PAID_LATE'));
