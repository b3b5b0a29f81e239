-- The twin of the SQLite migration 020_outbox_order: the order the outboxes list messages in,
-- newest first; seq grows with each message (created_at has whole seconds).
ALTER TABLE emails ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
CREATE INDEX emails_by_seq ON emails(merchant_id, seq);
ALTER TABLE sms ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
CREATE INDEX sms_by_seq ON sms(merchant_id, seq);
