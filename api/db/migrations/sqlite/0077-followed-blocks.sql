-- The hashes of the last blocks a follower processed (a bounded window per network). A follower walks
-- a reorganisation back against these, not against the node: a node that forgot the stale blocks
-- (anvil, many providers) cannot say where the chains part, and the follower would stop one block
-- back, never revisiting the others.
CREATE TABLE chain_blocks (
  network TEXT NOT NULL,
  height  INTEGER NOT NULL,
  hash    TEXT NOT NULL,
  PRIMARY KEY (network, height)
);
