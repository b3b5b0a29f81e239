-- Issue 33: emails_by_to (merchant_id, to_address) goes (as on PostgreSQL): every statement that filters
-- e-mails by address compares lower(to_address) (src/storage/repositories/emails.ts), which an index on
-- the column itself cannot serve, so the index was one more entry to write for each e-mail and none read.
-- PostgreSQL's 056 also widens its counter slots and compresses e-mail bodies with lz4.
DROP INDEX emails_by_to;
