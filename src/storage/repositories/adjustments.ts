/**
 * Deposit adjustments: every movement of a merchant's money that is not a sale or a refund (an ACH
 * return and its fee, a dispute's withdrawal, fee and reversal). Each takes effect at a sandbox time
 * and is picked up by the first deposit landing at or after it (src/services/settlement.ts).
 */
import { sql, type Executor, type Sql } from "../database";
import { insertionOrder } from "./order";

export interface AdjustmentRow {
  id: string;
  merchant_id: string;
  /** Unique per merchant: the same key never makes a second adjustment. */
  dedupe_key: string;
  kind: string;
  method: "card" | "bank";
  /** Signed: negative withdraws from the merchant, positive gives back. */
  amount_cents: number;
  transaction_id: string | null;
  source_id: string | null;
  code: string | null;
  description: string;
  meta: string;
  effective_at: string;
  deposit_id: string | null;
  created_at: string;
  updated_at: string;
}

export type NewAdjustment = Omit<AdjustmentRow, "deposit_id" | "updated_at">;

/** Inserts an adjustment unless the merchant has one with its key; true when inserted. */
export async function insertAdjustment(ex: Executor, row: NewAdjustment): Promise<boolean> {
  const result = await ex.run(
    sql`INSERT INTO deposit_adjustments (id, merchant_id, dedupe_key, kind, method, amount_cents, transaction_id,
          source_id, code, description, meta, effective_at, created_at, updated_at)
        VALUES (${row.id}, ${row.merchant_id}, ${row.dedupe_key}, ${row.kind}, ${row.method}, ${row.amount_cents},
          ${row.transaction_id}, ${row.source_id}, ${row.code}, ${row.description}, ${row.meta}, ${row.effective_at},
          ${row.created_at}, ${row.created_at})
        ON CONFLICT (merchant_id, dedupe_key) DO NOTHING`,
  );
  return result.changes > 0;
}

export function findAdjustmentByKey(ex: Executor, merchantId: string, key: string): Promise<AdjustmentRow | undefined> {
  return ex.get(sql`SELECT * FROM deposit_adjustments WHERE merchant_id = ${merchantId} AND dedupe_key = ${key}`);
}

/** effective_at of the merchant's earliest adjustment no deposit has picked up yet, or null. */
export async function earliestPendingAdjustment(ex: Executor, merchantId: string): Promise<string | null> {
  const row = await ex.get<{ at: string | null }>(
    sql`SELECT MIN(effective_at) AS at FROM deposit_adjustments WHERE merchant_id = ${merchantId} AND deposit_id IS NULL`,
  );
  return row?.at ?? null;
}

/** The adjustments in effect by `at` that no deposit has picked up, oldest first. */
export function pendingAdjustments(ex: Executor, merchantId: string, at: string): Promise<AdjustmentRow[]> {
  return ex.all(
    sql`SELECT * FROM deposit_adjustments WHERE merchant_id = ${merchantId} AND deposit_id IS NULL
          AND effective_at <= ${at}
        ORDER BY effective_at, ${insertionOrder(ex)}`,
  );
}

/** Records the deposit that picked adjustments up. */
export async function assignDeposit(
  ex: Executor,
  ids: readonly string[],
  depositId: string,
  at: string,
): Promise<void> {
  if (ids.length === 0) return;
  await ex.run(
    sql`UPDATE deposit_adjustments SET deposit_id = ${depositId}, updated_at = ${at}
        WHERE id IN (${sql.join(ids.map((id) => sql`${id}`))})`,
  );
}

