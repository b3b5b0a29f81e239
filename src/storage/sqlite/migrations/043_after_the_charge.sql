-- Issue 31. What happens after the charge: deposit adjustments (ACH returns and their fees, dispute
-- withdrawals and reversals: every movement of a merchant's money that is not a sale or a refund),
-- the ACH returns of documented test accounts, and the card updates of documented test cards.

-- One row per adjustment. amount_cents is signed, as it moves the merchant's money: negative
-- withdraws (a return, a fee, a dispute), positive gives back (a dispute won). It takes effect at
-- effective_at (sandbox time) and is picked up by the first deposit landing at or after it
-- (deposit_id, set then). `dedupe_key` makes each adjustment happen once per merchant
-- ("ach_return:<transaction id>").
CREATE TABLE deposit_adjustments (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  dedupe_key TEXT NOT NULL,
  kind TEXT NOT NULL,
  method TEXT NOT NULL CHECK (method IN ('card', 'bank')),
  amount_cents INTEGER NOT NULL,
  transaction_id TEXT REFERENCES transactions(id),
  -- The record it comes from, when that is not the transaction: a return's void child, a dispute.
  source_id TEXT,
  -- A return code (R01), a dispute reason.
  code TEXT,
  description TEXT NOT NULL DEFAULT '',
  meta TEXT NOT NULL DEFAULT '{}',
  effective_at TEXT NOT NULL,
  deposit_id TEXT REFERENCES deposits(id),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (merchant_id, dedupe_key)
);
CREATE INDEX deposit_adjustments_by_merchant ON deposit_adjustments(merchant_id, effective_at);
CREATE INDEX deposit_adjustments_pending ON deposit_adjustments(merchant_id, effective_at) WHERE deposit_id IS NULL;
CREATE INDEX deposit_adjustments_by_deposit ON deposit_adjustments(deposit_id) WHERE deposit_id IS NOT NULL;
CREATE INDEX deposit_adjustments_by_transaction ON deposit_adjustments(transaction_id) WHERE transaction_id IS NOT NULL;

-- The signed sum of the adjustments a deposit picked up (net includes it).
ALTER TABLE deposits ADD COLUMN adjustments_cents INTEGER NOT NULL DEFAULT 0;

-- A test account that approves and is returned later: the return code and how many business days
-- after settlement the return comes (packages/rules/ach-returns.ts).
ALTER TABLE payment_methods ADD COLUMN ach_return_code TEXT;
ALTER TABLE payment_methods ADD COLUMN ach_return_days INTEGER;
-- A test card its brand updates: when (sandbox time; null once done or never) and to what (JSON).
ALTER TABLE payment_methods ADD COLUMN card_update_at TEXT;
ALTER TABLE payment_methods ADD COLUMN card_update TEXT;
CREATE INDEX payment_methods_card_updates ON payment_methods(merchant_id, card_update_at)
  WHERE card_update_at IS NOT NULL;

-- The ACH returns to come and done: one row per settled bank charge on a returning account,
-- written when its batch closes (a table of its own: migration 045 rebuilds transactions on SQLite).
CREATE TABLE ach_returns (
  transaction_id TEXT PRIMARY KEY REFERENCES transactions(id),
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  code TEXT NOT NULL,
  -- When the bank returns it (a midnight, sandbox time).
  return_at TEXT NOT NULL,
  -- Set when done, with the void child it added.
  returned_at TEXT,
  void_id TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX ach_returns_due ON ach_returns(merchant_id, return_at) WHERE returned_at IS NULL;
