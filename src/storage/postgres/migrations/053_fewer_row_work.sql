-- Issue 33: PostgreSQL's own work per row written.
--
-- 1. Two indexes no query needs go (on SQLite too): every index of a table is one more entry to write,
--    and one more relation to lock and open, for each row inserted.
--    - transactions_by_parent (parent_id) WHERE parent_id IS NOT NULL is a prefix of transactions_children
--      (parent_id, created_at) with the same predicate: the children lookups, the captures' sums and voids,
--      the batch filter's EXISTS and the parent_id foreign key's checks seek that one instead;
--    - emails_by_merchant (merchant_id, created_at): no statement filters or orders e-mails by created_at;
--      a merchant's e-mails are read in outbox order (emails_by_seq) or by transaction or invoice
--      (emails_of_transaction, emails_of_invoice).
DROP INDEX transactions_by_parent;
DROP INDEX emails_by_merchant;

-- 2. PostgreSQL only (035's counter slots are PostgreSQL's; SQLite's triggers stay per row): the list
--    total's counter moves once per statement, not once per row. A row trigger ran its upsert for each
--    top-level row, and every upsert of one statement rewrote the same slot row again inside one
--    transaction, each walking the versions the earlier ones left: 20,000 rows inserted by one statement
--    took 4.1-5.6 s, deleted 4.2-4.5 s; per statement (the rows it wrote, grouped by merchant, in
--    merchant order so two statements sharing a slot lock its rows in one order) 0.7-1.0 s and 0.6-0.9 s.
--    What that serves: the group commit's many charges in one INSERT, a reset's or a restore's bulk
--    DELETE and INSERT. A one-row INSERT pays ~5-10 µs more for its transition table. Same slots, same
--    sums, same locks (the slot rows, until COMMIT). The UPDATE trigger stays per row: a trigger with
--    transition tables cannot name columns (UPDATE OF), so it would capture every updated row of every
--    UPDATE, while the row trigger fires only when parent_id or merchant_id moves (almost never).
DROP TRIGGER transaction_counts_insert ON transactions;
DROP TRIGGER transaction_counts_delete ON transactions;

CREATE OR REPLACE FUNCTION transaction_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO transaction_counts (merchant_id, slot, top_level)
    SELECT merchant_id, transaction_count_slot(), COUNT(*) FROM inserted_rows WHERE parent_id IS NULL
      GROUP BY merchant_id ORDER BY merchant_id
    ON CONFLICT (merchant_id, slot) DO UPDATE SET top_level = transaction_counts.top_level + EXCLUDED.top_level;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION transaction_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO transaction_counts (merchant_id, slot, top_level)
    SELECT merchant_id, transaction_count_slot(), -COUNT(*) FROM deleted_rows WHERE parent_id IS NULL
      GROUP BY merchant_id ORDER BY merchant_id
    ON CONFLICT (merchant_id, slot) DO UPDATE SET top_level = transaction_counts.top_level + EXCLUDED.top_level;
  RETURN NULL;
END;
$$;

CREATE TRIGGER transaction_counts_insert AFTER INSERT ON transactions
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION transaction_counts_insert();
CREATE TRIGGER transaction_counts_delete AFTER DELETE ON transactions
  REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION transaction_counts_delete();
