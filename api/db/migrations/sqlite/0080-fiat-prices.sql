-- Prices in a fiat currency (contract section 16): the price as the merchant sent it and the rate the
-- amount was converted at, locked for the payment's life. All null on a payment priced in the asset.
ALTER TABLE payments ADD COLUMN price_amount TEXT;
ALTER TABLE payments ADD COLUMN price_currency TEXT;
ALTER TABLE payments ADD COLUMN rate_value TEXT;
-- The sources the median used, comma-separated in configured order.
ALTER TABLE payments ADD COLUMN rate_sources TEXT;
-- Epoch milliseconds of the oldest quote used.
ALTER TABLE payments ADD COLUMN rate_at INTEGER;
