import type { Executor } from "../../storage/database";
import type { InvoiceRow } from "../../storage/repositories/invoices";
import { MESSAGES } from "../../../packages/rules/messages";
import {
  addError,
  isValidEmail,
  parseTotalCents,
  validateAvs,
  validateCustomerFields,
  validateMeta,
  validateTotal,
  type AvsSettings,
  type FieldErrors,
} from "../../../packages/rules/validation";
import type { InvoiceBody, PublicInvoiceBody } from "../../domain/schemas/invoices";
import { checkRequiredCustomFields, type MerchantCustomField } from "../merchant-options";
import type { CustomerRow, CustomerService } from "../customers";
import { checkLineItemsTotal, priceLineItems } from "../catalog/line-items";

/** The default hosted invoice address prefix: the invoice is at url + id. */
export function defaultInvoiceUrl(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/hosted/invoice/`;
}

/** The address a pay() attempt of this invoice e-mails its receipt to, or null when it sends none. */
export function receiptAddress(invoice: Pick<InvoiceRow, "send_receipt" | "email">): string | null {
  return invoice.send_receipt === 1 && invoice.email && isValidEmail(invoice.email) ? invoice.email : null;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/;

/** due_at as stored: a date alone is its midnight. */
export function dueAtOf(dueAt: string | undefined): string | null {
  return dueAt === undefined ? null : dueAt.length === 10 ? `${dueAt} 00:00:00` : dueAt;
}

function checkSendReceipt(input: Record<string, unknown>, errors: FieldErrors): void {
  if (input.send_receipt !== undefined && typeof input.send_receipt !== "boolean") {
    addError(errors, "send_receipt", MESSAGES.mustBeBoolean("send_receipt"));
  }
}

/**
 * The rules of pay()'s invoice step: the same ones the browser library runs on extraDetails
 * (packages/rules/validation.ts), minus the card and bank fields, which tokenize already checked.
 */
export async function validatePublicInvoice(
  ex: Executor,
  customers: CustomerService,
  merchantId: string,
  input: PublicInvoiceBody,
  settings: AvsSettings,
): Promise<FieldErrors> {
  const raw = input as Record<string, unknown>;
  const errors: FieldErrors = {};
  const hasCustomer = input.customer_id !== undefined && input.customer_id.trim() !== "";
  if (hasCustomer) {
    // A given customer's fields are ignored; only the names stay required (as in validateExtraDetails).
    validateCustomerFields(
      { firstname: input.firstname, lastname: input.lastname },
      { requireNames: true, requireContact: false },
      errors,
    );
    if (!(await customers.findRow(ex, merchantId, input.customer_id!))) {
      addError(errors, "customer_id", MESSAGES.customerNotFound);
    }
  } else {
    validateCustomerFields(raw, { requireNames: true, requireContact: true }, errors);
  }
  validateAvs(raw, settings, errors);
  validateTotal(raw, errors);
  checkSendReceipt(raw, errors);
  validateMeta(input.meta, errors);
  return errors;
}

/**
 * The rules of POST /invoice, with the merchant's required custom fields (Advanced Customization),
 * and the meta to store: line items naming catalog items are priced and must add up to the total
 * (src/services/catalog/line-items.ts); other meta is kept as given.
 */
export async function validateMerchantInvoice(
  ex: Executor,
  customers: CustomerService,
  merchantId: string,
  input: InvoiceBody,
  requiredFields: readonly MerchantCustomField[],
): Promise<{ errors: FieldErrors; meta: Record<string, unknown> }> {
  const raw = input as Record<string, unknown>;
  const errors: FieldErrors = {};
  if (!(await customers.findRow(ex, merchantId, input.customer_id)))
    addError(errors, "customer_id", MESSAGES.customerNotFound);
  validateCustomerFields({ email: input.email }, { requireNames: false, requireContact: false }, errors);
  validateTotal(raw, errors);
  checkSendReceipt(raw, errors);
  validateMeta(input.meta, errors);
  // The merchant's Advanced Customization fields marked required (src/services/merchant-options.ts).
  checkRequiredCustomFields(input.meta, requiredFields, errors);
  if (input.due_at !== undefined && !TIMESTAMP.test(input.due_at)) {
    addError(errors, "due_at", "The due_at must be a date (YYYY-MM-DD) or a timestamp (YYYY-MM-DD HH:MM:SS).");
  }
  const priced = await priceLineItems(ex, merchantId, input.meta, errors);
  if (priced) {
    const total = parseTotalCents(input.total);
    checkLineItemsTotal(priced, "cents" in total ? total.cents : undefined, errors);
  }
  return { errors, meta: priced?.meta ?? ((input.meta ?? {}) as Record<string, unknown>) };
}

/** What a new invoice is made of (InvoiceService's create, createPublic and createScheduled). */
export interface InvoiceValues {
  customerId: string;
  paymentMethodId: string | null;
  totalCents: number;
  meta: Record<string, unknown>;
  url: string;
  sendReceipt: boolean;
  email: string;
  isWebpayment: boolean;
  isMerchantPresent: boolean | null;
  isPartialPaymentEnabled: boolean;
  dueAt: string | null;
  /** The invoice schedule that made it. */
  scheduleId?: string;
  /** Its customer's row, when the caller has read it (not read again for the record). */
  customer?: CustomerRow;
}
