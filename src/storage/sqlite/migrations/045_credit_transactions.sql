-- Issue 28. POST /credit: money to a card or bank account with no prior charge, stored as a
-- top-level transaction of type 'credit'. SQLite cannot change a CHECK constraint in place, so the
-- table is rebuilt (https://sqlite.org/lang_altertable.html#otheralter): a new table with every
-- column, rows copied with their rowid (the insertion order lists and snapshots sort by), the old
-- table dropped, the new one renamed, then every index and trigger made again as they were.
-- parent_id names transactions_new so the DROP (foreign keys on: an implicit DELETE of the old
-- table's rows) meets no row pointing at them; the RENAME rewrites it to transactions. Triggers do
-- not run for that implicit DELETE, so transaction_counts is untouched.
-- surcharge_cents (042) was added to this copy after 045 first shipped: 042 runs before 045 on a
-- database that has neither, and after it (adding the column to the rebuilt table) on one that
-- had 045 already, so either way the column is there once both have run.
CREATE TABLE transactions_new (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  parent_id TEXT REFERENCES transactions_new(id),
  invoice_id TEXT REFERENCES invoices(id),
  customer_id TEXT NOT NULL REFERENCES customers(id),
  payment_method_id TEXT NOT NULL REFERENCES payment_methods(id),
  method TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('charge', 'pre_auth', 'capture', 'void', 'refund', 'credit')),
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
  updated_at TEXT NOT NULL,
  captured_cents INTEGER NOT NULL DEFAULT 0,
  fee_cents INTEGER,
  avs_street_result TEXT,
  avs_zip_result TEXT,
  cvv_result TEXT,
  surcharge_cents INTEGER NOT NULL DEFAULT 0
);

INSERT INTO transactions_new (rowid, id, merchant_id, parent_id, invoice_id, customer_id, payment_method_id, method,
    type, success, total_cents, last_four, auth_id, issuer_auth_code, message, decline_code, meta, is_manual,
    is_merchant_present, receipt_email_at, receipt_sms_at, reference_id, source, pre_auth, is_captured, is_voided,
    total_refunded_cents, batch_id, settled_at, created_at, updated_at, captured_cents, fee_cents, avs_street_result,
    avs_zip_result, cvv_result, surcharge_cents)
  SELECT rowid, id, merchant_id, parent_id, invoice_id, customer_id, payment_method_id, method,
    type, success, total_cents, last_four, auth_id, issuer_auth_code, message, decline_code, meta, is_manual,
    is_merchant_present, receipt_email_at, receipt_sms_at, reference_id, source, pre_auth, is_captured, is_voided,
    total_refunded_cents, batch_id, settled_at, created_at, updated_at, captured_cents, fee_cents, avs_street_result,
    avs_zip_result, cvv_result, surcharge_cents
  FROM transactions ORDER BY rowid;

DROP TABLE transactions;
ALTER TABLE transactions_new RENAME TO transactions;

CREATE INDEX transactions_by_merchant ON transactions(merchant_id, created_at);
CREATE INDEX transactions_by_parent ON transactions(parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX transactions_by_invoice ON transactions(invoice_id, merchant_id) WHERE invoice_id IS NOT NULL;
CREATE INDEX transactions_by_customer ON transactions(merchant_id, customer_id);
CREATE INDEX transactions_children ON transactions(parent_id, created_at) WHERE parent_id IS NOT NULL;
CREATE INDEX transactions_by_batch ON transactions(batch_id) WHERE batch_id IS NOT NULL;
CREATE INDEX transactions_settled ON transactions(merchant_id, type) WHERE batch_id IS NOT NULL;
-- Credits settle in batches too (money out, like refunds).
CREATE INDEX transactions_unsettled ON transactions(merchant_id, method, created_at)
  WHERE batch_id IS NULL AND success = 1 AND is_voided = 0 AND type IN ('charge', 'capture', 'refund', 'credit');

CREATE TRIGGER transaction_counts_insert AFTER INSERT ON transactions WHEN NEW.parent_id IS NULL
BEGIN
  INSERT INTO transaction_counts (merchant_id, top_level) VALUES (NEW.merchant_id, 1)
    ON CONFLICT (merchant_id) DO UPDATE SET top_level = top_level + 1;
END;

CREATE TRIGGER transaction_counts_delete AFTER DELETE ON transactions WHEN OLD.parent_id IS NULL
BEGIN
  UPDATE transaction_counts SET top_level = top_level - 1 WHERE merchant_id = OLD.merchant_id;
END;

CREATE TRIGGER transaction_counts_update AFTER UPDATE OF merchant_id, parent_id ON transactions
  WHEN OLD.merchant_id IS NOT NEW.merchant_id OR (OLD.parent_id IS NULL) <> (NEW.parent_id IS NULL)
BEGIN
  UPDATE transaction_counts SET top_level = top_level - 1
    WHERE merchant_id = OLD.merchant_id AND OLD.parent_id IS NULL;
  INSERT INTO transaction_counts (merchant_id, top_level) SELECT NEW.merchant_id, 1 WHERE NEW.parent_id IS NULL
    ON CONFLICT (merchant_id) DO UPDATE SET top_level = top_level + 1;
END;
