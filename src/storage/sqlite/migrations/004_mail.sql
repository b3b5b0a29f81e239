-- The e-mail and SMS outboxes: every message the sandbox sends is kept here, viewable through
-- /_sandbox/emails and /_sandbox/sms; e-mails are also relayed when --smtp is given.
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
  created_at TEXT NOT NULL
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
