-- Performance (issue 9). Measured with `npm run bench`; see README "Performance".

-- A transaction's children (captures, voids, refunds) in creation order straight from an index:
-- without it every transaction record sorted its (usually zero) children in a temp B-tree,
-- ~10 µs each, paid twice per charge and 25 times per list page.
CREATE INDEX transactions_children ON transactions(parent_id, created_at) WHERE parent_id IS NOT NULL;

-- The unfiltered transaction list's total without COUNT(*) over every row of the merchant
-- (~150 ms at 1,000,000 rows): a per-merchant counter of top-level transactions kept by triggers,
-- so every writer (charges, imports, resets) keeps it right without knowing about it.
CREATE TABLE transaction_counts (
  merchant_id TEXT PRIMARY KEY,
  top_level INTEGER NOT NULL DEFAULT 0
);

INSERT INTO transaction_counts (merchant_id, top_level)
  SELECT merchant_id, COUNT(*) FROM transactions WHERE parent_id IS NULL GROUP BY merchant_id;

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
