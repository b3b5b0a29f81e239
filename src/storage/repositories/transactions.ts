import { rowsOfTable, sql, writeBehind, type Executor, type Sql, type WriteBatch } from "../database";
import { sameMerchant } from "./keys";
import type { CustomerRow } from "./customers";
import type { PaymentMethodRow } from "./payment-methods";
import { containsText, insertionOrder } from "./order";
import type { CheckResult } from "../../../packages/rules/checks";

export type TransactionType = "charge" | "pre_auth" | "capture" | "void" | "refund" | "credit";

export interface TransactionRow {
  id: string;
  merchant_id: string;
  parent_id: string | null;
  invoice_id: string | null;
  customer_id: string;
  payment_method_id: string;
  method: "card" | "bank";
  type: TransactionType;
  success: number;
  total_cents: number;
  last_four: string;
  auth_id: string | null;
  issuer_auth_code: string | null;
  message: string | null;
  decline_code: string | null;
  /** What the issuer's checks answered (packages/rules/checks.ts): card authorizations only, else null. */
  avs_street_result: CheckResult | null;
  avs_zip_result: CheckResult | null;
  cvv_result: CheckResult | null;
  meta: string;
  is_manual: number;
  is_merchant_present: number;
  receipt_email_at: string | null;
  receipt_sms_at: string | null;
  reference_id: string;
  source: string | null;
  pre_auth: number;
  is_captured: number;
  is_voided: number;
  total_refunded_cents: number;
  /** A pre_auth's captured amount; 0 until captured. */
  captured_cents: number;
  /**
   * The part of total_cents that is the merchant's surcharge (src/domain/surcharge.ts): a charge's
   * or pre_auth's whole surcharge; the share a capture, void or refund carries; 0 for none.
   */
  surcharge_cents: number;
  /**
   * The invoice schedule whose invoice this pays (the real record's schedule_id): a charge of a
   * schedule's invoice, and its children (copied from the parent); null otherwise.
   */
  schedule_id: string | null;
  /** The processing fee taken when the row settled (src/domain/fees.ts); null until then. */
  fee_cents: number | null;
  batch_id: string | null;
  settled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The states a top-level transaction can be filtered by, as conditions on the row `t`. */
export const TRANSACTION_STATES = {
  approved: "t.success = 1 AND t.is_voided = 0",
  declined: "t.success = 0",
  authorized: "t.success = 1 AND t.is_voided = 0 AND t.type = 'pre_auth' AND t.is_captured = 0",
  voided: "t.is_voided = 1",
  refunded: "t.total_refunded_cents > 0",
  settled: "t.settled_at IS NOT NULL",
  unsettled: "t.success = 1 AND t.is_voided = 0 AND t.settled_at IS NULL",
} as const;
export type TransactionState = keyof typeof TRANSACTION_STATES;

export interface TransactionFilters {
  startDate?: string;
  endDate?: string;
  type?: string;
  success?: boolean;
  method?: string;
  customerId?: string;
  keywords?: string;
  /** Transactions with a row in this settlement batch (their own, or a capture's or refund's). */
  batchId?: string;
  /** Where the money stands (the dashboard's status filter): see TRANSACTION_STATES. */
  state?: TransactionState;
}

export function findTransaction(ex: Executor, merchantId: string, id: string): Promise<TransactionRow | undefined> {
  return ex.get<TransactionRow>(sql`SELECT * FROM transactions WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}`);
}

/**
 * The transaction, read for a change in this unit of work: on PostgreSQL its row stays locked
 * (FOR UPDATE) until the unit commits, so concurrent refunds, voids and captures of one
 * transaction take turns and each sees what the one before wrote. SQLite's unit of work holds
 * the database's write lock already.
 */
export function lockTransaction(ex: Executor, merchantId: string, id: string): Promise<TransactionRow | undefined> {
  const lock = sql.raw(ex.dialect === "postgres" ? " FOR UPDATE" : "");
  return ex.get<TransactionRow>(
    sql`SELECT * FROM transactions WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}${lock}`,
  );
}

/**
 * The children (captures, voids, refunds) of these transactions, in one query, each parent's in
 * creation order. Sorted here rather than with ORDER BY: most transactions have no children, and
 * the ORDER BY cost ~15 µs per call even then (measured in bun:sqlite).
 */
export async function childrenOf(ex: Executor, parentIds: readonly string[]): Promise<Map<string, TransactionRow[]>> {
  const byParent = new Map<string, TransactionRow[]>();
  const unique = [...new Set(parentIds)];
  if (unique.length === 0) return byParent;
  const rows =
    unique.length === 1
      ? await ex.all<TransactionRow & { _order: number | string }>(
          sql`SELECT ${insertionOrder(ex)} AS _order, * FROM transactions WHERE parent_id = ${unique[0]!}`,
        )
      : await ex.all<TransactionRow & { _order: number | string }>(
          sql`SELECT ${insertionOrder(ex)} AS _order, * FROM transactions
              WHERE parent_id IN (${sql.join(unique.map((id) => sql`${id}`))})`,
        );
  if (rows.length > 1)
    rows.sort((a, b) =>
      a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a._order < b._order ? -1 : 1,
    );
  for (const { _order, ...row } of rows) {
    const list = byParent.get(row.parent_id!);
    if (list) list.push(row);
    else byParent.set(row.parent_id!, [row]);
  }
  return byParent;
}

export type NewCharge = Pick<
  TransactionRow,
  | "id"
  | "merchant_id"
  | "invoice_id"
  | "customer_id"
  | "payment_method_id"
  | "method"
  | "type"
  | "success"
  | "total_cents"
  | "last_four"
  | "auth_id"
  | "issuer_auth_code"
  | "message"
  | "decline_code"
  | "avs_street_result"
  | "avs_zip_result"
  | "cvv_result"
  | "meta"
  | "is_merchant_present"
  | "reference_id"
  | "source"
  | "pre_auth"
  | "receipt_email_at"
  | "surcharge_cents"
  | "schedule_id"
  | "created_at"
  | "updated_at"
>;

/**
 * POST /charge's one write. The stored row is the values given and the table's defaults, so it is
 * built here rather than read back (`RETURNING *` cost ~3 µs more per charge on SQLite, measured);
 * the trigger of migration 009 keeps the list counter in the same statement.
 */
export async function insertCharge(ex: Executor, c: NewCharge): Promise<TransactionRow> {
  // The row is built here, so nothing waits on the INSERT: PostgreSQL sends it with what follows.
  await writeBehind(
    ex,
    sql`INSERT INTO transactions (id, merchant_id, invoice_id, customer_id, payment_method_id, method,
    type, success, total_cents, last_four, auth_id, issuer_auth_code, message, decline_code, avs_street_result,
    avs_zip_result, cvv_result, meta, is_merchant_present, reference_id, source, pre_auth, receipt_email_at,
    surcharge_cents, schedule_id, created_at, updated_at)
  VALUES (${c.id}, ${c.merchant_id}, ${c.invoice_id}, ${c.customer_id}, ${c.payment_method_id}, ${c.method}, ${c.type},
    ${c.success}, ${c.total_cents}, ${c.last_four}, ${c.auth_id}, ${c.issuer_auth_code}, ${c.message}, ${c.decline_code},
    ${c.avs_street_result}, ${c.avs_zip_result}, ${c.cvv_result}, ${c.meta}, ${c.is_merchant_present}, ${c.reference_id}, ${c.source}, ${c.pre_auth}, ${c.receipt_email_at},
    ${c.surcharge_cents}, ${c.schedule_id}, ${c.created_at}, ${c.updated_at})`,
    { independent: true, batch: chargeBatch(c) },
  );
  return {
    ...c,
    // The columns this INSERT leaves to their defaults (both dialects' migrations).
    parent_id: null,
    is_manual: 0,
    receipt_sms_at: null,
    is_captured: 0,
    is_voided: 0,
    total_refunded_cents: 0,
    captured_cents: 0,
    fee_cents: null,
    batch_id: null,
    settled_at: null,
  };
}

/** The columns {@link insertCharge} writes; the others take the table's defaults. */
const CHARGE_COLUMNS = sql.raw(`id, merchant_id, invoice_id, customer_id, payment_method_id, method, type, success,
  total_cents, last_four, auth_id, issuer_auth_code, message, decline_code, avs_street_result, avs_zip_result,
  cvv_result, meta, is_merchant_present, reference_id, source, pre_auth, receipt_email_at, surcharge_cents,
  schedule_id, created_at, updated_at`);

/**
 * insertCharge's row among those of concurrent charges, all written by one INSERT (PostgreSQL's
 * group commit): the rows unnested from one JSON parameter as rows of the table's own type. The
 * list counter's trigger moves each merchant's count once per statement, in merchant order
 * (migration 053), so two batches never wait on each other's counter rows in a cycle.
 */
function chargeBatch(c: NewCharge): WriteBatch {
  return {
    key: "insertCharge",
    row: { ...c },
    select: rowsOfTable("transactions"),
    insert: (source) => sql`INSERT INTO transactions (${CHARGE_COLUMNS}) SELECT ${CHARGE_COLUMNS} FROM ${source}`,
  };
}

/** Stores a capture, void or refund under its parent (copying what identifies the payment). */
export async function insertChild(
  ex: Executor,
  parent: TransactionRow,
  child: { id: string; type: "capture" | "void" | "refund"; cents: number; surchargeCents: number; now: string },
): Promise<void> {
  await ex.run(
    sql`INSERT INTO transactions (id, merchant_id, parent_id, invoice_id, customer_id, payment_method_id, method, type,
          success, total_cents, last_four, auth_id, issuer_auth_code, meta, is_merchant_present, reference_id, source,
          surcharge_cents, schedule_id, created_at, updated_at)
        VALUES (${child.id}, ${parent.merchant_id}, ${parent.id}, ${parent.invoice_id}, ${parent.customer_id},
          ${parent.payment_method_id}, ${parent.method}, ${child.type}, 1, ${child.cents}, ${parent.last_four},
          ${parent.auth_id}, ${parent.issuer_auth_code}, '{}', ${parent.is_merchant_present}, ${parent.reference_id},
          'api', ${child.surchargeCents}, ${parent.schedule_id}, ${child.now}, ${child.now})`,
  );
}

export async function markCaptured(ex: Executor, id: string, cents: number, now: string): Promise<void> {
  await ex.run(
    sql`UPDATE transactions SET is_captured = 1, captured_cents = ${cents}, updated_at = ${now} WHERE id = ${id}`,
  );
}

/** Voids a transaction and its capture, if any (the capture is what would settle). */
export async function markVoided(ex: Executor, id: string, now: string): Promise<void> {
  await ex.run(sql`UPDATE transactions SET is_voided = 1, updated_at = ${now} WHERE id = ${id}`);
  await ex.run(
    sql`UPDATE transactions SET is_voided = 1, updated_at = ${now} WHERE parent_id = ${id} AND type = 'capture'`,
  );
}

export async function addRefunded(ex: Executor, id: string, cents: number, now: string): Promise<void> {
  await ex.run(
    sql`UPDATE transactions SET total_refunded_cents = total_refunded_cents + ${cents}, updated_at = ${now}
        WHERE id = ${id}`,
  );
}

/** Sets receipt_email_at or receipt_sms_at. */
export async function stampReceipt(
  ex: Executor,
  merchantId: string,
  id: string,
  column: "receipt_email_at" | "receipt_sms_at",
  now: string,
): Promise<void> {
  const target = column === "receipt_email_at" ? sql`receipt_email_at` : sql`receipt_sms_at`;
  await ex.run(
    sql`UPDATE transactions SET ${target} = ${now}, updated_at = ${now} WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}`,
  );
}

/** What a merchant may change on a transaction (PUT /transaction/{id}): its meta. */
export async function updateTransactionMeta(ex: Executor, id: string, meta: string, now: string): Promise<void> {
  await ex.run(sql`UPDATE transactions SET meta = ${meta}, updated_at = ${now} WHERE id = ${id}`);
}

/** The invoice's own (top-level) transactions: successful ones first, each in creation order. */
export function transactionsOfInvoice(ex: Executor, merchantId: string, invoiceId: string): Promise<TransactionRow[]> {
  return ex.all<TransactionRow>(
    sql`SELECT * FROM transactions WHERE invoice_id = ${invoiceId} AND ${sameMerchant(ex, merchantId)} AND parent_id IS NULL
        ORDER BY success DESC, created_at, ${insertionOrder(ex)}`,
  );
}

/** The top-level transactions of several invoices in one query, grouped as transactionsOfInvoice orders them. */
export async function transactionsOfInvoices(
  ex: Executor,
  merchantId: string,
  invoiceIds: readonly string[],
): Promise<Map<string, TransactionRow[]>> {
  const byInvoice = new Map<string, TransactionRow[]>();
  const unique = [...new Set(invoiceIds)];
  if (unique.length === 0) return byInvoice;
  const rows = await ex.all<TransactionRow>(
    sql`SELECT * FROM transactions
        WHERE invoice_id IN (${sql.join(unique.map((id) => sql`${id}`))}) AND merchant_id = ${merchantId}
          AND parent_id IS NULL
        ORDER BY success DESC, created_at, ${insertionOrder(ex)}`,
  );
  for (const row of rows) {
    const list = byInvoice.get(row.invoice_id!);
    if (list) list.push(row);
    else byInvoice.set(row.invoice_id!, [row]);
  }
  return byInvoice;
}

/** The newest top-level transaction of an invoice (its last pay() attempt; charge ids are time-ordered UUIDv7). */
export function latestOfInvoice(
  ex: Executor,
  merchantId: string,
  invoiceId: string,
): Promise<TransactionRow | undefined> {
  return ex.get<TransactionRow>(
    sql`SELECT * FROM transactions WHERE invoice_id = ${invoiceId} AND ${sameMerchant(ex, merchantId)} AND parent_id IS NULL
        ORDER BY ${insertionOrder(ex)} DESC LIMIT 1`,
  );
}

/** What the merchant's successful credits since `since` sent, in cents (POST /credit's daily limit). */
export async function creditedSince(ex: Executor, merchantId: string, since: string): Promise<number> {
  const row = await ex.get<{ cents: number | null }>(
    sql`SELECT SUM(total_cents) AS cents FROM transactions
        WHERE merchant_id = ${merchantId} AND created_at >= ${since} AND type = 'credit' AND success = 1`,
  );
  return Number(row?.cents ?? 0);
}

/** What the captures of a pre_auth took, in cents. */
export async function capturedCents(ex: Executor, preAuthId: string): Promise<number> {
  const row = await ex.get<{ cents: number | null }>(
    sql`SELECT SUM(total_cents) AS cents FROM transactions WHERE parent_id = ${preAuthId} AND type = 'capture' AND success = 1`,
  );
  return row?.cents ?? 0;
}

/** A page of transactions, newest first, with the total (see TransactionService.list for the rules). */
export async function listTransactions(
  ex: Executor,
  merchantId: string,
  filters: TransactionFilters,
  page: { limit: number; offset: number },
): Promise<{ rows: TransactionRow[]; total: number }> {
  const childType = filters.type === "capture" || filters.type === "void" || filters.type === "refund";
  const where: Sql[] = [
    sql`t.merchant_id = ${merchantId}`,
    childType ? sql`t.parent_id IS NOT NULL` : sql`t.parent_id IS NULL`,
  ];
  if (filters.startDate) {
    where.push(
      sql`t.created_at >= ${filters.startDate.length === 10 ? `${filters.startDate} 00:00:00` : filters.startDate}`,
    );
  }
  if (filters.endDate) {
    where.push(sql`t.created_at <= ${filters.endDate.length === 10 ? `${filters.endDate} 23:59:59` : filters.endDate}`);
  }
  if (filters.type) where.push(sql`t.type = ${filters.type}`);
  if (filters.batchId) {
    where.push(
      sql`(t.batch_id = ${filters.batchId} OR EXISTS (SELECT 1 FROM transactions c WHERE c.parent_id = t.id AND c.batch_id = ${filters.batchId}))`,
    );
  }
  if (filters.state) where.push(sql.raw(TRANSACTION_STATES[filters.state]));
  if (filters.success !== undefined) where.push(sql`t.success = ${filters.success ? 1 : 0}`);
  if (filters.method) where.push(sql`t.method = ${filters.method}`);
  if (filters.customerId) where.push(sql`t.customer_id = ${filters.customerId}`);
  let from = sql`transactions t`;
  if (filters.keywords) {
    from = sql`transactions t JOIN customers c ON c.id = t.customer_id`;
    const k = filters.keywords.trim();
    where.push(
      sql`(t.id = ${k} OR t.last_four = ${k} OR t.invoice_id = ${k}
           OR ${containsText(ex, sql`(c.firstname || ' ' || c.lastname || ' ' || c.email || ' ' || c.company)`, k)})`,
    );
  }
  const clause = sql.join(where, " AND ");
  // Unfiltered, the total is the per-merchant counter kept by triggers (migration 009), not a COUNT(*) over
  // every row: one row on SQLite, the sum of the merchant's slots on PostgreSQL (migration 035).
  // The total and the page are sent together (one round trip on PostgreSQL).
  const [counted, rows] = await Promise.all([
    where.length === 2 && !childType
      ? ex.get<{ n: number | null }>(
          sql`SELECT SUM(top_level) AS n FROM transaction_counts WHERE merchant_id = ${merchantId}`,
        )
      : ex.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${from} WHERE ${clause}`),
    ex.all<TransactionRow>(
      sql`SELECT t.* FROM ${from} WHERE ${clause}
        ORDER BY t.created_at DESC, ${insertionOrder(ex, "t")} DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
    ),
  ]);
  return { rows, total: counted?.n ?? 0 };
}
