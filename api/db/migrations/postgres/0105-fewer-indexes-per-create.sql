-- A create writes its payment row and every index entry of it, and marks its pool address
-- claimed. Two of those entries sit at a random place in their index, and neither is read by
-- anything a lookup elsewhere cannot do:
-- * payments_by_receiving_address (the dashboard's search by receiving address): the search finds
--   the payment through the address's own row instead (addresses keeps the payment's id, and its
--   (network, address, dest_tag) key is an index already);
-- * the UNIQUE index on addresses.payment_id: nothing looks an address up by its payment. One
--   payment gets one address because a create claims one, in the statement or transaction that
--   stores the payment under a new id; an address serves one payment because only an unclaimed
--   row (payment_id IS NULL) is claimed, and its (network, address, dest_tag) key is unique.
DROP INDEX payments_by_receiving_address;
ALTER TABLE addresses DROP CONSTRAINT addresses_payment_id_key;
