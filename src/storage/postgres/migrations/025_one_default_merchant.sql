-- At most one default merchant: sandbox processes that start together on one database create it once.
CREATE UNIQUE INDEX merchants_one_default ON merchants (is_default) WHERE is_default = 1;
