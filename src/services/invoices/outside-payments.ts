/**
 * An invoice marked paid in cash or by check (POST /invoice/{id}/pay/{method}): an outside
 * payment. Nothing is charged; the payment is stored (src/storage/repositories/invoice-payments.ts)
 * and counts toward the invoice's total_paid (./status.ts), so a payment of the balance due makes
 * it PAID. The rules (docs/contract.md): the invoice is not deleted and something is due;
 * `apply_balance` (default: the balance due) is > 0 and at most the balance due, and less than it
 * only when the invoice takes partial payments.
 */
import type { Executor } from "../../storage/database";
import type { InvoiceRow } from "../../storage/repositories/invoices";
import { insertOutsidePayment } from "../../storage/repositories/invoice-payments";
import { invalidState, ValidationFailed } from "../../domain/errors";
import { SETTLED_STATUSES } from "./records";
import { amount } from "../transactions/rules";

export type { OutsidePaymentRow } from "../../storage/repositories/invoice-payments";

export interface OutsidePaymentInput {
  method: "cash" | "check";
  /** What to apply, in cents; undefined: the balance due. */
  applyCents?: number;
  checkNumber?: string;
  driverLicense?: string;
  driverLicenseState?: string;
  paymentPhone?: string;
  paymentNote?: string;
}

export const OUTSIDE_PAYMENT_MESSAGES = {
  tooMuch: (due: string) => `The amount may not be greater than ${due}, the balance due.`,
  notPartial: (due: string) =>
    `This invoice takes no partial payments: apply the balance due (${due}), or enable is_partial_payment_enabled.`,
} as const;

/** Records the payment on the locked invoice row, in the caller's unit of work; the caller syncs the invoice. */
export async function recordOutsidePayment(
  ex: Executor,
  invoice: InvoiceRow,
  input: OutsidePaymentInput,
  now: string,
): Promise<void> {
  if (invoice.status === "DELETED" || invoice.deleted_at) throw invalidState("The invoice was deleted.");
  if (SETTLED_STATUSES.includes(invoice.status)) {
    throw invalidState(`The invoice is ${invoice.status} and cannot be paid again.`, { status: invoice.status });
  }
  const due = invoice.total_cents - invoice.total_paid_cents;
  if (due <= 0) throw invalidState("Nothing is due on this invoice.", { status: invoice.status });
  const cents = input.applyCents ?? due;
  if (cents > due) throw new ValidationFailed({ apply_balance: [OUTSIDE_PAYMENT_MESSAGES.tooMuch(amount(due))] });
  if (cents < due && invoice.is_partial_payment_enabled !== 1) {
    throw new ValidationFailed({ apply_balance: [OUTSIDE_PAYMENT_MESSAGES.notPartial(amount(due))] });
  }
  await insertOutsidePayment(ex, {
    id: crypto.randomUUID(),
    merchant_id: invoice.merchant_id,
    invoice_id: invoice.id,
    method: input.method,
    total_cents: cents,
    check_number: input.checkNumber ?? null,
    driver_license: input.driverLicense ?? null,
    driver_license_state: input.driverLicenseState ?? null,
    payment_phone: input.paymentPhone ?? null,
    payment_note: input.paymentNote ?? null,
    created_at: now,
  });
}
