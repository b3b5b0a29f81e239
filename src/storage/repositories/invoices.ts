import type { InvoiceStatus } from "../../domain/schemas/invoices";
import { sameMerchant } from "./keys";
import { rowsOfTable, sql, writeBehind, type Executor, type Sql, type WriteBatch } from "../database";
import { insertionOrder } from "./order";

export interface InvoiceRow {
  id: string;
  merchant_id: string;
  customer_id: string;
  payment_method_id: string | null;
  status: InvoiceStatus;
  total_cents: number;
  total_paid_cents: number;
  /** What outside payments (cash, check: invoice_payments) paid; counted in total_paid. */
  outside_paid_cents: number;
  is_partial_payment_enabled: number;
  is_webpayment: number;
  is_merchant_present: number | null;
  payment_attempt_failed: number;
  payment_attempt_message: string;
  send_receipt: number;
  email: string | null;
  meta: string;
  url: string;
  schedule_id: string | null;
  created_at: string;
  updated_at: string;
  invoice_date_at: string;
  paid_at: string | null;
  due_at: string | null;
  sent_at: string | null;
  viewed_at: string | null;
  deleted_at: string | null;
}

export interface InvoiceFilters {
  status?: string;
  customerId?: string;
  startDate?: string;
  endDate?: string;
}

export function findInvoice(ex: Executor, merchantId: string, id: string): Promise<InvoiceRow | undefined> {
  return ex.get<InvoiceRow>(sql`SELECT * FROM invoices WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}`);
}

/**
 * The invoice, read for a change in this unit of work: on PostgreSQL its row stays locked (FOR
 * NO KEY UPDATE) until the unit commits, so two pays of one invoice, or a pay and a delete, take turns and
 * each sees what the one before wrote (as refunds of one transaction do). SQLite's unit of work
 * holds the database's write lock already.
 */
export function lockInvoice(ex: Executor, merchantId: string, id: string): Promise<InvoiceRow | undefined> {
  // NO KEY: the key-share locks of rows being inserted that name the invoice (a refund's child
  // transaction) do not wait for it, nor it for them; two such units would deadlock on FOR UPDATE.
  const lock = sql.raw(ex.dialect === "postgres" ? " FOR NO KEY UPDATE" : "");
  return ex.get<InvoiceRow>(sql`SELECT * FROM invoices WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}${lock}`);
}

/** An invoice of any merchant by id (the hosted pages, where the unguessable id is the capability). */
export function locateInvoice(ex: Executor, id: string): Promise<InvoiceRow | undefined> {
  return ex.get<InvoiceRow>(sql`SELECT * FROM invoices WHERE id = ${id}`);
}

export async function listInvoices(
  ex: Executor,
  merchantId: string,
  filters: InvoiceFilters,
  page: { limit: number; offset: number },
): Promise<{ rows: InvoiceRow[]; total: number }> {
  const where: Sql[] = [sql`merchant_id = ${merchantId}`];
  if (filters.status) where.push(sql`status = ${filters.status.toUpperCase()}`);
  if (filters.customerId) where.push(sql`customer_id = ${filters.customerId}`);
  if (filters.startDate) {
    where.push(
      sql`created_at >= ${filters.startDate.length === 10 ? `${filters.startDate} 00:00:00` : filters.startDate}`,
    );
  }
  if (filters.endDate) {
    where.push(sql`created_at <= ${filters.endDate.length === 10 ? `${filters.endDate} 23:59:59` : filters.endDate}`);
  }
  const clause = sql.join(where, " AND ");
  const total = (await ex.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM invoices WHERE ${clause}`))!.n;
  const rows = await ex.all<InvoiceRow>(
    sql`SELECT * FROM invoices WHERE ${clause}
        ORDER BY created_at DESC, ${insertionOrder(ex)} DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
  );
  return { rows, total };
}

export type NewInvoice = Pick<
  InvoiceRow,
  | "id"
  | "merchant_id"
  | "customer_id"
  | "payment_method_id"
  | "total_cents"
  | "is_partial_payment_enabled"
  | "is_webpayment"
  | "is_merchant_present"
  | "send_receipt"
  | "email"
  | "meta"
  | "url"
  | "created_at"
  | "updated_at"
  | "invoice_date_at"
  | "due_at"
> & { schedule_id?: string | null };

