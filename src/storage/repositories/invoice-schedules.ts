/**
 * Invoice schedules (migration 040) and the record of each occurrence they ran. `next_run_at` is
 * the schedule's cursor: the occurrence's unit of work moves it on in the same commit that makes
 * the invoice and writes the run row keyed (schedule_id, occurrence_at).
 */
import { sql, type Executor, type Sql } from "../database";
import { sameMerchant } from "./keys";
import { insertionOrder } from "./order";

export interface InvoiceScheduleRow {
  id: string;
  merchant_id: string;
  customer_id: string;
  payment_method_id: string | null;
  rule: string;
  active: number;
  total_cents: number;
  meta: string;
  url: string;
  email_notification: number;
  files: string;
  run_count: number;
  next_run_at: string | null;
  last_run_at: string | null;
  last_invoice_status: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface ScheduleFilters {
  customerId?: string;
  /** Column to sort by (created_at, next_run_at, total); newest first by default. */
  sort?: "created_at" | "updated_at" | "next_run_at" | "total";
  order?: "asc" | "desc";
}

const SORT_COLUMNS: Record<NonNullable<ScheduleFilters["sort"]>, string> = {
  created_at: "created_at",
  updated_at: "updated_at",
  next_run_at: "next_run_at",
  total: "total_cents",
};

export function findSchedule(ex: Executor, merchantId: string, id: string): Promise<InvoiceScheduleRow | undefined> {
  return ex.get<InvoiceScheduleRow>(
    sql`SELECT * FROM invoice_schedules WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}`,
  );
}

/**
 * The schedule, read for a change in this unit of work: on PostgreSQL its row stays locked until
 * the unit commits, so an occurrence run by two processes, or a run and a PUT, take turns and each
 * sees the cursor the other moved. SQLite's unit of work holds the write lock already.
 */
export function lockSchedule(ex: Executor, merchantId: string, id: string): Promise<InvoiceScheduleRow | undefined> {
  const lock = sql.raw(ex.dialect === "postgres" ? " FOR UPDATE" : "");
  return ex.get<InvoiceScheduleRow>(
    sql`SELECT * FROM invoice_schedules WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}${lock}`,
  );
}

export async function listSchedules(
  ex: Executor,
  merchantId: string,
  filters: ScheduleFilters,
  page: { limit: number; offset: number },
): Promise<{ rows: InvoiceScheduleRow[]; total: number }> {
  const where: Sql[] = [sql`merchant_id = ${merchantId}`, sql`deleted_at IS NULL`];
  if (filters.customerId) where.push(sql`customer_id = ${filters.customerId}`);
  const clause = sql.join(where, " AND ");
  const column = sql.raw(SORT_COLUMNS[filters.sort ?? "created_at"]);
  const direction = sql.raw(filters.order === "asc" ? "ASC" : "DESC");
  const total = (await ex.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM invoice_schedules WHERE ${clause}`))!.n;
  const rows = await ex.all<InvoiceScheduleRow>(
    sql`SELECT * FROM invoice_schedules WHERE ${clause}
        ORDER BY ${column} ${direction}, ${insertionOrder(ex)} ${direction} LIMIT ${page.limit} OFFSET ${page.offset}`,
  );
  return { rows, total: Number(total) };
}

export type NewSchedule = Omit<InvoiceScheduleRow, "run_count" | "last_run_at" | "last_invoice_status" | "deleted_at">;

export async function insertSchedule(ex: Executor, v: NewSchedule): Promise<void> {
  await ex.run(
    sql`INSERT INTO invoice_schedules (id, merchant_id, customer_id, payment_method_id, rule, active, total_cents,
          meta, url, email_notification, files, next_run_at, created_at, updated_at)
        VALUES (${v.id}, ${v.merchant_id}, ${v.customer_id}, ${v.payment_method_id}, ${v.rule}, ${v.active},
          ${v.total_cents}, ${v.meta}, ${v.url}, ${v.email_notification}, ${v.files}, ${v.next_run_at},
          ${v.created_at}, ${v.updated_at})`,
  );
}

/** The columns PUT /invoice/schedule/{id} may change. */
export type ScheduleEditColumns = Partial<
  Pick<
    InvoiceScheduleRow,
    | "payment_method_id"
    | "rule"
    | "active"
    | "total_cents"
    | "meta"
    | "url"
    | "email_notification"
    | "files"
    | "next_run_at"
    | "updated_at"
  >
>;
const EDIT_COLUMNS = [
  "payment_method_id",
  "rule",
  "active",
  "total_cents",
  "meta",
  "url",
  "email_notification",
  "files",
  "next_run_at",
  "updated_at",
] as const;

export async function editSchedule(ex: Executor, id: string, next: ScheduleEditColumns): Promise<void> {
  const sets = EDIT_COLUMNS.filter((column) => column in next).map(
    (column) => sql`${sql.raw(column)} = ${next[column] ?? null}`,
  );
  if (sets.length === 0) return;
  await ex.run(sql`UPDATE invoice_schedules SET ${sql.join(sets)} WHERE id = ${id}`);
}

export async function softDeleteSchedule(ex: Executor, id: string, now: string): Promise<void> {
  await ex.run(
    sql`UPDATE invoice_schedules SET deleted_at = ${now}, updated_at = ${now}, active = 0, next_run_at = NULL
        WHERE id = ${id}`,
  );
}

/**
 * One occurrence done: its run row (the unique key refuses a second) and the cursor moved on, in
 * the caller's unit of work.
 */
export async function recordRun(
  ex: Executor,
  v: {
    scheduleId: string;
    merchantId: string;
    occurrenceAt: string;
    invoiceId: string;
    invoiceStatus: string;
    nextRunAt: string | null;
  },
): Promise<void> {
  await ex.run(
    sql`INSERT INTO invoice_schedule_runs (schedule_id, merchant_id, occurrence_at, invoice_id, created_at)
        VALUES (${v.scheduleId}, ${v.merchantId}, ${v.occurrenceAt}, ${v.invoiceId}, ${v.occurrenceAt})`,
  );
  await ex.run(
    sql`UPDATE invoice_schedules SET run_count = run_count + 1, last_run_at = ${v.occurrenceAt},
          next_run_at = ${v.nextRunAt}, last_invoice_status = ${v.invoiceStatus}
        WHERE id = ${v.scheduleId}`,
  );
}

/** The schedule of the merchant whose next occurrence is earliest and at or before `until`, if any. */
export function earliestDue(ex: Executor, merchantId: string, until: string): Promise<InvoiceScheduleRow | undefined> {
  return ex.get<InvoiceScheduleRow>(
    sql`SELECT * FROM invoice_schedules
        WHERE merchant_id = ${merchantId} AND next_run_at IS NOT NULL AND active = 1 AND deleted_at IS NULL
          AND next_run_at <= ${until}
        ORDER BY next_run_at, id LIMIT 1`,
  );
}

/** The earliest occurrence of the merchant's schedules strictly after `after`, or null. */
export async function nextOccurrenceAfter(ex: Executor, merchantId: string, after: string): Promise<string | null> {
  const row = await ex.get<{ at: string | null }>(
    sql`SELECT MIN(next_run_at) AS at FROM invoice_schedules
        WHERE merchant_id = ${merchantId} AND next_run_at IS NOT NULL AND active = 1 AND deleted_at IS NULL
          AND next_run_at > ${after}`,
  );
  return row?.at ?? null;
}

/** The merchants with an occurrence to come (the real-time tick visits only these). */
export async function merchantsWithSchedules(ex: Executor): Promise<string[]> {
  const rows = await ex.all<{ merchant_id: string }>(
    sql`SELECT DISTINCT merchant_id FROM invoice_schedules
        WHERE next_run_at IS NOT NULL AND active = 1 AND deleted_at IS NULL`,
  );
  return rows.map((row) => row.merchant_id);
}

/** The ids of the invoices a schedule made, oldest first. */
export async function scheduleInvoiceIds(ex: Executor, merchantId: string, scheduleId: string): Promise<string[]> {
  const rows = await ex.all<{ invoice_id: string }>(
    sql`SELECT invoice_id FROM invoice_schedule_runs WHERE schedule_id = ${scheduleId} AND merchant_id = ${merchantId}
        ORDER BY occurrence_at`,
  );
  return rows.map((row) => row.invoice_id);
}
