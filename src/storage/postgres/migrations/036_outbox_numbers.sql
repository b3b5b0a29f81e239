-- PostgreSQL only (SQLite has one writer, so MAX(seq) + 1 there is always a new number).
--
-- Each e-mail and text message took MAX(seq) + 1 of its table (020, 034). On PostgreSQL two
-- transactions storing a message at once both read the same MAX and stored the same number, so
-- "newest first" had ties and a page of the outbox could repeat or skip a message. The numbers now
-- come from one sequence per table, which never hands out a number twice; it starts after the
-- numbers already stored.
CREATE SEQUENCE emails_numbers;
SELECT setval('emails_numbers', COALESCE(MAX(seq), 0) + 1, false) FROM emails;
CREATE SEQUENCE sms_numbers;
SELECT setval('sms_numbers', COALESCE(MAX(seq), 0) + 1, false) FROM sms;
