-- A withdrawal's payout that reverted is kept as history under '<withdrawal id>:reverted:<hash>';
-- reverted_of names the withdrawal, so its reverted payouts are counted (and a retired one is never
-- attached again) through an index rather than a pattern over the whole table.
ALTER TABLE payout_transactions ADD COLUMN reverted_of TEXT;
UPDATE payout_transactions SET reverted_of = substr(withdrawal_id, 1, instr(withdrawal_id, ':reverted:') - 1) WHERE withdrawal_id LIKE '%:reverted:%';
CREATE INDEX payout_transactions_reverted_of ON payout_transactions (reverted_of) WHERE reverted_of IS NOT NULL;
