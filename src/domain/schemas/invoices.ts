import { t } from "elysia";
import { LIMITS } from "../../../packages/rules/validation";
import {
  CustomerRecord,
  DeclineFields,
  EMAIL_PATTERN,
  EmailString,
  ErrorBody,
  Meta,
  MoneyInput,
  RuleString,
  TransactionRecord,
} from "./records";
import { MetaInput } from "./charge";

const Timestamp = t.String({ description: "YYYY-MM-DD HH:MM:SS (UTC)" });
const NullableTimestamp = t.Union([Timestamp, t.Null()]);
const Str = (description?: string) => t.Optional(t.String(description ? { description } : {}));

export const INVOICE_STATUSES = [
  "DRAFT",
  "PAID",
  "ATTEMPTED",
  "PARTIALLY_REFUNDED",
  "REFUNDED",
  "VOIDED",
  "DELETED",
] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** The invoice record of docs/contract.md §6 (the result of pay()). */
export const InvoiceRecord = t.Object(
  {
    id: t.String(),
    customer_id: t.String(),
    customer: CustomerRecord,
    payment_method_id: t.Union([t.String(), t.Null()], {
      description: "The method that paid it; null until paid or attempted",
    }),
    child_transactions: t.Array(TransactionRecord, {
      description: "Transactions made for this invoice: the paying charge first, then earlier failed attempts",
    }),
    status: t.UnionEnum(INVOICE_STATUSES, {
      description: "DRAFT, PAID, ATTEMPTED (the last attempt failed), PARTIALLY_REFUNDED, REFUNDED, VOIDED, DELETED",
    }),
    total: t.Number(),
    total_paid: t.Number({ description: "What the customer paid and kept paid (refunds and voids taken off)" }),
    balance_due: t.Number(),
    is_partial_payment_enabled: t.Boolean(),
    is_webpayment: t.Boolean({ description: "true for invoices made by pay()" }),
    is_merchant_present: t.Union([t.Boolean(), t.Null()]),
    payment_attempt_failed: t.Boolean(),
    payment_attempt_message: t.String({ description: "The decline message of the last failed attempt, else empty" }),
    meta: Meta,
    url: t.String({ description: "The hosted invoice address prefix; the invoice is at url + id" }),
    schedule_id: t.Union([t.String(), t.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
    invoice_date_at: Timestamp,
    paid_at: NullableTimestamp,
    due_at: NullableTimestamp,
    sent_at: NullableTimestamp,
    viewed_at: NullableTimestamp,
    deleted_at: NullableTimestamp,
  },
  { title: "Invoice" },
);
export type InvoiceRecord = typeof InvoiceRecord.static;

export const InvoiceDeclinedBody = t.Object(
  {
    message: t.String(),
    code: t.Literal("payment_declined"),
    ...DeclineFields,
    invoice: InvoiceRecord,
  },
  { title: "InvoicePaymentDeclined", description: "402: the processor declined; the invoice shows the failed attempt" },
);

const Total = () =>
  MoneyInput("Amount in dollars: > 0, at most two decimals; a number or a numeric string", [10.5, "10.50"]);

/** Fields shared by both ways of creating an invoice (fresh schemas per use). Rules live in packages/rules/validation.ts. */
const invoiceFields = () => ({
  total: Total(),
  // Unnormalized (src/domain/schemas/charge.ts): an object schema would turn [1] into {"0": 1}.
  meta: t.Optional(MetaInput),
  url: Str("Hosted invoice address prefix (default {public_url}/hosted/invoice/)"),
  send_receipt: t.Optional(t.Boolean({ description: "E-mail a receipt on every payment attempt (default true)" })),
  email: Str("Where receipts go (default: the customer's e-mail)"),
});

/** A string with something besides blanks: what the shared rules' "required" means. */
const NOT_BLANK = { type: "string", pattern: "\\S" };

const CONTACT_NOTE = "Required when no customer_id is given (then also checked); ignored with one";

/**
 * The payer's first or last name: required, not blank, at most 50 characters. Stated in the
 * document (PAYER_NAMES_REQUIRED) and checked by the invoice step's rules, not by the route's
 * schema check: an unknown link or token answers 404 before any field is looked at, and a request
 * gets every broken field at once (see RuleString).
 */
export const PayerName = (name: string) =>
  RuleString({ pattern: "\\S", maxLength: LIMITS.name, description: `Required, not blank; the payer's ${name}` });

/** Object options making firstname and lastname required in the document only (see PayerName). */
export const PAYER_NAMES_REQUIRED = { allOf: [{ required: ["firstname", "lastname"] }] };

/** POST /webpayment/{token}/invoice: pay()'s extraDetails without card or bank fields. */
export const PublicInvoiceBody = t.Object(
  {
    payment_method_id: t.String({ description: "The id tokenize returned" }),
    invoice_id: Str(
      "An open (DRAFT or ATTEMPTED) invoice of the merchant to pay instead of creating one: the hosted payment page passes pay({invoice_id}). `total` must equal its balance due; its customer, meta and url stay.",
    ),
    customer_id: Str("An existing customer of the merchant; the payment method's customer otherwise"),
    ...invoiceFields(),
    firstname: t.Optional(PayerName("firstname")),
    lastname: t.Optional(PayerName("lastname")),
    phone: Str(CONTACT_NOTE),
    company: Str(),
    address_1: Str(CONTACT_NOTE),
    address_2: Str(),
    address_city: Str(CONTACT_NOTE),
    address_state: Str(CONTACT_NOTE),
    address_zip: Str("Required when the merchant has avs_zip"),
    address_country: Str(),
  },
  {
    title: "WebPaymentInvoiceRequest",
    ...PAYER_NAMES_REQUIRED,
    // Without a customer_id, the payer's contact is required and checked; with one, it is ignored.
    anyOf: [
      { required: ["customer_id"], properties: { customer_id: NOT_BLANK } },
      {
        required: ["phone", "address_1", "address_city", "address_state"],
        properties: {
          phone: { ...NOT_BLANK, minLength: LIMITS.phoneMin },
          address_1: { ...NOT_BLANK, maxLength: LIMITS.address },
          address_2: { type: "string", maxLength: LIMITS.address },
          address_city: { ...NOT_BLANK, maxLength: LIMITS.address },
          address_state: { ...NOT_BLANK, maxLength: LIMITS.state },
          address_country: { type: "string", pattern: `^$|^[\\s\\S]{${LIMITS.country}}$` },
          email: { type: "string", pattern: EMAIL_PATTERN, maxLength: 254 },
        },
      },
    ],
  },
);
export type PublicInvoiceBody = typeof PublicInvoiceBody.static;

/** POST /invoice (merchant). */
export const InvoiceBody = t.Object(
  {
    customer_id: t.String({ description: "The customer the invoice is for" }),
    ...invoiceFields(),
    email: t.Optional(EmailString("Where receipts go (default: the customer's e-mail)")),
    payment_method_id: Str("A payment method of the merchant to remember on the invoice"),
    is_partial_payment_enabled: t.Optional(t.Boolean()),
    due_at: Str("YYYY-MM-DD or YYYY-MM-DD HH:MM:SS"),
  },
  { title: "InvoiceRequest" },
);
export type InvoiceBody = typeof InvoiceBody.static;

/**
 * PUT /invoice/{id}: what may change, each only in the states docs/contract.md names (an invoice
 * in another state answers 422 invalid_state naming the fields). A field left out keeps its value.
 */
export const InvoiceUpdateBody = t.Object(
  {
    total: t.Optional(Total()),
    meta: t.Optional(MetaInput),
    url: Str("Hosted invoice address prefix"),
    send_receipt: t.Optional(t.Boolean({ description: "E-mail a receipt on every payment attempt" })),
    email: t.Optional(t.String({ format: "email", maxLength: 254, description: "Where receipts go" })),
    payment_method_id: Str("A payment method of the merchant to remember on the invoice (unpaid invoices only)"),
    is_partial_payment_enabled: t.Optional(t.Boolean()),
    due_at: t.Optional(
      t.Union([t.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}( \\d{2}:\\d{2}:\\d{2})?$" }), t.Null()], {
        description: "YYYY-MM-DD or YYYY-MM-DD HH:MM:SS; null: no due date",
      }),
    ),
    customer_id: t.Optional(t.Never({ description: "Refused (422): an invoice keeps its customer" })),
  },
  { title: "InvoiceUpdateRequest" },
);
export type InvoiceUpdateBody = typeof InvoiceUpdateBody.static;

export const PayInvoiceBody = t.Object(
  {
    payment_method_id: t.String({ description: "A payment method of the merchant" }),
  },
  { title: "PayInvoiceRequest" },
);

export const InvoiceIdParams = t.Object({ id: t.String() });
export const PublicInvoiceParams = t.Object({ token: t.String(), id: t.String() });

export const InvoiceListQuery = {
  status: t.Optional(t.String({ description: "One of the invoice statuses" })),
  customer_id: t.Optional(t.String()),
  startDate: t.Optional(t.String({ description: "created on or after (YYYY-MM-DD)" })),
  endDate: t.Optional(t.String({ description: "created on or before (YYYY-MM-DD)" })),
};

export { ErrorBody };