/** The columns {@link insertInvoice} writes; the others take the table's defaults. */
const INVOICE_COLUMNS = sql.raw(`id, merchant_id, customer_id, payment_method_id, status, total_cents,
  is_partial_payment_enabled, is_webpayment, is_merchant_present, send_receipt, email, meta, url, created_at,
  updated_at, invoice_date_at, due_at, schedule_id`);

/**
 * insertInvoice's row among those of concurrent requests' new invoices (pay()'s invoice request),
 * all written by one INSERT (PostgreSQL's group commit): rows of the table's type from one JSON parameter.
 */
function invoiceBatch(v: NewInvoice): WriteBatch {
  return {
    key: "insertInvoice",
    row: { ...v, status: "DRAFT", schedule_id: v.schedule_id ?? null },
    select: rowsOfTable("invoices"),
    insert: (source) => sql`INSERT INTO invoices (${INVOICE_COLUMNS}) SELECT ${INVOICE_COLUMNS} FROM ${source}`,
  };
}

/**
 * Stores a new (DRAFT) invoice and answers the row as stored: the values given and the table's
 * defaults, built here rather than read back, so nothing waits on the INSERT (writeBehind: on
 * PostgreSQL it goes with the unit's next statement or its COMMIT, as one statement with the
 * unit's other independent writes, such as its create_invoice outbox row).
 */
export async function insertInvoice(ex: Executor, v: NewInvoice): Promise<InvoiceRow> {
  await writeBehind(
    ex,
    sql`INSERT INTO invoices (id, merchant_id, customer_id, payment_method_id, status, total_cents,
          is_partial_payment_enabled, is_webpayment, is_merchant_present, send_receipt, email, meta, url, created_at,
          updated_at, invoice_date_at, due_at, schedule_id)
        VALUES (${v.id}, ${v.merchant_id}, ${v.customer_id}, ${v.payment_method_id}, 'DRAFT', ${v.total_cents},
          ${v.is_partial_payment_enabled}, ${v.is_webpayment}, ${v.is_merchant_present}, ${v.send_receipt}, ${v.email},
          ${v.meta}, ${v.url}, ${v.created_at}, ${v.updated_at}, ${v.invoice_date_at}, ${v.due_at},
          ${v.schedule_id ?? null})`,
    { independent: true, batch: invoiceBatch(v) },
  );
  return {
    ...v,
    schedule_id: v.schedule_id ?? null,
    status: "DRAFT",
    // The columns this INSERT leaves to their defaults (both dialects' migrations).
    total_paid_cents: 0,
    outside_paid_cents: 0,
    payment_attempt_failed: 0,
    payment_attempt_message: "",
    paid_at: null,
    sent_at: null,
    viewed_at: null,
    deleted_at: null,
  };
}

/** The columns InvoiceService.sync may change. */
export type InvoiceSyncColumns = Partial<
  Pick<
    InvoiceRow,
    | "status"
    | "total_paid_cents"
    | "paid_at"
    | "payment_method_id"
    | "payment_attempt_failed"
    | "payment_attempt_message"
    | "sent_at"
    | "updated_at"
  >
>;
const SYNC_COLUMNS = [
  "status",
  "total_paid_cents",
  "paid_at",
  "payment_method_id",
  "payment_attempt_failed",
  "payment_attempt_message",
  "sent_at",
  "updated_at",
] as const;

/**
 * Writes the given columns of an invoice (only those named in InvoiceSyncColumns). The caller
 * knows the row it leaves (InvoiceService.sync), so nothing waits on it: PostgreSQL sends it with
 * the unit's next statement or its COMMIT (writeBehind), as one statement with the unit's other
 * independent writes (pay()'s charge and outbox rows). Independent: it sets values, reading only
 * its own row, which sync read (locked) in this unit first, so no write of that row made before it
 * is still held; two writes of one row must never be held together (in one statement PostgreSQL
 * would keep only one of them).
 */
export async function updateInvoiceColumns(ex: Executor, id: string, next: InvoiceSyncColumns): Promise<void> {
  const sets = SYNC_COLUMNS.filter((column) => column in next).map(
    (column) => sql`${sql.raw(column)} = ${next[column] ?? null}`,
  );
  if (sets.length === 0) return;
  await writeBehind(ex, sql`UPDATE invoices SET ${sql.join(sets)} WHERE id = ${id}`, { independent: true });
}

