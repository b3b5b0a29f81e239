-- Issue 30. Catalog items (POST /item …) and payment links (POST /query/payment-links …).
-- Money in cents; stock never below zero (the decrement is one conditional UPDATE, the CHECK a
-- backstop). A code is unique among a merchant's live items (checked under a lock, the index
-- answers the look-up). Links keep their line items in link_meta; expiry, uses and the usage
-- statistics are columns, decided on the merchant's sandbox clock.
CREATE TABLE items (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  item TEXT NOT NULL,
  code TEXT NOT NULL DEFAULT '',
  category TEXT NOT NULL DEFAULT '',
  details TEXT NOT NULL DEFAULT '',
  is_active INTEGER NOT NULL DEFAULT 1,
  is_taxable INTEGER NOT NULL DEFAULT 0,
  is_service INTEGER NOT NULL DEFAULT 0,
  is_discount INTEGER NOT NULL DEFAULT 0,
  price_cents INTEGER NOT NULL DEFAULT 0,
  in_stock INTEGER NOT NULL DEFAULT 0 CHECK (in_stock >= 0),
  low_stock_alert INTEGER,
  meta TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX items_by_merchant ON items(merchant_id, created_at);
CREATE INDEX items_by_code ON items(merchant_id, code);

CREATE TABLE payment_links (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  common_name TEXT NOT NULL,
  url TEXT NOT NULL,
  link_meta TEXT NOT NULL DEFAULT '{}',
  amount_cents INTEGER NOT NULL DEFAULT 0,
  active INTEGER NOT NULL DEFAULT 1,
  expires_at TEXT,
  max_uses INTEGER,
  uses INTEGER NOT NULL DEFAULT 0,
  total_sales_cents INTEGER NOT NULL DEFAULT 0,
  total_transactions INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT,
  deleted_at TEXT
);
CREATE INDEX payment_links_by_merchant ON payment_links(merchant_id, created_at);
