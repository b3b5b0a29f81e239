-- Issue 31, disputes on the clock. A dispute row is written when its charge's batch closes,
-- SCHEDULED (not listed) with next_at = the midnight it opens; opened_at is set when it opens.
ALTER TABLE disputes ADD COLUMN opened_at TEXT;
