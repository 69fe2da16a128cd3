-- Paying out on Bitcoin and Litecoin through a node: the outputs this installation's addresses
-- received (its wallet, spent by payouts), the signed payout transactions (stored before they are
-- broadcast, so a restart re-broadcasts rather than signing again), and why an approved withdrawal
-- is still waiting.

-- key_chain/key_index: the output's key under the network's account (0 receives, 1 is the payout
-- address where change returns). spent_by: the withdrawal whose payout spends it.
CREATE TABLE chain_outputs (
  network   TEXT NOT NULL,
  txn_id    TEXT NOT NULL,
  vout      INTEGER NOT NULL,
  address   TEXT NOT NULL,
  script    TEXT NOT NULL,
  value     INTEGER NOT NULL,
  key_chain INTEGER NOT NULL,
  key_index INTEGER NOT NULL,
  spent_by  TEXT,
  PRIMARY KEY (network, txn_id, vout)
);
CREATE INDEX chain_outputs_unspent ON chain_outputs (network, value) WHERE spent_by IS NULL;

CREATE TABLE payout_transactions (
  withdrawal_id TEXT PRIMARY KEY,
  network       TEXT NOT NULL,
  txn_id        TEXT NOT NULL,
  raw           TEXT NOT NULL,
  fee           INTEGER NOT NULL,
  created_at    INTEGER NOT NULL
);

ALTER TABLE withdrawals ADD COLUMN failure_reason TEXT;
