-- Issue 32. Merchant snapshots (POST /_sandbox/snapshots): each names a copy of one merchant's
-- state. `merchant` is its merchants row as JSON; sandbox_snapshot_rows holds, per table, that
-- table's rows of the merchant as one JSON array (copied and put back in SQL, never row by row).
-- Not the merchant's state themselves: the reset and a restore keep them.
CREATE TABLE sandbox_snapshots (
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  name TEXT NOT NULL,
  merchant TEXT NOT NULL,
  records INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (merchant_id, name)
);

CREATE TABLE sandbox_snapshot_rows (
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  snapshot TEXT NOT NULL,
  table_name TEXT NOT NULL,
  row_count INTEGER NOT NULL,
  rows TEXT NOT NULL,
  PRIMARY KEY (merchant_id, snapshot, table_name)
);
