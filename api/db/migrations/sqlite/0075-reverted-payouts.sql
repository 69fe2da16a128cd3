-- A transaction this service broadcast can be mined and still fail (an Ethereum payout whose token
-- contract refused the transfer): its receipt says so, and the follower keeps that beside its block.
ALTER TABLE chain_transactions ADD COLUMN reverted INTEGER NOT NULL DEFAULT 0;
