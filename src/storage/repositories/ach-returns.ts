/**
 * ACH returns: one row per settled bank charge on a returning test account, written when its
 * batch closes, with the midnight its bank returns it; marked done (with the void child) when it
 * has been returned. The report of GET /query/statement/v3/ach-rejects reads the done ones.
 */
import { sql, type Executor } from "../database";
import { distinctMerchants } from "./merchant-scan";
import { insertionOrder } from "./order";

export interface AchReturnRow {
  transaction_id: string;
  merchant_id: string;
  code: string;
  return_at: string;
  returned_at: string | null;
  void_id: string | null;
  created_at: string;
}

/** A bank charge of a batch whose payment method is a returning account, not scheduled yet. */
export interface ReturningCharge {
  id: string;
  code: string;
  days: number;
}

/** The bank charges of the ACH batch closed (and landed: ACH deposits land at once) at `settledAt` whose account returns, not yet scheduled. */
export async function returningCharges(
  ex: Executor,
  merchantId: string,
  settledAt: string,
): Promise<ReturningCharge[]> {
  const rows = await ex.all<ReturningCharge>(
    // SQLite's planner, without statistics, would walk every settled charge of the merchant: the
    // CROSS JOIN and the index keep it on the batch (one deposit, then its rows by batch id). On
    // PostgreSQL it is the same inner join.
    sql`SELECT t.id AS id, pm.ach_return_code AS code, pm.ach_return_days AS days
        FROM deposits d
        CROSS JOIN transactions t ${sql.raw(ex.dialect === "sqlite" ? "INDEXED BY transactions_by_batch" : "")}
        JOIN payment_methods pm ON pm.id = t.payment_method_id
        WHERE d.merchant_id = ${merchantId} AND d.method = 'bank' AND d.deposit_at = ${settledAt}
          AND d.settled_at = ${settledAt} AND t.batch_id = d.batch_id AND t.merchant_id = d.merchant_id
          AND t.type = 'charge' AND pm.ach_return_code IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM ach_returns r WHERE r.transaction_id = t.id)
        ORDER BY t.created_at, ${insertionOrder(ex, "t")}`,
  );
  return rows.map((row) => ({ ...row, days: Number(row.days) }));
}

export async function insertAchReturn(ex: Executor, row: Omit<AchReturnRow, "returned_at" | "void_id">): Promise<void> {
  await ex.run(
    sql`INSERT INTO ach_returns (transaction_id, merchant_id, code, return_at, created_at)
        VALUES (${row.transaction_id}, ${row.merchant_id}, ${row.code}, ${row.return_at}, ${row.created_at})
        ON CONFLICT (transaction_id) DO NOTHING`,
  );
}

/** return_at of the merchant's earliest return still to come, or null. */
export async function earliestAchReturn(ex: Executor, merchantId: string): Promise<string | null> {
  const row = await ex.get<{ at: string | null }>(
    sql`SELECT MIN(return_at) AS at FROM ach_returns WHERE merchant_id = ${merchantId} AND returned_at IS NULL`,
  );
  return row?.at ?? null;
}

/** The merchant's returns due by `at` and not done, in time order. */
export function dueAchReturns(ex: Executor, merchantId: string, at: string): Promise<AchReturnRow[]> {
  return ex.all(
    sql`SELECT * FROM ach_returns WHERE merchant_id = ${merchantId} AND returned_at IS NULL AND return_at <= ${at}
        ORDER BY return_at, created_at, transaction_id`,
  );
}

export async function markReturned(ex: Executor, transactionId: string, at: string, voidId: string): Promise<void> {
  await ex.run(
    sql`UPDATE ach_returns SET returned_at = ${at}, void_id = ${voidId} WHERE transaction_id = ${transactionId}`,
  );
}

/** A return's void child carries the return code and reason, as a declined row carries its decline. */
export async function stampReturnReason(ex: Executor, voidId: string, code: string, message: string): Promise<void> {
  await ex.run(sql`UPDATE transactions SET decline_code = ${code}, message = ${message} WHERE id = ${voidId}`);
}

/** Merchants with a return still to come (one index seek per merchant found). */
export function merchantsWithAchReturns(ex: Executor): Promise<string[]> {
  return distinctMerchants(ex, "ach_returns", sql`returned_at IS NULL`);
}

export interface DateRange {
  startDate?: string;
  endDate?: string;
}

function returnedIn(merchantId: string, range: DateRange) {
  const where = [sql`r.merchant_id = ${merchantId}`, sql`r.returned_at IS NOT NULL`];
  if (range.startDate) where.push(sql`r.returned_at >= ${`${range.startDate} 00:00:00`}`);
  if (range.endDate) where.push(sql`r.returned_at <= ${`${range.endDate} 23:59:59`}`);
  return sql.join(where, " AND ");
}

/** The merchant's returns done within the range, oldest first. */
export function listReturned(
  ex: Executor,
  merchantId: string,
  range: DateRange,
  limit: number,
  offset: number,
): Promise<AchReturnRow[]> {
  return ex.all(
    sql`SELECT r.* FROM ach_returns r WHERE ${returnedIn(merchantId, range)}
        ORDER BY r.returned_at, r.created_at, r.transaction_id LIMIT ${limit} OFFSET ${offset}`,
  );
}

/** How many returns the range holds, the returned payments' total and their fees' total (cents). */
export async function returnedTotals(
  ex: Executor,
  merchantId: string,
  range: DateRange,
): Promise<{ count: number; amountCents: number; feeCents: number }> {
  const row = await ex.get<{ n: number; amount: number | null; fee: number | null }>(
    sql`SELECT COUNT(*) AS n, SUM(t.total_cents) AS amount,
          SUM((SELECT -a.amount_cents FROM deposit_adjustments a
               WHERE a.merchant_id = r.merchant_id AND a.dedupe_key = ${"return_fee:"} || r.transaction_id)) AS fee
        FROM ach_returns r JOIN transactions t ON t.id = r.transaction_id
        WHERE ${returnedIn(merchantId, range)}`,
  );
  return { count: Number(row?.n ?? 0), amountCents: Number(row?.amount ?? 0), feeCents: Number(row?.fee ?? 0) };
}
