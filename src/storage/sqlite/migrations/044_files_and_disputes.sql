-- Issue 31. Files (POST /file, evidence for disputes) and card disputes.

-- A stored file: its bytes with the metadata sniffed from them (never from the name). A dispute's
-- evidence names its dispute; deleting evidence sets deleted_at (its bytes stay unserved).
CREATE TABLE files (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  name TEXT NOT NULL,
  tag TEXT,
  dispute_id TEXT,
  extension TEXT NOT NULL,
  mime TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  width INTEGER,
  height INTEGER,
  content BLOB NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX files_by_merchant ON files(merchant_id, created_at);
CREATE INDEX files_by_dispute ON files(dispute_id) WHERE dispute_id IS NOT NULL;

-- A test card whose charges are disputed: the reason and how many days after settlement.
ALTER TABLE payment_methods ADD COLUMN dispute_reason TEXT;
ALTER TABLE payment_methods ADD COLUMN dispute_days INTEGER;
CREATE INDEX payment_methods_disputes ON payment_methods(merchant_id) WHERE dispute_reason IS NOT NULL;

-- A dispute of a settled card sale (one per transaction: the UNIQUE makes opening it happen once).
-- next_at is the sandbox time of its next clock step (the due date while it awaits an answer, the
-- decision once submitted); null once closed.
CREATE TABLE disputes (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  transaction_id TEXT NOT NULL UNIQUE REFERENCES transactions(id),
  reason TEXT NOT NULL,
  amount_cents INTEGER NOT NULL,
  fee_cents INTEGER NOT NULL,
  status TEXT NOT NULL,
  respond_by TEXT NOT NULL,
  -- The text the merchant submitted with its evidence (POST /underwriting/dispute/{id}/submit).
  notes TEXT,
  submitted_at TEXT,
  outcome TEXT,
  closed_at TEXT,
  next_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX disputes_by_merchant ON disputes(merchant_id, created_at);
CREATE INDEX disputes_next ON disputes(merchant_id, next_at) WHERE next_at IS NOT NULL;
