/**
 * Units of work that check and then write the same thing take turns: a check made before another
 * unit's uncommitted write cannot see it (PostgreSQL's READ COMMITTED), so without turns both
 * would write — two customers for one person, a second webhook for one target, a replay run twice.
 */
import { sql, type Executor } from "../database";

/**
 * Holds the thing named by `parts` until the caller's unit of work ends. On PostgreSQL: a
 * transaction-scoped advisory lock on a hash of the parts; a second unit naming the same parts
 * waits here for the first's COMMIT (or ROLLBACK), then reads what it wrote. SQLite runs one unit
 * of work at a time, so there it is nothing. Call it first in the unit, before the check. Says
 * whether it waited its turn (PostgreSQL), i.e. whether a check made before it must be made again.
 *
 * @example await holdUntilCommit(tx, "webhooks", merchantId); // then read the merchant's live webhooks
 */
export async function holdUntilCommit(ex: Executor, ...parts: string[]): Promise<boolean> {
  if (ex.dialect !== "postgres") return false;
  await ex.run(sql`SELECT pg_advisory_xact_lock(hashtextextended(${parts.join("\n")}, 0))`);
  return true;
}
