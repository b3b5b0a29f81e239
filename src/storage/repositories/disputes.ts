/**
 * Disputes of settled card charges. A row is written SCHEDULED when its charge's card batch closes
 * (the charge's payment method is a disputed test card), with next_at = the midnight it opens; each
 * later clock step (opening, the decision) is due at next_at, and a closed dispute has none. The
 * UNIQUE transaction_id makes scheduling happen once; next_at and status make every step happen once.
 */
import { sql, type Executor, type Sql } from "../database";
import { sameMerchant } from "./keys";
import { distinctMerchants } from "./merchant-scan";
import { insertionOrder } from "./order";

export interface DisputeRow {
  id: string;
  merchant_id: string;
  transaction_id: string;
  reason: string;
  amount_cents: number;
  fee_cents: number;
  /** SCHEDULED (not opened yet, never listed), PENDING, EVIDENCE_UPLOADED, WON, LOST. */
  status: string;
  respond_by: string;
  notes: string | null;
  submitted_at: string | null;
  /** won, lost; null until decided. */
  outcome: string | null;
  closed_at: string | null;
  next_at: string | null;
  opened_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A row as read: PostgreSQL answers BIGINT as text. */
function normalize(row: DisputeRow): DisputeRow {
  return { ...row, amount_cents: Number(row.amount_cents), fee_cents: Number(row.fee_cents) };
}

/** A charge of a closing card batch whose card is disputed, not scheduled yet. */
export interface DisputedCharge {
  id: string;
  reason: string;
  days: number;
}

/** The card charges (and captured pre_auths) of the card batch closed at `settledAt` whose card is disputed, not yet scheduled. */
export async function disputedCharges(ex: Executor, merchantId: string, settledAt: string): Promise<DisputedCharge[]> {
  const rows = await ex.all<DisputedCharge>(
    // As the ACH returns' lookup: the CROSS JOIN and the index keep SQLite on the batch's rows.
    sql`SELECT t.id AS id, pm.dispute_reason AS reason, pm.dispute_days AS days
        FROM deposits d
        CROSS JOIN transactions t ${sql.raw(ex.dialect === "sqlite" ? "INDEXED BY transactions_by_batch" : "")}
        JOIN payment_methods pm ON pm.id = t.payment_method_id
        WHERE d.merchant_id = ${merchantId} AND d.method = 'card' AND d.settled_at = ${settledAt}
          AND t.batch_id = d.batch_id AND t.merchant_id = d.merchant_id AND t.parent_id IS NULL
          AND t.type IN ('charge', 'pre_auth') AND t.success = 1 AND pm.dispute_reason IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM disputes x WHERE x.transaction_id = t.id)
        ORDER BY t.created_at, ${insertionOrder(ex, "t")}`,
  );
  return rows.map((row) => ({ ...row, days: Number(row.days) }));
}

/** Inserts a dispute unless its transaction has one; true when inserted. */
export async function insertDispute(ex: Executor, row: DisputeRow): Promise<boolean> {
  const result = await ex.run(
    sql`INSERT INTO disputes (id, merchant_id, transaction_id, reason, amount_cents, fee_cents, status, respond_by,
          notes, submitted_at, outcome, closed_at, next_at, opened_at, created_at, updated_at)
        VALUES (${row.id}, ${row.merchant_id}, ${row.transaction_id}, ${row.reason}, ${row.amount_cents},
          ${row.fee_cents}, ${row.status}, ${row.respond_by}, ${row.notes}, ${row.submitted_at}, ${row.outcome},
          ${row.closed_at}, ${row.next_at}, ${row.opened_at}, ${row.created_at}, ${row.updated_at})
        ON CONFLICT (transaction_id) DO NOTHING`,
  );
  return result.changes > 0;
}

/** next_at of the merchant's earliest dispute step to come, or null. */
export async function earliestDisputeStep(ex: Executor, merchantId: string): Promise<string | null> {
  const row = await ex.get<{ at: string | null }>(
    sql`SELECT MIN(next_at) AS at FROM disputes WHERE merchant_id = ${merchantId} AND next_at IS NOT NULL`,
  );
  return row?.at ?? null;
}

/** The merchant's disputes with a step due by `at`, in time order, locked for the step. */
export async function dueDisputes(ex: Executor, merchantId: string, at: string): Promise<DisputeRow[]> {
  const lock = sql.raw(ex.dialect === "postgres" ? " FOR UPDATE" : "");
  const rows = await ex.all<DisputeRow>(
    sql`SELECT * FROM disputes WHERE merchant_id = ${merchantId} AND next_at IS NOT NULL AND next_at <= ${at}
        ORDER BY next_at, created_at, id${lock}`,
  );
  return rows.map(normalize);
}

/** A dispute that has opened (a scheduled one is not there yet), locked for the rest of the unit of work. */
export async function lockDispute(ex: Executor, merchantId: string, id: string): Promise<DisputeRow | undefined> {
  const lock = sql.raw(ex.dialect === "postgres" ? " FOR UPDATE" : "");
  const row = await ex.get<DisputeRow>(
    sql`SELECT * FROM disputes WHERE id = ${id} AND ${sameMerchant(ex, merchantId)} AND opened_at IS NOT NULL${lock}`,
  );
  return row && normalize(row);
}

/** A dispute that has opened, or undefined. */
export async function findDispute(ex: Executor, merchantId: string, id: string): Promise<DisputeRow | undefined> {
  const row = await ex.get<DisputeRow>(
    sql`SELECT * FROM disputes WHERE id = ${id} AND ${sameMerchant(ex, merchantId)} AND opened_at IS NOT NULL`,
  );
  return row && normalize(row);
}

/** The opened dispute of a transaction, or undefined. */
export async function disputeOfTransaction(
  ex: Executor,
  merchantId: string,
  transactionId: string,
): Promise<DisputeRow | undefined> {
  const row = await ex.get<DisputeRow>(
    sql`SELECT * FROM disputes WHERE transaction_id = ${transactionId} AND ${sameMerchant(ex, merchantId)}
          AND opened_at IS NOT NULL`,
  );
  return row && normalize(row);
}

/** Changes a dispute's state (every member given is written). */
export async function updateDispute(
  ex: Executor,
  id: string,
  change: Partial<Omit<DisputeRow, "id" | "merchant_id" | "transaction_id">> & { updated_at: string },
): Promise<void> {
  const sets = Object.entries(change).map(([column, value]) => sql`${sql.raw(column)} = ${value ?? null}`);
  await ex.run(sql`UPDATE disputes SET ${sql.join(sets, ", ")} WHERE id = ${id}`);
}

export interface DisputeFilters {
  id?: string;
  transactionId?: string;
  status?: string;
  reason?: string;
  startDate?: string;
  endDate?: string;
  sort?: "created_at" | "updated_at" | "respond_by" | "amount";
  order?: "asc" | "desc";
}

function filtered(merchantId: string, filters: DisputeFilters): Sql {
  const where = [sql`merchant_id = ${merchantId}`, sql`opened_at IS NOT NULL`];
  if (filters.id !== undefined) where.push(sql`id = ${filters.id}`);
  if (filters.transactionId !== undefined) where.push(sql`transaction_id = ${filters.transactionId}`);
  if (filters.status !== undefined) where.push(sql`status = ${filters.status}`);
  if (filters.reason !== undefined) where.push(sql`reason = ${filters.reason}`);
  if (filters.startDate) where.push(sql`created_at >= ${`${filters.startDate} 00:00:00`}`);
  if (filters.endDate) where.push(sql`created_at <= ${`${filters.endDate} 23:59:59`}`);
  return sql.join(where, " AND ");
}

const SORT_COLUMNS = {
  created_at: "created_at",
  updated_at: "updated_at",
  respond_by: "respond_by",
  amount: "amount_cents",
};

/** The merchant's opened disputes, newest first unless asked otherwise. */
export async function listDisputes(
  ex: Executor,
  merchantId: string,
  filters: DisputeFilters,
  page: { limit: number; offset: number },
): Promise<{ rows: DisputeRow[]; total: number }> {
  const where = filtered(merchantId, filters);
  const total = Number((await ex.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM disputes WHERE ${where}`))!.n);
  const column = sql.raw(SORT_COLUMNS[filters.sort ?? "created_at"]);
  const direction = sql.raw(filters.order === "asc" ? "ASC" : "DESC");
  const rows = await ex.all<DisputeRow>(
    sql`SELECT * FROM disputes WHERE ${where}
        ORDER BY ${column} ${direction}, ${insertionOrder(ex)} ${direction} LIMIT ${page.limit} OFFSET ${page.offset}`,
  );
  return { rows: rows.map(normalize), total };
}

/** Merchants with a dispute step to come (one index seek per merchant found). */
export function merchantsWithDisputeSteps(ex: Executor): Promise<string[]> {
  return distinctMerchants(ex, "disputes", sql`next_at IS NOT NULL`);
}

/** One money movement of a dispute: its hold (the `dispute` adjustment) or its release (`dispute_reversal`). */
export interface DisputeMovementRow {
  id: string;
  kind: string;
  amount_cents: number;
  effective_at: string;
  deposit_id: string | null;
  dispute_id: string;
  transaction_id: string;
  reason: string;
  status: string;
  fee_cents: number;
}

export interface DateRange {
  startDate?: string;
  endDate?: string;
}

function movementsIn(merchantId: string, range: DateRange): Sql {
  const where = [sql`a.merchant_id = ${merchantId}`, sql`a.kind IN ('dispute', 'dispute_reversal')`];
  if (range.startDate) where.push(sql`a.effective_at >= ${`${range.startDate} 00:00:00`}`);
  if (range.endDate) where.push(sql`a.effective_at <= ${`${range.endDate} 23:59:59`}`);
  return sql.join(where, " AND ");
}

/** The disputes' holds and releases within the range, oldest first. */
export async function listDisputeMovements(
  ex: Executor,
  merchantId: string,
  range: DateRange,
  limit: number,
  offset: number,
): Promise<DisputeMovementRow[]> {
  const rows = await ex.all<DisputeMovementRow>(
    sql`SELECT a.id, a.kind, a.amount_cents, a.effective_at, a.deposit_id, d.id AS dispute_id, d.transaction_id,
          d.reason, d.status, d.fee_cents
        FROM deposit_adjustments a JOIN disputes d ON d.id = a.source_id
        WHERE ${movementsIn(merchantId, range)}
        ORDER BY a.effective_at, ${insertionOrder(ex, "a")} LIMIT ${limit} OFFSET ${offset}`,
  );
  return rows.map((row) => ({ ...row, amount_cents: Number(row.amount_cents), fee_cents: Number(row.fee_cents) }));
}

/** How many holds and releases the range holds, their signed sum and the holds' fees (cents). */
export async function disputeMovementTotals(
  ex: Executor,
  merchantId: string,
  range: DateRange,
): Promise<{ count: number; amountCents: number; feeCents: number }> {
  const row = await ex.get<{ n: number; amount: number | null; fee: number | null }>(
    sql`SELECT COUNT(*) AS n, SUM(a.amount_cents) AS amount,
          SUM(CASE WHEN a.kind = 'dispute' THEN d.fee_cents ELSE 0 END) AS fee
        FROM deposit_adjustments a JOIN disputes d ON d.id = a.source_id
        WHERE ${movementsIn(merchantId, range)}`,
  );
  return { count: Number(row?.n ?? 0), amountCents: Number(row?.amount ?? 0), feeCents: Number(row?.fee ?? 0) };
}
