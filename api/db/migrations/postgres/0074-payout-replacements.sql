-- A stuck Ethereum payout is replaced at a higher fee on the same nonce: the stored transaction
-- becomes the replacement, and the hashes it replaced are kept (any of them may still be mined).
ALTER TABLE payout_transactions ADD COLUMN replaced_txn_ids TEXT;
