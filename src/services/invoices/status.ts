import type { Executor } from "../../storage/database";
import type { InvoiceRow, InvoiceSyncColumns } from "../../storage/repositories/invoices";
import { capturedCents, transactionsOfInvoice } from "../../storage/repositories/transactions";
import type { InvoiceStatus } from "../../domain/schemas/invoices";
import type { TransactionRow } from "../transactions";
import { SETTLED_STATUSES } from "./records";
import { movedSurchargeCents, refundedSurchargeCents } from "../transactions/surcharges";

/**
 * What an invoice's transactions (and outside payments) say about it: status, total_paid, paid_at, the payment method
 * and the attempt fields. Returns only the columns that differ from `row` (none: nothing to write).
 * `failed` is a declined charge that was just made for it; `now` stamps a first paid_at. `transactions`:
 * the invoice's top-level transactions as transactionsOfInvoice orders them, when the caller has
 * them (pay(): read with the locked invoice, and its charge); else they are read.
 */
export async function columnsFromTransactions(
  ex: Executor,
  row: InvoiceRow,
  failed: TransactionRow | null,
  now: () => string | Promise<string>,
  transactions?: readonly TransactionRow[],
): Promise<InvoiceSyncColumns> {
  const next: InvoiceSyncColumns = {};
  // Cash and check payments (POST /invoice/{id}/pay/{method}) count as paid, and are never refunded.
  let paidCents = Number(row.outside_paid_cents);
  let refundedCents = 0;
  let voidedCents = 0;
  let lastPaymentMethod: string | null = null;
  for (const t of transactions ?? (await transactionsOfInvoice(ex, row.merchant_id, row.id))) {
    if (t.success !== 1) continue;
    if (t.is_voided === 1) {
      voidedCents += t.total_cents;
      continue;
    }
    const captured = t.type === "pre_auth" ? await capturedCents(ex, t.id) : 0;
    const gross = t.type === "charge" ? t.total_cents : captured;
    if (gross === 0) continue;
    // What pays the invoice is the sale: a surcharge on top of it is the card's, not the invoice's.
    const paid = { ...t, captured_cents: t.type === "pre_auth" ? captured : t.captured_cents };
    paidCents += gross - movedSurchargeCents(paid);
    refundedCents += t.total_refunded_cents - refundedSurchargeCents(paid);
    lastPaymentMethod = t.payment_method_id;
  }
  const netCents = Math.max(0, paidCents - refundedCents);
  let status: InvoiceStatus = row.status;
  if (refundedCents > 0) status = netCents > 0 ? "PARTIALLY_REFUNDED" : "REFUNDED";
  else if (paidCents > 0 && netCents >= row.total_cents) status = "PAID";
  else if (paidCents === 0 && voidedCents > 0) status = "VOIDED";
  else if (row.status !== "DRAFT" && row.status !== "ATTEMPTED") status = "DRAFT";
  next.status = status;
  next.total_paid_cents = netCents;
  if (status === "PAID" && !row.paid_at) next.paid_at = await now();
  if (lastPaymentMethod) next.payment_method_id = lastPaymentMethod;
  if (paidCents > 0 || voidedCents > 0) {
    next.payment_attempt_failed = 0;
    next.payment_attempt_message = "";
  }
  if (failed && !SETTLED_STATUSES.includes(status)) {
    next.status = "ATTEMPTED";
    next.payment_attempt_failed = 1;
    next.payment_attempt_message = failed.message ?? "Declined.";
    next.payment_method_id = failed.payment_method_id;
  }
  const changed: InvoiceSyncColumns = {};
  for (const key of Object.keys(next) as (keyof InvoiceSyncColumns)[]) {
    if (next[key] !== row[key]) (changed as Record<string, unknown>)[key] = next[key];
  }
  return changed;
}
