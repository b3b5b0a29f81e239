-- Merchant options the dashboard's Settings page edits (issue 18): the Advanced Customization
-- custom fields (a JSON array of {id, name, placeholder, required, type, visible}) and the
-- receipt options (a JSON object: reply_to, cc, footer, send_declined).
ALTER TABLE merchants ADD COLUMN custom_fields TEXT NOT NULL DEFAULT '[]';
ALTER TABLE merchants ADD COLUMN receipt_options TEXT NOT NULL DEFAULT '{}';
-- The copies and reply address a receipt went out with (JSON array of addresses; '' for none).
ALTER TABLE emails ADD COLUMN cc_addresses TEXT NOT NULL DEFAULT '[]';
ALTER TABLE emails ADD COLUMN reply_to TEXT NOT NULL DEFAULT '';
