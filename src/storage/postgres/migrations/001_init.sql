-- The PostgreSQL schema, equal to the SQLite schema after every SQLite migration up to
-- 018_merchant_options (src/storage/sqlite/migrations): the same tables, columns, defaults, checks,
-- keys and indexes, and the transaction-count triggers in PL/pgSQL. A later SQLite migration gets
-- its PostgreSQL twin here under the same number.
--
-- Types follow the portable conventions: timestamps are TEXT 'YYYY-MM-DD HH:MM:SS' UTC, flags are
-- INTEGER 0/1, cents are integers. BIGINT where a value outgrows 32 bits: money (a total may be
-- 99,999,999.99, i.e. 9,999,999,999 cents; sums grow beyond), epoch milliseconds and clock offsets.
-- The executor hands BIGINT values back as JS numbers.

CREATE TABLE merchants (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT NOT NULL DEFAULT '',
  web_payments_token TEXT NOT NULL,
  web_payments_token_hash TEXT NOT NULL UNIQUE,
  api_key TEXT NOT NULL,
  api_key_hash TEXT NOT NULL UNIQUE,
  webhook_secret TEXT NOT NULL,
  avs_zip INTEGER NOT NULL DEFAULT 0,
  avs_street INTEGER NOT NULL DEFAULT 0,
  advanced_customization INTEGER NOT NULL DEFAULT 0,
  ach_settlement_days INTEGER NOT NULL DEFAULT 2,
  clock_offset_ms BIGINT NOT NULL DEFAULT 0,
  is_default INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  -- Advanced Customization custom fields (JSON array) and receipt options (JSON object)
  custom_fields TEXT NOT NULL DEFAULT '[]',
  receipt_options TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE customers (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  firstname TEXT NOT NULL DEFAULT '',
  lastname TEXT NOT NULL DEFAULT '',
  company TEXT NOT NULL DEFAULT '',
  email TEXT NOT NULL DEFAULT '',
  phone TEXT NOT NULL DEFAULT '',
  address_1 TEXT NOT NULL DEFAULT '',
  address_2 TEXT NOT NULL DEFAULT '',
  address_city TEXT NOT NULL DEFAULT '',
  address_state TEXT NOT NULL DEFAULT '',
  address_zip TEXT NOT NULL DEFAULT '',
  address_country TEXT NOT NULL DEFAULT '',
  reference TEXT NOT NULL DEFAULT '',
  notes TEXT,
  options TEXT,
  cc_emails TEXT,
  cc_sms TEXT,
  allow_invoice_credit_card_payments INTEGER NOT NULL DEFAULT 1,
  gravatar INTEGER NOT NULL DEFAULT 0,
  -- lower(email) || '|' || lower(firstname) || '|' || lower(lastname): the tokenize match rule
  match_key TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX customers_by_merchant ON customers(merchant_id, created_at);
CREATE INDEX customers_by_match ON customers(merchant_id, match_key) WHERE deleted_at IS NULL;

CREATE TABLE payment_methods (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  customer_id TEXT NOT NULL REFERENCES customers(id),
  method TEXT NOT NULL CHECK (method IN ('card', 'bank')),
  person_name TEXT NOT NULL,
  card_type TEXT,
  card_last_four TEXT,
  card_exp TEXT,
  bank_name TEXT,
  bank_type TEXT,
  bank_holder_type TEXT,
  bank_last_four TEXT,
  bank_routing TEXT,
  address_zip TEXT,
  address_1 TEXT,
  has_cvv INTEGER NOT NULL DEFAULT 0,
  -- HMAC of the full number: recognises the same card again without keeping it
  fingerprint TEXT NOT NULL,
  -- the simulated processor's scenario for this test card or account
  outcome TEXT NOT NULL,
  nickname TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX payment_methods_by_customer ON payment_methods(customer_id, created_at);

CREATE TABLE invoices (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  customer_id TEXT REFERENCES customers(id),
  payment_method_id TEXT REFERENCES payment_methods(id),
  status TEXT NOT NULL DEFAULT 'DRAFT',
  total_cents BIGINT NOT NULL,
  total_paid_cents BIGINT NOT NULL DEFAULT 0,
  is_partial_payment_enabled INTEGER NOT NULL DEFAULT 0,
  is_webpayment INTEGER NOT NULL DEFAULT 0,
  is_merchant_present INTEGER,
  payment_attempt_failed INTEGER NOT NULL DEFAULT 0,
  payment_attempt_message TEXT NOT NULL DEFAULT '',
  send_receipt INTEGER NOT NULL DEFAULT 1,
  email TEXT,
  meta TEXT NOT NULL DEFAULT '{}',
  url TEXT NOT NULL,
  schedule_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  invoice_date_at TEXT NOT NULL,
  paid_at TEXT,
  due_at TEXT,
  sent_at TEXT,
  viewed_at TEXT,
  deleted_at TEXT
);
CREATE INDEX invoices_by_merchant ON invoices(merchant_id, created_at);

CREATE TABLE transactions (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  parent_id TEXT REFERENCES transactions(id),
  invoice_id TEXT REFERENCES invoices(id),
  customer_id TEXT NOT NULL REFERENCES customers(id),
  payment_method_id TEXT NOT NULL REFERENCES payment_methods(id),
  method TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('charge', 'pre_auth', 'capture', 'void', 'refund')),
  success INTEGER NOT NULL,
  total_cents BIGINT NOT NULL,
  last_four TEXT NOT NULL DEFAULT '',
  auth_id TEXT,
  issuer_auth_code TEXT,
  message TEXT,
  decline_code TEXT,
  meta TEXT NOT NULL DEFAULT '{}',
  is_manual INTEGER NOT NULL DEFAULT 0,
  is_merchant_present INTEGER NOT NULL DEFAULT 0,
  receipt_email_at TEXT,
  receipt_sms_at TEXT,
  reference_id TEXT NOT NULL DEFAULT '',
  source TEXT,
  pre_auth INTEGER NOT NULL DEFAULT 0,
  is_captured INTEGER NOT NULL DEFAULT 0,
  is_voided INTEGER NOT NULL DEFAULT 0,
  total_refunded_cents BIGINT NOT NULL DEFAULT 0,
  batch_id TEXT,
  settled_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  -- a pre_auth's captured amount (0 until captured); refunds of a captured pre_auth are bounded by it
  captured_cents BIGINT NOT NULL DEFAULT 0,
  -- the processing fee charged when it settled (null until settled; 0 on refunds)
  fee_cents BIGINT
);
CREATE INDEX transactions_by_merchant ON transactions(merchant_id, created_at);
CREATE INDEX transactions_by_parent ON transactions(parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX transactions_by_invoice ON transactions(invoice_id) WHERE invoice_id IS NOT NULL;
CREATE INDEX transactions_by_customer ON transactions(merchant_id, customer_id);
CREATE INDEX transactions_children ON transactions(parent_id, created_at) WHERE parent_id IS NOT NULL;
-- what the settlement jobs look for: money-moving rows not yet in a batch
CREATE INDEX transactions_unsettled ON transactions(merchant_id, method, created_at)
  WHERE batch_id IS NULL AND success = 1 AND is_voided = 0 AND type IN ('charge', 'capture', 'refund');
CREATE INDEX transactions_by_batch ON transactions(batch_id) WHERE batch_id IS NOT NULL;

-- Idempotency-Key replay store: one row per merchant, route and key.
CREATE TABLE idempotency_keys (
  merchant_id TEXT NOT NULL,
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  status INTEGER NOT NULL,
  body TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (merchant_id, scope, key)
);

-- Secrets of this sandbox database (the fingerprint key).
CREATE TABLE sandbox_settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- The e-mail and SMS outboxes.
CREATE TABLE emails (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  -- receipt | receipt_failed | transaction_receipt
  kind TEXT NOT NULL,
  message_id TEXT NOT NULL,
  from_address TEXT NOT NULL,
  to_address TEXT NOT NULL,
  subject TEXT NOT NULL,
  text TEXT NOT NULL,
  html TEXT NOT NULL,
  -- the full MIME message (.eml)
  raw TEXT NOT NULL,
  invoice_id TEXT,
  transaction_id TEXT,
  -- off (no --smtp) | pending | sent | failed
  relay_status TEXT NOT NULL DEFAULT 'off',
  relay_error TEXT,
  relayed_at TEXT,
  created_at TEXT NOT NULL,
  -- the copies and reply address a receipt went out with (JSON array of addresses; '' for none)
  cc_addresses TEXT NOT NULL DEFAULT '[]',
  reply_to TEXT NOT NULL DEFAULT ''
);
CREATE INDEX emails_by_merchant ON emails(merchant_id, created_at);
CREATE INDEX emails_by_to ON emails(merchant_id, to_address);

CREATE TABLE sms (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  to_phone TEXT NOT NULL,
  body TEXT NOT NULL,
  transaction_id TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX sms_by_merchant ON sms(merchant_id, created_at);

-- Settlement batches whose deposits pay the merchant out.
CREATE TABLE deposits (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  batch_id TEXT NOT NULL UNIQUE,
  method TEXT NOT NULL CHECK (method IN ('card', 'bank')),
  settled_at TEXT NOT NULL,
  deposit_at TEXT NOT NULL,
  deposited_at TEXT,
  transaction_count INTEGER NOT NULL,
  gross_cents BIGINT NOT NULL,
  refunds_cents BIGINT NOT NULL,
  fees_cents BIGINT NOT NULL,
  net_cents BIGINT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX deposits_by_merchant ON deposits(merchant_id, deposit_at);
CREATE INDEX deposits_pending ON deposits(merchant_id, deposit_at) WHERE deposited_at IS NULL;

-- Webhook subscriptions and their durable outbox.
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  target_url TEXT NOT NULL,
  -- an event name, or '*' for every event
  event TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT,
  -- a disabled webhook keeps its deliveries but receives nothing new until enabled again
  disabled_at TEXT
);
CREATE INDEX webhooks_by_merchant ON webhooks(merchant_id, created_at);

CREATE TABLE webhook_deliveries (
  -- seq orders deliveries: a later event for a record waits for every earlier one
  seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
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
  next_attempt_at_ms BIGINT,
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
  error TEXT,
  -- the headers sent and the headers of the receiver's answer (JSON objects)
  request_headers TEXT,
  response_headers TEXT
);
CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts(delivery_id, started_at);
CREATE INDEX webhook_attempts_unfinished ON webhook_attempts(finished) WHERE finished = 0;

-- The unfiltered transaction list's total without COUNT(*) over every row of the merchant: a
-- per-merchant counter of top-level transactions kept by triggers, so every writer keeps it right.
CREATE TABLE transaction_counts (
  merchant_id TEXT PRIMARY KEY,
  top_level INTEGER NOT NULL DEFAULT 0
);

CREATE FUNCTION transaction_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO transaction_counts (merchant_id, top_level) VALUES (NEW.merchant_id, 1)
    ON CONFLICT (merchant_id) DO UPDATE SET top_level = transaction_counts.top_level + 1;
  RETURN NULL;
END;
$$;
CREATE TRIGGER transaction_counts_insert AFTER INSERT ON transactions
  FOR EACH ROW WHEN (NEW.parent_id IS NULL) EXECUTE FUNCTION transaction_counts_insert();

CREATE FUNCTION transaction_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE transaction_counts SET top_level = top_level - 1 WHERE merchant_id = OLD.merchant_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER transaction_counts_delete AFTER DELETE ON transactions
  FOR EACH ROW WHEN (OLD.parent_id IS NULL) EXECUTE FUNCTION transaction_counts_delete();

CREATE FUNCTION transaction_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.parent_id IS NULL THEN
    UPDATE transaction_counts SET top_level = top_level - 1 WHERE merchant_id = OLD.merchant_id;
  END IF;
  IF NEW.parent_id IS NULL THEN
    INSERT INTO transaction_counts (merchant_id, top_level) VALUES (NEW.merchant_id, 1)
      ON CONFLICT (merchant_id) DO UPDATE SET top_level = transaction_counts.top_level + 1;
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER transaction_counts_update AFTER UPDATE OF merchant_id, parent_id ON transactions
  FOR EACH ROW WHEN (OLD.merchant_id IS DISTINCT FROM NEW.merchant_id OR (OLD.parent_id IS NULL) <> (NEW.parent_id IS NULL))
  EXECUTE FUNCTION transaction_counts_update();
