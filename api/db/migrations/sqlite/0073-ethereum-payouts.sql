-- Paying out on Ethereum: the next nonce of each sending address, taken in the transaction that
-- stores the signed payout (so concurrent approvals and a restart never reuse or skip one), and the
-- nonce each stored payout carries.
CREATE TABLE eth_nonces (
  address    TEXT PRIMARY KEY,
  next_nonce INTEGER NOT NULL
);

ALTER TABLE payout_transactions ADD COLUMN nonce INTEGER;
