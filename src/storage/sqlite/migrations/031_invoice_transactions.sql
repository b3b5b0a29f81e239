-- The transactions of a page of invoices are read with `invoice_id IN (...) AND merchant_id = ?`.
-- With an index on invoice_id alone, SQLite's planner took transactions_by_customer (merchant_id)
-- for a list of several ids and walked every transaction of the merchant: a page of invoices cost
-- O(the merchant's transactions). With both columns in one index each id is one seek.
DROP INDEX transactions_by_invoice;
CREATE INDEX transactions_by_invoice ON transactions(invoice_id, merchant_id) WHERE invoice_id IS NOT NULL;
