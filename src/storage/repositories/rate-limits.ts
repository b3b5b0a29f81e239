import { sql, type Executor } from "../database";

/**
 * Takes one token from the bucket `key` (capacity `perMinute`, refilled continuously at
 * `perMinute` per minute) in one statement, so processes sharing the database count together.
 * Returns the tokens left and whether this request got one.
 */
export async function takeToken(
  ex: Executor,
  key: string,
  perMinute: number,
  nowMs: number,
): Promise<{ tokens: number; allowed: boolean }> {
  const perMs = perMinute / 60_000;
  // The bucket refilled to now, capped at its capacity (LEAST on PostgreSQL, MIN on SQLite).
  const refilled =
    ex.dialect === "postgres"
      ? sql`LEAST(${perMinute}::double precision, rate_limit_buckets.tokens + (${nowMs}::bigint - rate_limit_buckets.at_ms) * ${perMs}::double precision)`
      : sql`MIN(${perMinute}, rate_limit_buckets.tokens + (${nowMs} - rate_limit_buckets.at_ms) * ${perMs})`;
  const row = await ex.get<{ tokens: number; allowed: number }>(sql`
    INSERT INTO rate_limit_buckets (key, tokens, at_ms, allowed) VALUES (${key}, ${perMinute - 1}, ${nowMs}, 1)
    ON CONFLICT (key) DO UPDATE SET
      tokens = CASE WHEN ${refilled} >= 1 THEN ${refilled} - 1 ELSE ${refilled} END,
      allowed = CASE WHEN ${refilled} >= 1 THEN 1 ELSE 0 END,
      at_ms = ${nowMs}
    RETURNING tokens, allowed`);
  return { tokens: Number(row!.tokens), allowed: row!.allowed === 1 };
}
