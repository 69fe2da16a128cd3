-- A reorganisation can take back a transaction already credited: the credit is reversed by a
-- posting of its own ('payment-reversal'), and credited again when the transaction is mined again
-- (the next credit_round). A transaction that left the chain after a ledger posting named it is
-- kept, marked dropped_at, so the history it appears in stays whole.

ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
  CHECK (kind IN ('payment-credit', 'payment-reversal', 'withdrawal-reserve', 'withdrawal-release', 'withdrawal-send'));
ALTER TABLE ledger_entries ADD COLUMN credit_round INTEGER NOT NULL DEFAULT 0;
DROP INDEX ledger_once_per_transaction;
-- Each round of a payment transaction is credited once and reversed at most once.
CREATE UNIQUE INDEX ledger_once_per_credit_round ON ledger_entries (payment_transaction_id, kind, credit_round) WHERE payment_transaction_id IS NOT NULL;

ALTER TABLE payment_transactions ADD COLUMN dropped_at BIGINT;
