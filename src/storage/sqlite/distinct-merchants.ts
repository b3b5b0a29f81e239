import type { Database } from "bun:sqlite";

/**
 * The distinct merchant_id values of `table` rows matching `where`, walked one merchant at a time
 * through an index whose leading column is merchant_id (a partial index on `where` makes each step
 * one B-tree seek). Costs O(merchants found × log rows), whatever the row count per merchant.
 *
 * @example distinctMerchants(db, "deposits", "deposited_at IS NULL")
 */
export function distinctMerchants(db: Database, table: string, where: string): string[] {
  const next = db.query<{ merchant_id: string }, [string]>(
    `SELECT merchant_id FROM ${table} WHERE merchant_id > ? AND ${where} ORDER BY merchant_id LIMIT 1`,
  );
  const ids: string[] = [];
  for (let row = next.get(""); row; row = next.get(row.merchant_id)) ids.push(row.merchant_id);
  return ids;
}
