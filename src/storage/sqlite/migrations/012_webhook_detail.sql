-- What the dashboard's delivery view shows and what an endpoint can be switched to.
-- A disabled webhook keeps its deliveries but receives nothing new until it is enabled again;
-- its pending deliveries wait (they are neither sent nor cancelled).
ALTER TABLE webhooks ADD COLUMN disabled_at TEXT;
-- The headers sent (JSON object) and the headers of the receiver's answer (JSON object), per attempt.
ALTER TABLE webhook_attempts ADD COLUMN request_headers TEXT;
ALTER TABLE webhook_attempts ADD COLUMN response_headers TEXT;
