-- The twin of the SQLite migration 019_webhook_claims. Several dispatchers (processes) serve one
-- database: a pending delivery is sent by the one that claimed it. claimed_by names the dispatcher
-- holding the claim; NULL = free to claim.
ALTER TABLE webhook_deliveries ADD COLUMN claimed_by TEXT;
-- The due-time index the dispatcher walks: per merchant, unclaimed pending deliveries by due time.
CREATE INDEX webhook_deliveries_ready ON webhook_deliveries(merchant_id, next_attempt_at_ms)
  WHERE status = 'pending' AND claimed_by IS NULL;
CREATE INDEX webhook_deliveries_claimed ON webhook_deliveries(claimed_by) WHERE claimed_by IS NOT NULL;
-- The dispatchers holding claims, with the real time (epoch ms) each last said it is alive.
CREATE TABLE webhook_dispatchers (
  id TEXT PRIMARY KEY,
  heartbeat_ms BIGINT NOT NULL
);
-- The order of a delivery's attempts (an interrupted attempt and its re-send share a number).
ALTER TABLE webhook_attempts ADD COLUMN ordinal INTEGER NOT NULL DEFAULT 0;
CREATE INDEX webhook_attempts_by_ordinal ON webhook_attempts(delivery_id, ordinal);