/** The adjustments of several deposits of one merchant, oldest first, by deposit. */
export async function adjustmentsOfDeposits(
  ex: Executor,
  merchantId: string,
  depositIds: readonly string[],
): Promise<Map<string, AdjustmentRow[]>> {
  const byDeposit = new Map<string, AdjustmentRow[]>();
  if (depositIds.length === 0) return byDeposit;
  const rows = await ex.all<AdjustmentRow>(
    sql`SELECT * FROM deposit_adjustments WHERE merchant_id = ${merchantId}
          AND deposit_id IN (${sql.join(depositIds.map((id) => sql`${id}`))})
        ORDER BY effective_at, ${insertionOrder(ex)}`,
  );
  for (const row of rows) {
    const list = byDeposit.get(row.deposit_id!) ?? [];
    list.push(row);
    byDeposit.set(row.deposit_id!, list);
  }
  return byDeposit;
}

/** The adjustments concerning one transaction, oldest first. */
export function adjustmentsOfTransaction(
  ex: Executor,
  merchantId: string,
  transactionId: string,
): Promise<AdjustmentRow[]> {
  // SQLite's planner, without statistics, would walk the merchant's adjustments in time order.
  const index = sql.raw(ex.dialect === "sqlite" ? "INDEXED BY deposit_adjustments_by_transaction" : "");
  return ex.all(
    sql`SELECT * FROM deposit_adjustments ${index} WHERE transaction_id = ${transactionId} AND merchant_id = ${merchantId}
        ORDER BY effective_at, ${insertionOrder(ex)}`,
  );
}

export interface AdjustmentFilter {
  startDate?: string;
  endDate?: string;
  kinds?: readonly string[];
}

function filtered(merchantId: string, filter: AdjustmentFilter): Sql {
  const where = [sql`merchant_id = ${merchantId}`];
  if (filter.startDate) where.push(sql`effective_at >= ${`${filter.startDate} 00:00:00`}`);
  if (filter.endDate) where.push(sql`effective_at <= ${`${filter.endDate} 23:59:59`}`);
  if (filter.kinds) where.push(sql`kind IN (${sql.join(filter.kinds.map((kind) => sql`${kind}`))})`);
  return sql.join(where, " AND ");
}

/** The merchant's adjustments in effect within the range, oldest first. */
export function listAdjustments(
  ex: Executor,
  merchantId: string,
  filter: AdjustmentFilter,
  limit: number,
  offset: number,
): Promise<AdjustmentRow[]> {
  return ex.all(
    sql`SELECT * FROM deposit_adjustments WHERE ${filtered(merchantId, filter)}
        ORDER BY effective_at, ${insertionOrder(ex)} LIMIT ${limit} OFFSET ${offset}`,
  );
}

/** How many adjustments the filter holds and their signed sum. */
export async function adjustmentTotals(
  ex: Executor,
  merchantId: string,
  filter: AdjustmentFilter,
): Promise<{ count: number; cents: number; absoluteCents: number }> {
  const row = await ex.get<{ n: number; cents: number | null; abs: number | null }>(
    sql`SELECT COUNT(*) AS n, SUM(amount_cents) AS cents, SUM(ABS(amount_cents)) AS abs
        FROM deposit_adjustments WHERE ${filtered(merchantId, filter)}`,
  );
  return { count: Number(row?.n ?? 0), cents: Number(row?.cents ?? 0), absoluteCents: Number(row?.abs ?? 0) };
}

/** Adjustments of one merchant by id, in one query. */
export async function adjustmentsByIds(
  ex: Executor,
  merchantId: string,
  ids: readonly string[],
): Promise<Map<string, AdjustmentRow>> {
  if (ids.length === 0) return new Map();
  const rows = await ex.all<AdjustmentRow>(
    sql`SELECT * FROM deposit_adjustments WHERE merchant_id = ${merchantId}
          AND id IN (${sql.join(ids.map((id) => sql`${id}`))})`,
  );
  return new Map(rows.map((row) => [row.id, row] as const));
}

/** The merchant's newest adjustments (the dashboard). */
export function recentAdjustments(ex: Executor, merchantId: string, limit: number): Promise<AdjustmentRow[]> {
  return ex.all(
    sql`SELECT * FROM deposit_adjustments WHERE merchant_id = ${merchantId}
        ORDER BY effective_at DESC, ${insertionOrder(ex)} DESC LIMIT ${limit}`,
  );
}
