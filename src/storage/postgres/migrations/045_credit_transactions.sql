-- Issue 28. POST /credit: money to a card or bank account with no prior charge, stored as a
-- top-level transaction of type 'credit' (SQLite rebuilds its table for this; here the CHECK is
-- replaced in place). Credits settle in batches too (money out, like refunds).
ALTER TABLE transactions DROP CONSTRAINT transactions_type_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_type_check
  CHECK (type IN ('charge', 'pre_auth', 'capture', 'void', 'refund', 'credit'));
DROP INDEX transactions_unsettled;
CREATE INDEX transactions_unsettled ON transactions(merchant_id, method, created_at)
  WHERE batch_id IS NULL AND success = 1 AND is_voided = 0 AND type IN ('charge', 'capture', 'refund', 'credit');
