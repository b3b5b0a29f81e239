/**
 * The statement of GET /query/statement/v3/adjustments: every movement of a merchant's money
 * besides a sale, oldest first: refunds and credits (transactions) and the deposit adjustments.
 */
import { sql, type Executor, type Sql } from "../database";
import { insertionOrder } from "./order";

export interface StatementRange {
  startDate?: string;
  endDate?: string;
}

/** One row of the statement: a refund or credit transaction, or an adjustment. */
export interface StatementEntry {
  source: "transaction" | "adjustment";
  id: string;
}

/** Refunds and credits that went through (a voided credit moved nothing). */
const MONEY_OUT = sql.raw("t.type IN ('refund', 'credit') AND t.success = 1 AND t.is_voided = 0");

function within(column: string, range: StatementRange): Sql {
  const where: Sql[] = [];
  if (range.startDate) where.push(sql`${sql.raw(column)} >= ${`${range.startDate} 00:00:00`}`);
  if (range.endDate) where.push(sql`${sql.raw(column)} <= ${`${range.endDate} 23:59:59`}`);
  return where.length ? sql` AND ${sql.join(where, " AND ")}` : sql``;
}

export function statementEntries(
  ex: Executor,
  merchantId: string,
  range: StatementRange,
  limit: number,
  offset: number,
): Promise<StatementEntry[]> {
  return ex.all(
    sql`SELECT source, id FROM (
          SELECT 'transaction' AS source, t.id AS id, t.created_at AS at, ${insertionOrder(ex, "t")} AS seq
          FROM transactions t WHERE t.merchant_id = ${merchantId} AND ${MONEY_OUT}${within("t.created_at", range)}
          UNION ALL
          SELECT 'adjustment', a.id, a.effective_at, ${insertionOrder(ex, "a")}
          FROM deposit_adjustments a WHERE a.merchant_id = ${merchantId}${within("a.effective_at", range)}
        ) entries
        ORDER BY at, source DESC, seq LIMIT ${limit} OFFSET ${offset}`,
  );
}

/** How many rows the statement holds, what they withdraw and give back (absolute sum) and their signed sum (cents). */
export async function statementTotals(
  ex: Executor,
  merchantId: string,
  range: StatementRange,
): Promise<{ count: number; absoluteCents: number; netCents: number }> {
  const row = await ex.get<{ tn: number; tc: number | null; an: number; aa: number | null; ac: number | null }>(
    sql`SELECT
          (SELECT COUNT(*) FROM transactions t WHERE t.merchant_id = ${merchantId} AND ${MONEY_OUT}${within("t.created_at", range)}) AS tn,
          (SELECT SUM(t.total_cents) FROM transactions t WHERE t.merchant_id = ${merchantId} AND ${MONEY_OUT}${within("t.created_at", range)}) AS tc,
          (SELECT COUNT(*) FROM deposit_adjustments a WHERE a.merchant_id = ${merchantId}${within("a.effective_at", range)}) AS an,
          (SELECT SUM(ABS(a.amount_cents)) FROM deposit_adjustments a WHERE a.merchant_id = ${merchantId}${within("a.effective_at", range)}) AS aa,
          (SELECT SUM(a.amount_cents) FROM deposit_adjustments a WHERE a.merchant_id = ${merchantId}${within("a.effective_at", range)}) AS ac`,
  );
  const out = Number(row?.tc ?? 0);
  return {
    count: Number(row?.tn ?? 0) + Number(row?.an ?? 0),
    absoluteCents: out + Number(row?.aa ?? 0),
    netCents: -out + Number(row?.ac ?? 0),
  };
}
