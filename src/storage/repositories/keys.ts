import { sql, type Executor, type Sql } from "../database";

/**
 * `merchant_id = merchantId` beside a lookup by a row's own key (its id, its invoice): the merchant
 * is checked on the row the key's index found, never sought through an index of its own. On
 * PostgreSQL it is written `IS NOT DISTINCT FROM` (the same rows, merchant_id being NOT NULL), which
 * no index serves. A pooled connection plans a prepared statement once (a generic plan) and keeps
 * the plan while the table grows; planned while the table was nearly empty and its statistics
 * unknown, a merchant-wide index (invoices_by_merchant, transactions_by_customer) looked as cheap
 * as the key's, and pay()'s invoice lock then walked every invoice of the merchant until the next
 * ANALYZE (tests/storage/postgres-plans.test.ts). SQLite keeps the plain comparison: its plans are
 * held by tests/storage/query-plans.test.ts. `column`: the merchant column, qualified if need be.
 */
export function sameMerchant(ex: Executor, merchantId: string | Sql, column = "merchant_id"): Sql {
  const operator = sql.raw(ex.dialect === "postgres" ? " IS NOT DISTINCT FROM " : " = ");
  return sql`${sql.raw(column)}${operator}${merchantId}`;
}
