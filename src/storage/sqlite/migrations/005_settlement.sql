-- Money movement after the charge: captured amounts, per-transaction fees, and the settlement
-- batches whose deposits pay the merchant out. Money is integer cents.

-- A pre_auth's captured amount (0 until captured); refunds of a captured pre_auth are bounded by it.
ALTER TABLE transactions ADD COLUMN captured_cents INTEGER NOT NULL DEFAULT 0;
-- The processing fee charged on this transaction when it settled (null until settled; 0 on refunds).
ALTER TABLE transactions ADD COLUMN fee_cents INTEGER;

-- One row per settlement batch (card: every crossed midnight UTC; ACH: every settlement midnight).
-- The deposit of a batch lands at deposit_at; deposited_at is set when it has landed.
CREATE TABLE deposits (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  batch_id TEXT NOT NULL UNIQUE,
  method TEXT NOT NULL CHECK (method IN ('card', 'bank')),
  settled_at TEXT NOT NULL,
  deposit_at TEXT NOT NULL,
  deposited_at TEXT,
  transaction_count INTEGER NOT NULL,
  gross_cents INTEGER NOT NULL,
  refunds_cents INTEGER NOT NULL,
  fees_cents INTEGER NOT NULL,
  net_cents INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX deposits_by_merchant ON deposits(merchant_id, deposit_at);
CREATE INDEX deposits_pending ON deposits(merchant_id, deposit_at) WHERE deposited_at IS NULL;

-- What the settlement jobs look for: money-moving rows not yet in a batch.
CREATE INDEX transactions_unsettled ON transactions(merchant_id, method, created_at)
  WHERE batch_id IS NULL AND success = 1 AND is_voided = 0 AND type IN ('charge', 'capture', 'refund');
CREATE INDEX transactions_by_batch ON transactions(batch_id) WHERE batch_id IS NOT NULL;
