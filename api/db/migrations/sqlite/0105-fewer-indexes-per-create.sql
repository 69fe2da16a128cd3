-- A create writes its payment row and every index entry of it, and marks its pool address
-- claimed. Two of those entries sit at a random place in their index, so each costs a page of its
-- own in the commit's WAL writes, and neither is read by anything a lookup elsewhere cannot do:
-- * payments_by_receiving_address (the dashboard's search by receiving address): the search finds
--   the payment through the address's own row instead (addresses keeps the payment's id, and its
--   (network, address, dest_tag) key is an index already);
-- * the UNIQUE index on addresses.payment_id: nothing looks an address up by its payment. One
--   payment gets one address because a create claims one, in the transaction that stores the
--   payment under a new id; an address serves one payment because only an unclaimed row
--   (payment_id IS NULL) is claimed, and its (network, address, dest_tag) key is unique.
-- SQLite drops a column's UNIQUE only by copying the table.
DROP INDEX payments_by_receiving_address;

CREATE TABLE addresses_copy (
  id               INTEGER PRIMARY KEY,
  network          TEXT NOT NULL REFERENCES networks (name),
  address          TEXT NOT NULL,
  dest_tag         TEXT,
  derivation_index INTEGER,
  payment_id       TEXT,
  UNIQUE (network, address, dest_tag)
);
INSERT INTO addresses_copy (id, network, address, dest_tag, derivation_index, payment_id)
  SELECT id, network, address, dest_tag, derivation_index, payment_id FROM addresses;
DROP TABLE addresses;
ALTER TABLE addresses_copy RENAME TO addresses;
CREATE INDEX addresses_pool ON addresses (network, id) WHERE payment_id IS NULL;
-- UNIQUE above treats NULL tags as distinct, so derived addresses get their own guard.
CREATE UNIQUE INDEX addresses_untagged ON addresses (network, address) WHERE dest_tag IS NULL;
