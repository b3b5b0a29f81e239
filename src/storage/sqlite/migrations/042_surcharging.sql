-- Issue 30, surcharging. The merchant's switch and rate (basis points: 300 is 3%), each card's
-- funding as its BIN says (bin_type: CREDIT, DEBIT or PREPAID; null for a bank account; every card
-- tokenized before this was a credit test card), and the surcharge part of each transaction's
-- total (a charge's, and the share a capture, void or refund carries).
-- 045 rebuilds transactions after this on a new database, so its copy names surcharge_cents too.
ALTER TABLE merchants ADD COLUMN is_surcharge_enabled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE merchants ADD COLUMN surcharge_rate_bps INTEGER NOT NULL DEFAULT 0;
ALTER TABLE payment_methods ADD COLUMN bin_type TEXT;
UPDATE payment_methods SET bin_type = 'CREDIT' WHERE method = 'card';
ALTER TABLE transactions ADD COLUMN surcharge_cents INTEGER NOT NULL DEFAULT 0;
