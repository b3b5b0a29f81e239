-- Issue 32. Fixture documents applied once (POST /_sandbox/fixtures with "once", --fixtures FILE):
-- the document's hash and the results it answered. Part of the merchant's state: a reset forgets
-- them (the records they made are gone too), a snapshot keeps them.
CREATE TABLE sandbox_fixtures (
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  hash TEXT NOT NULL,
  results TEXT NOT NULL,
  applied_at TEXT NOT NULL,
  PRIMARY KEY (merchant_id, hash)
);
