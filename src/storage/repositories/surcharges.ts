import { sql, type Executor } from "../database";

/** One day's surcharged rows of one kind: payments (charges and captures) or refunds. */
export interface SurchargeDayRow {
  date: string;
  kind: "payment" | "refund";
  n: number;
  total_cents: number;
  surcharge_cents: number;
}

/**
 * The merchant's surcharged rows from `start` to `end` (timestamps), grouped by UTC day and kind:
 * approved charges and captures that were not voided, and refunds. A seek on
 * transactions_by_merchant (merchant_id, created_at).
 */
export async function surchargesByDay(
  ex: Executor,
  merchantId: string,
  start: string,
  end: string,
): Promise<SurchargeDayRow[]> {
  const rows = await ex.all<{ date: string; kind: string; n: unknown; total_cents: unknown; surcharge_cents: unknown }>(
    sql`SELECT substr(created_at, 1, 10) AS date,
          CASE WHEN type = 'refund' THEN 'refund' ELSE 'payment' END AS kind,
          COUNT(*) AS n, SUM(total_cents) AS total_cents, SUM(surcharge_cents) AS surcharge_cents
        FROM transactions
        WHERE merchant_id = ${merchantId} AND created_at >= ${start} AND created_at <= ${end}
          AND surcharge_cents > 0 AND success = 1 AND is_voided = 0 AND type IN ('charge', 'capture', 'refund')
        GROUP BY substr(created_at, 1, 10), CASE WHEN type = 'refund' THEN 'refund' ELSE 'payment' END
        ORDER BY 1, 2`,
  );
  // PostgreSQL answers COUNT and SUM of BIGINT as text.
  return rows.map((row) => ({
    date: row.date,
    kind: row.kind as SurchargeDayRow["kind"],
    n: Number(row.n),
    total_cents: Number(row.total_cents),
    surcharge_cents: Number(row.surcharge_cents),
  }));
}
