-- Rate-limit token buckets (--rate-limit) shared by every sandbox process on the database.
CREATE TABLE rate_limit_buckets (
  key TEXT PRIMARY KEY,
  tokens DOUBLE PRECISION NOT NULL,
  at_ms BIGINT NOT NULL,
  allowed INTEGER NOT NULL DEFAULT 1
);
