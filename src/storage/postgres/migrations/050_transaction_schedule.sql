-- Issue 30 (the twin of SQLite's 050). The real transaction record's schedule_id: the invoice
-- schedule whose invoice the transaction paid and, copied from their parent, its captures, voids
-- and refunds. Null for every other transaction.
ALTER TABLE transactions ADD COLUMN schedule_id TEXT;
