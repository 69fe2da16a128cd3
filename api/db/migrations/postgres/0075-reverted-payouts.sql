-- A transaction this service broadcast can be mined and still fail (an Ethereum payout whose token
-- contract refused the transfer): its receipt says so, and the follower keeps that beside its block.
-- A withdrawal's payout that reverted is kept as history under '<withdrawal id>:reverted:<hash>',
-- and counted by reverted_of when the withdrawal is signed again.
ALTER TABLE chain_transactions ADD COLUMN reverted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE payout_transactions ADD COLUMN reverted_of TEXT;
CREATE INDEX payout_transactions_reverted_of ON payout_transactions (reverted_of) WHERE reverted_of IS NOT NULL;
