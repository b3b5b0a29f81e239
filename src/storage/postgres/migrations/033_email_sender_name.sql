-- An e-mail's raw MIME is composed when it is first needed (its .eml, its relay), not while the
-- payment that sent it waits: composing took most of the pay() path's time and memory. The From
-- display name (the merchant's name when it was sent) is what the stored columns lacked for that.
-- Messages stored before this migration have their raw MIME already.
ALTER TABLE emails ADD COLUMN from_name TEXT NOT NULL DEFAULT '';
