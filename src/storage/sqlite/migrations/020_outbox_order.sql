-- The order the outboxes list messages in, newest first, that both dialects share: seq grows with
-- each message (created_at has whole seconds, and several receipts go out in one).
ALTER TABLE emails ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
UPDATE emails SET seq = rowid;
CREATE INDEX emails_by_seq ON emails(merchant_id, seq);
ALTER TABLE sms ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
UPDATE sms SET seq = rowid;
CREATE INDEX sms_by_seq ON sms(merchant_id, seq);
