-- Core records. Money is integer cents; timestamps are 'YYYY-MM-DD HH:MM:SS' UTC text.
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
  clock_offset_ms INTEGER NOT NULL DEFAULT 0,
  is_default INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
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
  -- HMAC of the full number: recognises the same card again without keeping it
  has_cvv INTEGER NOT NULL DEFAULT 0,
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
  total_cents INTEGER NOT NULL,
  total_paid_cents INTEGER NOT NULL DEFAULT 0,
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
  total_cents INTEGER NOT NULL,
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
  total_refunded_cents INTEGER NOT NULL DEFAULT 0,
  batch_id TEXT,
  settled_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX transactions_by_merchant ON transactions(merchant_id, created_at);
CREATE INDEX transactions_by_parent ON transactions(parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX transactions_by_invoice ON transactions(invoice_id) WHERE invoice_id IS NOT NULL;
CREATE INDEX transactions_by_customer ON transactions(merchant_id, customer_id);

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
