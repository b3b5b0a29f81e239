-- Webhook subscriptions and their durable outbox. Delivery rows are written in the same
-- transaction as the change they announce; the dispatcher sends them and logs every attempt.
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  target_url TEXT NOT NULL,
  -- an event name, or '*' for every event
  event TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX webhooks_by_merchant ON webhooks(merchant_id, created_at);

CREATE TABLE webhook_deliveries (
  -- seq orders deliveries: a later event for a record waits for every earlier one
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  webhook_id TEXT NOT NULL REFERENCES webhooks(id),
  event TEXT NOT NULL,
  record_id TEXT NOT NULL,
  -- the exact bytes sent: the record as the API returned it when the event happened
  body TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
  -- completed attempts (an attempt cut short by a stop of the sandbox does not count)
  attempts INTEGER NOT NULL DEFAULT 0,
  -- on the merchant's sandbox clock, epoch milliseconds
  next_attempt_at_ms INTEGER,
  last_status_code INTEGER,
  last_error TEXT,
  redelivery_of TEXT,
  delivered_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(merchant_id, next_attempt_at_ms) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_record ON webhook_deliveries(webhook_id, record_id, seq) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries(webhook_id, seq);
CREATE INDEX webhook_deliveries_by_merchant ON webhook_deliveries(merchant_id, seq);

CREATE TABLE webhook_attempts (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id),
  attempt INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  -- 0 while the request is out; 1 once answered, failed or interrupted
  finished INTEGER NOT NULL DEFAULT 0,
  success INTEGER NOT NULL DEFAULT 0,
  status_code INTEGER,
  latency_ms INTEGER,
  response_snippet TEXT,
  error TEXT
);
CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts(delivery_id, started_at);
CREATE INDEX webhook_attempts_unfinished ON webhook_attempts(finished) WHERE finished = 0;
