/**
 * The clock's "who has work?" walk: the distinct merchant_id values of rows matching a predicate,
 * read through an index whose leading column is merchant_id, one seek per merchant found, whatever
 * the row count (settlement, ACH returns, card updates and disputes each ask it of their table).
 */
import { sql, type Executor, type Sql } from "../database";

/** The tables the walk is asked of; each has an index led by merchant_id for its predicate. */
export type MerchantScanTable =
  "transactions" | "deposits" | "deposit_adjustments" | "ach_returns" | "payment_methods" | "disputes";

export async function distinctMerchants(ex: Executor, table: MerchantScanTable, where: Sql): Promise<string[]> {
  const ids: string[] = [];
  let after = "";
  for (;;) {
    const row = await ex.get<{ merchant_id: string }>(
      sql`SELECT merchant_id FROM ${sql.raw(table)} WHERE merchant_id > ${after} AND ${where}
          ORDER BY merchant_id LIMIT 1`,
    );
    if (!row) return ids;
    ids.push(row.merchant_id);
    after = row.merchant_id;
  }
}
