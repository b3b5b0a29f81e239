import type { Executor } from "../../storage/database";
import type { InvoiceRow } from "../../storage/repositories/invoices";
import { customersByIds } from "../../storage/repositories/customers";
import { transactionsOfInvoices, type TransactionRow } from "../../storage/repositories/transactions";
import type { CustomerRow } from "../customers";
import { parseJson } from "../../lib/json";
import { centsToNumber } from "../../domain/money";
import { notFound } from "../../domain/errors";
import type { InvoiceRecord, InvoiceStatus } from "../../domain/schemas/invoices";
import { customerRecord } from "../customers";
import type { TransactionService } from "../transactions";

/** Statuses after which nothing is due: the invoice was paid, and maybe refunded or voided since. */
export const SETTLED_STATUSES: readonly InvoiceStatus[] = ["PAID", "PARTIALLY_REFUNDED", "REFUNDED", "VOIDED"];

/**
 * The API records of invoices, each with its customer and transactions: a fixed number of
 * queries for any number of invoices (their transactions, those transactions' records, the customers).
 */
export async function invoiceRecords(
  ex: Executor,
  transactions: TransactionService,
  rows: readonly InvoiceRow[],
): Promise<InvoiceRecord[]> {
  if (rows.length === 0) return [];
  // Their transactions and their customers together (one round trip on PostgreSQL); the
  // transactions' customers, usually the invoices' own, are then not read again.
  const [byInvoice, customers] = await Promise.all([
    transactionsOfInvoices(
      ex,
      rows[0]!.merchant_id,
      rows.map((row) => row.id),
    ),
    customersByIds(
      ex,
      rows.map((row) => row.customer_id),
    ),
  ]);
  const children = [...byInvoice.values()].flat();
  const built = await transactions.toRecords(ex, children, customers);
  const records = new Map(built.map((record, index) => [children[index]!.id, record]));
  return rows.map((row) => {
    const customer = customers.get(row.customer_id);
    if (!customer) throw notFound("Customer");
    return invoiceRecord(
      row,
      customerRecord(customer),
      (byInvoice.get(row.id) ?? []).map((t) => records.get(t.id)!),
    );
  });
}

/** What the caller of {@link invoiceRecordFrom} has read or built in its unit of work. */
export interface KnownInvoiceParts {
  /** The invoice's top-level transactions, as transactionsOfInvoice orders them. */
  transactions: readonly TransactionRow[];
  /** Records built already (a charge just made: its create_transaction's), by transaction id. */
  records: ReadonlyMap<string, TransactionRecordOf>;
  /** Customers read already (the charged payment method's), by id. */
  customers: ReadonlyMap<string, CustomerRow>;
}
type TransactionRecordOf = InvoiceRecord["child_transactions"][number];

/**
 * The API record of an invoice whose transactions the caller has (pay(): read with the locked
 * invoice, plus its charge): only what it lacks is read (the records of earlier transactions, a
 * customer other than the charged one), so a first payment of an invoice reads nothing.
 */
export async function invoiceRecordFrom(
  ex: Executor,
  transactions: TransactionService,
  row: InvoiceRow,
  known: KnownInvoiceParts,
): Promise<InvoiceRecord> {
  const customers = new Map(known.customers);
  const missing = known.transactions.filter((t) => !known.records.has(t.id));
  const [read, built] = await Promise.all([
    customers.has(row.customer_id) ? undefined : customersByIds(ex, [row.customer_id]),
    missing.length > 0 ? transactions.toRecords(ex, missing, customers) : [],
  ]);
  for (const [id, customer] of read ?? []) customers.set(id, customer);
  const records = new Map(known.records);
  missing.forEach((t, index) => records.set(t.id, built[index]!));
  const customer = customers.get(row.customer_id);
  if (!customer) throw notFound("Customer");
  return invoiceRecord(
    row,
    customerRecord(customer),
    known.transactions.map((t) => records.get(t.id)!),
  );
}

/** The invoice record of docs/contract.md §6 from its row, customer and transaction records. */
function invoiceRecord(
  row: InvoiceRow,
  customer: InvoiceRecord["customer"],
  transactions: InvoiceRecord["child_transactions"],
): InvoiceRecord {
  const settled = SETTLED_STATUSES.includes(row.status) || row.status === "DELETED";
  return {
    id: row.id,
    customer_id: row.customer_id,
    customer,
    payment_method_id: row.payment_method_id,
    child_transactions: transactions,
    status: row.status,
    total: centsToNumber(row.total_cents),
    total_paid: centsToNumber(row.total_paid_cents),
    balance_due: settled ? 0 : centsToNumber(Math.max(0, row.total_cents - row.total_paid_cents)),
    is_partial_payment_enabled: row.is_partial_payment_enabled === 1,
    is_webpayment: row.is_webpayment === 1,
    is_merchant_present: row.is_merchant_present === null ? null : row.is_merchant_present === 1,
    payment_attempt_failed: row.payment_attempt_failed === 1,
    payment_attempt_message: row.payment_attempt_message,
    meta: withSurcharge(parseJson(row.meta, {}), transactions),
    url: row.url,
    schedule_id: row.schedule_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    invoice_date_at: row.invoice_date_at,
    paid_at: row.paid_at,
    due_at: row.due_at,
    sent_at: row.sent_at,
    viewed_at: row.viewed_at,
    deleted_at: row.deleted_at,
  };
}

/**
 * The invoice's meta with `surcharge` (the real invoice's field) set to what its payments added on
 * top of the invoice's total, when a payment was surcharged: the approved, unvoided charges' and
 * captures' surcharges, less what refunds returned. Otherwise the meta as stored.
 */
function withSurcharge(
  meta: Record<string, unknown>,
  transactions: InvoiceRecord["child_transactions"],
): Record<string, unknown> {
  let cents = 0;
  let surcharged = false;
  for (const t of transactions) {
    if (!t.success || t.is_voided || t.surcharge === 0) continue;
    surcharged = true;
    for (const child of t.child_transactions) {
      const share = Math.round(child.surcharge * 100);
      if (child.type === "refund") cents -= share;
      else if (child.type === "capture") cents += share;
    }
    if (t.type === "charge") cents += Math.round(t.surcharge * 100);
  }
  return surcharged ? { ...meta, surcharge: centsToNumber(cents) } : meta;
}
