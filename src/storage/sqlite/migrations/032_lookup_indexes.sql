-- Lookups that walked every row of a merchant (found with EXPLAIN QUERY PLAN over the API and
-- dashboard flows; tests/storage/query-plans.test.ts keeps them sought):
-- tokenize's customer match (ORDER BY created_at LIMIT 1 made SQLite walk customers_by_merchant
-- in date order until a match: every customer of the merchant for a new e-mail);
DROP INDEX customers_by_match;
CREATE INDEX customers_by_match ON customers(merchant_id, match_key, created_at) WHERE deleted_at IS NULL;
-- the deliveries of one record (a dashboard transaction page), newest first;
CREATE INDEX webhook_deliveries_of_record ON webhook_deliveries(merchant_id, record_id, seq);
-- the e-mails of one transaction or invoice (the same page), newest first;
CREATE INDEX emails_of_transaction ON emails(merchant_id, transaction_id, seq);
CREATE INDEX emails_of_invoice ON emails(merchant_id, invoice_id, seq);
-- the settled rows a clock advance counts before and after it runs (partial: a new charge, not
-- yet in a batch, writes nothing to it).
CREATE INDEX transactions_settled ON transactions(merchant_id, type) WHERE batch_id IS NOT NULL;
