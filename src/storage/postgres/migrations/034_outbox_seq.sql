-- The next outbox number: each stored e-mail and text message takes MAX(seq) + 1 of its table
-- (src/storage/repositories/emails.ts). Without an index on seq alone that MAX read every row
-- of the table, once per message: a receipt cost O(every e-mail ever sent). With it, one seek.
CREATE INDEX emails_by_global_seq ON emails(seq);
CREATE INDEX sms_by_global_seq ON sms(seq);
