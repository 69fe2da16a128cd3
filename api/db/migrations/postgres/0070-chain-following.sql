-- Following real chains through a node: the last block each network's follower processed, and the
-- transactions it reported (paying this installation's addresses) until they are buried deep enough.

CREATE TABLE chain_cursors (
  network TEXT PRIMARY KEY,
  height  BIGINT NOT NULL,
  hash    TEXT NOT NULL
);

-- block_height is NULL while the transaction waits in the mempool.
CREATE TABLE chain_transactions (
  network      TEXT NOT NULL,
  txn_id       TEXT NOT NULL,
  block_hash   TEXT,
  block_height BIGINT,
  seen_at      BIGINT NOT NULL,
  PRIMARY KEY (network, txn_id)
);
CREATE INDEX chain_transactions_height ON chain_transactions (network, block_height);
