-- Issue 29. What the issuer's checks answered on each card authorization (match, no_match,
-- unavailable, not_provided); only the results are kept, never the CVV or the card number. The
-- CVV is seen once, at tokenize, so its result is kept on the payment method for its charges.
-- Rows from before this migration have no results (NULL).
ALTER TABLE payment_methods ADD COLUMN cvv_result TEXT;
ALTER TABLE transactions ADD COLUMN avs_street_result TEXT;
ALTER TABLE transactions ADD COLUMN avs_zip_result TEXT;
ALTER TABLE transactions ADD COLUMN cvv_result TEXT;

-- Outcome sequences (POST /_sandbox/outcomes): a payment method's next authorizations take these
-- outcomes in seq order, each consumed by the charge's unit of work, then its own again.
CREATE TABLE sandbox_outcomes (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  payment_method_id TEXT NOT NULL REFERENCES payment_methods(id),
  seq INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX sandbox_outcomes_next ON sandbox_outcomes(payment_method_id, seq);
CREATE INDEX sandbox_outcomes_by_merchant ON sandbox_outcomes(merchant_id, seq);
