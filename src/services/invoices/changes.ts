/**
 * What PUT /invoice/{id} may change, by where the invoice stands (docs/contract.md):
 * - unpaid (DRAFT or ATTEMPTED, nothing paid): everything the merchant set at POST /invoice but the
 *   customer: total, meta, url, send_receipt, email, payment_method_id, is_partial_payment_enabled, due_at;
 * - partly paid (something paid, not PAID yet): the same but the payment method, and the total
 *   never below what was paid (equal to it, the invoice is PAID);
 * - settled (PAID, PARTIALLY_REFUNDED, REFUNDED, VOIDED): meta only (memo, reference, … for the books);
 * - DELETED: nothing.
 */
import type { Executor } from "../../storage/database";
import type { InvoiceEditColumns, InvoiceRow } from "../../storage/repositories/invoices";
import { parseJson } from "../../lib/json";
import { checkLineItemsTotal, priceLineItems } from "../catalog/line-items";
import {
  addError,
  parseTotalCents,
  validateCustomerFields,
  validateMeta,
  type FieldErrors,
} from "../../../packages/rules/validation";
import type { InvoiceUpdateBody } from "../../domain/schemas/invoices";
import { centsToNumber } from "../../domain/money";
import { assertValid, invalidState } from "../../domain/errors";
import { SETTLED_STATUSES } from "./records";
import { dueAtOf } from "./rules";

export type InvoiceChanges = Omit<InvoiceUpdateBody, "customer_id">;
type Field = keyof InvoiceChanges;

const UNPAID: readonly Field[] = [
  "total",
  "meta",
  "url",
  "send_receipt",
  "email",
  "payment_method_id",
  "is_partial_payment_enabled",
  "due_at",
];
const PARTLY_PAID = UNPAID.filter((field) => field !== "payment_method_id");
const SETTLED: readonly Field[] = ["meta"];

/** The fields an invoice in this state may change. */
export function editableFields(row: Pick<InvoiceRow, "status" | "total_paid_cents">): readonly Field[] {
  if (row.status === "DELETED") return [];
  if (SETTLED_STATUSES.includes(row.status)) return SETTLED;
  return row.total_paid_cents > 0 ? PARTLY_PAID : UNPAID;
}

/**
 * The columns the changes write, or a throw: invalid_state naming the fields this invoice's state
 * does not let change, a validation error for values that break a rule.
 */
export function invoiceColumns(row: InvoiceRow, changes: InvoiceChanges): InvoiceEditColumns {
  const given = (Object.keys(changes) as Field[]).filter((field) => changes[field] !== undefined);
  const allowed = editableFields(row);
  const refused = given.filter((field) => !allowed.includes(field));
  if (refused.length > 0) {
    throw invalidState(`The invoice is ${row.status}: ${refused.join(", ")} can no longer change.`, {
      status: row.status,
    });
  }
  const errors: FieldErrors = {};
  const columns: InvoiceEditColumns = {};
  if (changes.total !== undefined) {
    const total = parseTotalCents(changes.total);
    if ("error" in total) addError(errors, "total", total.error);
    else if (total.cents < row.total_paid_cents)
      addError(
        errors,
        "total",
        `The total may not be less than what was paid (${centsToNumber(row.total_paid_cents).toFixed(2)}).`,
      );
    else columns.total_cents = total.cents;
  }
  if (changes.meta !== undefined) {
    validateMeta(changes.meta, errors);
    columns.meta = JSON.stringify(changes.meta);
  }
  if (changes.email !== undefined) {
    validateCustomerFields({ email: changes.email }, { requireNames: false, requireContact: false }, errors);
    columns.email = changes.email.trim();
  }
  if (changes.url !== undefined) columns.url = changes.url;
  if (changes.send_receipt !== undefined) columns.send_receipt = changes.send_receipt ? 1 : 0;
  if (changes.is_partial_payment_enabled !== undefined)
    columns.is_partial_payment_enabled = changes.is_partial_payment_enabled ? 1 : 0;
  if (changes.due_at !== undefined) columns.due_at = changes.due_at === null ? null : dueAtOf(changes.due_at);
  assertValid(errors);
  return columns;
}

/**
 * A change of meta or total of an invoice whose line items name catalog items: they are priced
 * again and must add up to the total it will have (src/services/catalog/line-items.ts); the meta
 * written is the priced one. A 422 naming the fields otherwise.
 */
export async function priceCatalogLines(
  ex: Executor,
  merchantId: string,
  row: InvoiceRow,
  changes: InvoiceChanges,
  columns: InvoiceEditColumns,
): Promise<void> {
  if (changes.meta === undefined && changes.total === undefined) return;
  const errors: FieldErrors = {};
  const meta = changes.meta !== undefined ? changes.meta : parseJson<unknown>(row.meta, {});
  const priced = await priceLineItems(ex, merchantId, meta, errors);
  if (!priced) return;
  checkLineItemsTotal(priced, columns.total_cents ?? row.total_cents, errors);
  assertValid(errors);
  if (changes.meta !== undefined) columns.meta = JSON.stringify(priced.meta);
}