/**
 * The payment method (and e-mail) a hosted page's pay() brings to an open invoice. The caller locked
 * the row and knows what this leaves, so nothing waits on it (writeBehind: it goes with the unit's
 * next statement, independent as updateInvoiceColumns is).
 */
export async function setInvoicePaymentMethod(
  ex: Executor,
  id: string,
  paymentMethodId: string,
  email: string | null,
  now: string,
): Promise<void> {
  await writeBehind(
    ex,
    sql`UPDATE invoices SET payment_method_id = ${paymentMethodId}, email = ${email}, updated_at = ${now} WHERE id = ${id}`,
    { independent: true },
  );
}

export async function softDeleteInvoice(ex: Executor, id: string, now: string): Promise<void> {
  await ex.run(sql`UPDATE invoices SET status = 'DELETED', deleted_at = ${now}, updated_at = ${now} WHERE id = ${id}`);
}

/**
 * markInvoice's sent_at among those of concurrent units (invoice e-mails), all set by one UPDATE
 * (PostgreSQL's group commit). An UPDATE changing one row twice keeps only one of the changes, so
 * the rows of one invoice are collapsed to the first in the batch's order: the one whose COALESCE
 * would have set it, had the units run one after the other. No other batch form updates invoices
 * (two would be CTEs of one statement, changing one row twice).
 */
function sentBatch(merchantId: string, id: string, now: string): WriteBatch {
  return {
    key: "markInvoiceSent",
    row: { merchant_id: merchantId, id, sent_at: now },
    select: (rows) =>
      sql`SELECT r.* FROM json_to_recordset(${rows}) AS r(_row int, merchant_id text, id text, sent_at text)`,
    insert: (source) => sql`UPDATE invoices SET sent_at = COALESCE(invoices.sent_at, m.sent_at)
      FROM (SELECT DISTINCT ON (id, merchant_id) id, merchant_id, sent_at FROM ${source}
        ORDER BY id, merchant_id, _row) AS m
      WHERE invoices.id = m.id AND invoices.merchant_id = m.merchant_id`,
  };
}

/**
 * Sets sent_at or viewed_at the first time only. Nothing waits on it: in a unit of work PostgreSQL
 * sends it with the next statement or the COMMIT (writeBehind), as one statement with the unit's
 * other independent writes (a receipt's e-mail), and sent_at with those of units ending at the same
 * time (its batch form). A unit that also syncs the invoice marks it before (the schedule runner),
 * never while the sync's write is held (see updateInvoiceColumns).
 */
export async function markInvoice(
  ex: Executor,
  merchantId: string,
  id: string,
  column: "sent_at" | "viewed_at",
  now: string,
): Promise<void> {
  const query =
    column === "sent_at"
      ? sql`UPDATE invoices SET sent_at = COALESCE(sent_at, ${now}) WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}`
      : sql`UPDATE invoices SET viewed_at = COALESCE(viewed_at, ${now}) WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}`;
  const batch = column === "sent_at" ? sentBatch(merchantId, id, now) : undefined;
  await writeBehind(ex, query, { independent: true, batch });
}

/** The columns PUT /invoice/{id} may change (which ones, by status: src/services/invoices/changes.ts). */
export type InvoiceEditColumns = Partial<
  Pick<
    InvoiceRow,
    | "total_cents"
    | "meta"
    | "url"
    | "send_receipt"
    | "email"
    | "payment_method_id"
    | "is_partial_payment_enabled"
    | "due_at"
    | "updated_at"
  >
>;
const EDIT_COLUMNS = [
  "total_cents",
  "meta",
  "url",
  "send_receipt",
  "email",
  "payment_method_id",
  "is_partial_payment_enabled",
  "due_at",
  "updated_at",
] as const;

/** Writes the given columns of an invoice (only those named in InvoiceEditColumns). */
export async function editInvoice(ex: Executor, id: string, next: InvoiceEditColumns): Promise<void> {
  const sets = EDIT_COLUMNS.filter((column) => column in next).map(
    (column) => sql`${sql.raw(column)} = ${next[column] ?? null}`,
  );
  if (sets.length === 0) return;
  await ex.run(sql`UPDATE invoices SET ${sql.join(sets)} WHERE id = ${id}`);
}
