-- PostgreSQL only (035's counter slots are PostgreSQL's). Issue 33: the counter's triggers called
-- transaction_counts_add, a LANGUAGE sql function holding an INSERT. PostgreSQL parses and plans
-- such a function's body at every call (only PL/pgSQL keeps a plan per connection), so every
-- top-level transaction written paid ~130 µs of server CPU to plan a one-row upsert (pg_stat_statements
-- under the bench: 193 µs per call, 60 µs once in PL/pgSQL). The upsert now sits in each trigger
-- function itself: PL/pgSQL plans it once per connection. Same rows, same slots, same locks.
CREATE OR REPLACE FUNCTION transaction_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO transaction_counts (merchant_id, slot, top_level) VALUES (NEW.merchant_id, transaction_count_slot(), 1)
    ON CONFLICT (merchant_id, slot) DO UPDATE SET top_level = transaction_counts.top_level + 1;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION transaction_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO transaction_counts (merchant_id, slot, top_level) VALUES (OLD.merchant_id, transaction_count_slot(), -1)
    ON CONFLICT (merchant_id, slot) DO UPDATE SET top_level = transaction_counts.top_level - 1;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION transaction_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.parent_id IS NULL THEN
    INSERT INTO transaction_counts (merchant_id, slot, top_level) VALUES (OLD.merchant_id, transaction_count_slot(), -1)
      ON CONFLICT (merchant_id, slot) DO UPDATE SET top_level = transaction_counts.top_level - 1;
  END IF;
  IF NEW.parent_id IS NULL THEN
    INSERT INTO transaction_counts (merchant_id, slot, top_level) VALUES (NEW.merchant_id, transaction_count_slot(), 1)
      ON CONFLICT (merchant_id, slot) DO UPDATE SET top_level = transaction_counts.top_level + 1;
  END IF;
  RETURN NULL;
END;
$$;

DROP FUNCTION transaction_counts_add(TEXT, INTEGER);
