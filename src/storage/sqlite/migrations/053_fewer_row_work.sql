-- Issue 33: two indexes no query needs go (as on PostgreSQL): every index of a table is one more entry
-- to write for each row inserted.
-- - transactions_by_parent (parent_id) WHERE parent_id IS NOT NULL is a prefix of transactions_children
--   (parent_id, created_at) with the same predicate: the children lookups, the captures' sums and voids
--   and the batch filter's EXISTS seek that one instead;
-- - emails_by_merchant (merchant_id, created_at): no statement filters or orders e-mails by created_at;
--   a merchant's e-mails are read in outbox order (emails_by_seq) or by transaction or invoice
--   (emails_of_transaction, emails_of_invoice).
-- PostgreSQL's 053 also moves its counter triggers to once per statement; SQLite's stay per row (one
-- writer, one counter row per merchant, no versions to walk).
DROP INDEX transactions_by_parent;
DROP INDEX emails_by_merchant;
