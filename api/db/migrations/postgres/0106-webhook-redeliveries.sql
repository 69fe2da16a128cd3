-- A redelivery (the merchant's "send again now") is an attempt off the retry schedule: it takes the
-- next attempt number, and one the endpoint accepts settles the queued delivery, but it does not
-- move the schedule on (the next automatic attempt comes when it was due, and the retries still
-- span the promised three days). `attempts` counts the scheduled ones, `redeliveries` the others.
ALTER TABLE webhook_deliveries ADD COLUMN redeliveries BIGINT NOT NULL DEFAULT 0;

-- Redeliveries made before this column were logged but not counted: count them from the log, so
-- the next attempt of such a delivery does not repeat a number.
UPDATE webhook_deliveries SET redeliveries = logged.n - webhook_deliveries.attempts
  FROM (SELECT endpoint_id, event_id, COUNT(*) AS n FROM webhook_attempts GROUP BY endpoint_id, event_id) AS logged
 WHERE logged.endpoint_id = webhook_deliveries.endpoint_id AND logged.event_id = webhook_deliveries.event_id AND logged.n > webhook_deliveries.attempts;
