-- The dashboard finds a payment by its receiving address, and lists the webhook deliveries of one
-- payment's (or withdrawal's) events: each event names the record it announces.
CREATE INDEX payments_by_receiving_address ON payments (merchant_id, address_to);
ALTER TABLE webhook_events ADD COLUMN subject_id TEXT;
CREATE INDEX webhook_events_subject ON webhook_events (merchant_id, subject_id);
