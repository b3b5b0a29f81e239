/** Fixture documents applied once to a merchant (POST /_sandbox/fixtures with "once", --fixtures FILE). */
import { sql, type Executor } from "../database";

/** The results a document answered when it was applied to the merchant, or undefined when it never was. */
export async function appliedFixture(ex: Executor, merchantId: string, hash: string): Promise<string | undefined> {
  const row = await ex.get<{ results: string }>(
    sql`SELECT results FROM sandbox_fixtures WHERE merchant_id = ${merchantId} AND hash = ${hash}`,
  );
  return row?.results;
}

export async function recordFixture(
  ex: Executor,
  merchantId: string,
  hash: string,
  results: string,
  appliedAt: string,
): Promise<void> {
  await ex.run(
    sql`INSERT INTO sandbox_fixtures (merchant_id, hash, results, applied_at)
        VALUES (${merchantId}, ${hash}, ${results}, ${appliedAt})`,
  );
}
