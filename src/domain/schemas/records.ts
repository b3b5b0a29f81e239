/**
 * Shared TypeBox schemas: the records and envelopes every route documents. Route-specific
 * bodies live in each resource's file beside this one (charge.ts, invoices.ts, ...).
 */
import { Kind, Type, type IntegerOptions } from "@sinclair/typebox";
import { t, type TSchema } from "elysia";

export const Timestamp = t.String({ description: "YYYY-MM-DD HH:MM:SS (UTC)", examples: ["2026-11-21 15:40:00"] });
export const NullableTimestamp = t.Union([Timestamp, t.Null()]);
export const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);

/**
 * A whole number in a record or response: TypeBox's own integer. Elysia's `t.Integer` is for input
 * (it also takes "12" and makes it 12): it is a Transform, and one Transform anywhere in a response
 * schema makes Elysia run TypeBox's dynamic Encode over the whole answer instead of its compiled
 * check (38% of GET /self's time, most of a list page's), and made OpenAPI say such fields may be
 * strings. tests/http/response-schemas.test.ts keeps every response schema free of Transforms.
 */
export const Integer = (options?: IntegerOptions) => Type.Integer(options);

/**
 * A string rule stated for the OpenAPI document (and the validators and clients that read it) and
 * enforced by the service's shared rules (packages/rules/validation.ts), not by the route's schema
 * check: the rules answer every broken field at once, in their own words, where a schema check
 * would stop at the first. (A TypeBox Unknown that says `type: "string"` and the rule's keywords.)
 */
export const RuleString = (rule: Record<string, unknown>) =>
  Type.Unsafe<string>({ ...rule, type: "string", [Kind]: "Unknown" });

/** An e-mail address, or empty (the shared rule's isValidEmail, as a pattern). */
export const EMAIL_PATTERN = "^$|^[^\\s@]+@[^\\s@.]+(\\.[^\\s@.]+)+$";

/** An e-mail address, or empty (EMAIL_PATTERN). */
export const EmailString = (description?: string) =>
  RuleString({
    pattern: EMAIL_PATTERN,
    maxLength: 254,
    ...(description ? { description } : {}),
  });

/**
 * A total as a string, as the money parser takes one (packages/rules parseTotalCents): digits with
 * at most two decimals that count (trailing zeros do not: "10.500"), at most 8 whole digits
 * (leading zeros do not count), above 0, blanks around allowed.
 */
export const MONEY_STRING = "^\\s*(0*[1-9][0-9]{0,7}(\\.[0-9]{1,2}0*)?|0+\\.(0[1-9]|[1-9][0-9]?)0*)\\s*$";

/** The largest total in dollars (packages/rules LIMITS.maxTotalCents). */
const MAX_TOTAL = 99_999_999.99;

/**
 * Whole n, coprime with 10, whose 1/n of a cent the number form of a total is tested against.
 * `multipleOf: 0.01` alone is misjudged by validators that divide in binary floating point, such
 * as ajv (Prism's) and Python's jsonschema: 19.99 / 0.01 is 1998.9999999999998, so one valid total
 * in seven was refused. A multiple of 0.01 is a multiple of 0.01 / n for every whole n, and for n
 * coprime with 10 a number with a third decimal is a multiple of none of them; each division rounds
 * its own way, and for every total some n lands exactly. Checked once with ajv's test (`x / d !==
 * parseInt(x / d)`) for every cent value up to 1,000,000.00 and 50 million random ones up to the
 * largest (n up to 21 was needed; 13, 17 and 23 are spares); tests/unit/document-rules.test.ts
 * holds a sample with ajv itself. A decimal validator takes the first branch alone.
 */
const CENT_FRACTIONS = [1, 3, 7, 9, 11, 13, 17, 19, 21, 23];

/** "A JSON number with at most two decimals", as validators judge it exactly (see CENT_FRACTIONS). */
export const twoDecimals = () => ({ anyOf: CENT_FRACTIONS.map((n) => ({ type: "number", multipleOf: 0.01 / n })) });

/**
 * The same for a number schema Elysia checks (t.Number's options): under allOf, which Elysia's
 * normalizer leaves alone (an anyOf there reads to it as a TypeBox union). TypeBox ignores it; the
 * service checks the decimals.
 */
export const TWO_DECIMALS_CHECKED_BY_SERVICE = () => ({ allOf: [twoDecimals()] });

/** A total as a JSON number: above 0, at most 99,999,999.99, at most two decimals. */
const moneyNumber = () => ({ type: "number", exclusiveMinimum: 0, maximum: MAX_TOTAL, ...twoDecimals() });

/**
 * A total in dollars as the API takes it: a JSON number or a numeric string, above 0, at most two
 * decimals, at most 99999999.99. The document states all of it (a fresh schema per use: Elysia
 * edits schemas in place); the service checks it (as RuleString), so a request gets every broken
 * field at once in the rules' own words.
 */
export const MoneyInput = (description: string, examples: unknown[]) =>
  Type.Unsafe<number | string>({
    [Kind]: "Unknown",
    // oneOf (a value is one or the other): Elysia's normalizer treats an anyOf as a TypeBox union and
    // cannot mirror these plain branches.
    oneOf: [moneyNumber(), { type: "string", pattern: MONEY_STRING }],
    description,
    examples,
  });

/** One of `values` (see RuleString). */
export const OneOfString = (values: readonly string[], description?: string) =>
  RuleString({ enum: [...values], ...(description ? { description } : {}) });

export const ErrorBody = t.Object(
  {
    message: t.String(),
    code: t.String({ description: "one of the documented error codes" }),
    errors: t.Optional(t.Record(t.String(), t.Array(t.String()))),
  },
  { title: "Error", additionalProperties: true, description: "The error envelope of every non-2xx answer" },
);

export const Meta = t.Object(
  {},
  {
    title: "Meta",
    additionalProperties: true,
    description: "Free-form: reference, memo, subtotal, tax, lineItems and any other member, kept as given",
  },
);

export const CustomerRecord = t.Object(
  {
    id: t.String(),
    firstname: t.String(),
    lastname: t.String(),
    company: t.String(),
    email: t.String(),
    phone: t.String(),
    address_1: t.String(),
    address_2: t.String(),
    address_city: t.String(),
    address_state: t.String(),
    address_zip: t.String(),
    address_country: t.String(),
    reference: t.String(),
    notes: Nullable(t.String()),
    options: Nullable(t.Record(t.String(), t.Unknown())),
    cc_emails: Nullable(t.Array(t.String())),
    cc_sms: Nullable(t.Array(t.String())),
    allow_invoice_credit_card_payments: t.Boolean(),
    gravatar: t.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: NullableTimestamp,
  },
  { title: "Customer" },
);

export const PaymentMethodRecord = t.Object(
  {
    id: t.String(),
    customer_id: t.String(),
    merchant_id: t.String(),
    method: t.Union([t.Literal("card"), t.Literal("bank")]),
    person_name: t.String(),
    nickname: t.String(),
    has_cvv: t.Boolean(),
    card_type: Nullable(t.String()),
    bin_type: Nullable(
      t.Union([t.Literal("CREDIT"), t.Literal("DEBIT"), t.Literal("PREPAID")], {
        description: "A card's funding as its BIN says (only CREDIT is surcharged); null for a bank account",
      }),
    ),
    card_last_four: Nullable(t.String()),
    card_exp: Nullable(t.String({ description: "MMYY" })),
    bank_name: Nullable(t.String()),
    bank_type: Nullable(t.String()),
    bank_holder_type: Nullable(t.String()),
    bank_last_four: Nullable(t.String()),
    address_zip: Nullable(t.String()),
    address_1: Nullable(t.String()),
    fingerprint: t.String({ description: "Same card or account → same fingerprint, within this sandbox" }),
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: NullableTimestamp,
    customer: CustomerRecord,
  },
  { title: "PaymentMethod" },
);

/** One issuer check's result (packages/rules/checks.ts). */
export const CheckResultSchema = t.Union(
  [t.Literal("match"), t.Literal("no_match"), t.Literal("unavailable"), t.Literal("not_provided")],
  { description: "What the issuer's check answered" },
);

const transactionFields = {
  id: t.String(),
  parent_id: Nullable(t.String()),
  invoice_id: t.String({ description: "empty when the transaction pays no invoice" }),
  customer_id: t.String(),
  payment_method_id: t.String(),
  payment_method: t.Object({
    id: t.String(),
    customer: CustomerRecord,
    method: t.String(),
    card_type: Nullable(t.String()),
    bin_type: Nullable(t.String({ description: "CREDIT, DEBIT or PREPAID; null for a bank account" })),
    card_last_four: Nullable(t.String()),
    card_exp: Nullable(t.String()),
    bank_name: Nullable(t.String()),
    bank_type: Nullable(t.String()),
    person_name: t.String(),
  }),
  method: t.Union([t.Literal("card"), t.Literal("bank")]),
  type: t.Union([
    t.Literal("charge"),
    t.Literal("pre_auth"),
    t.Literal("capture"),
    t.Literal("void"),
    t.Literal("refund"),
    t.Literal("credit"),
  ]),
  success: t.Boolean(),
  total: t.Number(),
  surcharge: t.Number({
    description:
      "The part of total that is the merchant's credit card surcharge (a refund's: the share it returns); 0 for none",
  }),
  last_four: t.String(),
  auth_id: Nullable(t.String()),
  issuer_auth_code: Nullable(t.String()),
  message: Nullable(t.String()),
  decline_code: Nullable(t.String()),
  avs_response: Nullable(
    t.String({ description: "AVS result code of a card authorization: Y, A, Z, B, P, N or U (null: none)" }),
  ),
  avs_message: Nullable(t.String({ description: "What avs_response means" })),
  cvv_response: Nullable(t.String({ description: "CVV result code: M, N, U or P (no CVV given); null: none" })),
  avs_street_result: Nullable(CheckResultSchema),
  avs_zip_result: Nullable(CheckResultSchema),
  cvv_result: Nullable(CheckResultSchema),
  meta: Meta,
  is_manual: t.Boolean(),
  is_merchant_present: t.Boolean(),
  receipt_email_at: NullableTimestamp,
  receipt_sms_at: NullableTimestamp,
  reference_id: t.String(),
  source: Nullable(t.String()),
  schedule_id: Nullable(
    t.String({
      description:
        "The invoice schedule whose invoice this transaction pays (its children carry their parent's); null otherwise",
    }),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
  pre_auth: t.Boolean(),
  is_captured: t.Boolean(),
  total_refunded: t.Number(),
  is_refundable: t.Boolean(),
  is_voidable: t.Boolean(),
  is_voided: t.Boolean(),
  batch_id: Nullable(t.String()),
  settled_at: NullableTimestamp,
};

/** Children (captures, voids, refunds) have no children of their own. */
export const ChildTransactionRecord = t.Object(
  { ...transactionFields, child_transactions: t.Array(t.Unknown()) },
  { title: "ChildTransaction" },
);
export const TransactionRecord = t.Object(
  { ...transactionFields, child_transactions: t.Array(ChildTransactionRecord) },
  { title: "Transaction" },
);

/** The decline's reason in a 402: the catalog's code and whether a retry can succeed (docs/testing-failures.md). */
export const DeclineFields = {
  decline_code: t.String({ description: "Why the processor declined: a code of docs/testing-failures.md" }),
  retryable: t.Boolean({ description: "Whether the same request may succeed when retried (same Idempotency-Key)" }),
};

export const DeclinedBody = t.Object(
  { message: t.String(), code: t.Literal("payment_declined"), ...DeclineFields, transaction: TransactionRecord },
  { title: "PaymentDeclined", description: "402: the processor declined; the failed transaction is kept" },
);

/** A merchant's Advanced Customization field (docs/spec.md "Custom field", without the invoice's value). */
export const MerchantCustomFieldRecord = t.Object(
  {
    id: t.String({ description: "Unique per merchant; invoices name the field by it" }),
    name: t.String({ description: "The label shown to customers and users" }),
    placeholder: t.String({ description: "Hint text in the entry box" }),
    required: t.Boolean({ description: "POST /invoice must give it a value" }),
    type: t.Literal("text"),
    visible: t.Boolean({ description: "false: shown on merchant-facing pages only" }),
  },
  { title: "MerchantCustomField" },
);

/** The settings of a merchant (GET /self → settings and merchant.options; the Merchant record). */
export const MerchantSettingsRecord = t.Object(
  {
    avs_zip: t.Boolean(),
    avs_street: t.Boolean(),
    advanced_customization: t.Boolean(),
    ach_settlement_days: Integer(),
    custom_fields: t.Array(MerchantCustomFieldRecord),
    receipt_reply_to: t.String({ description: "Reply-To of receipt e-mails; empty for none" }),
    receipt_cc: t.Array(t.String(), { description: "Copied (Cc) on every receipt e-mail" }),
    receipt_footer: t.String({ description: "A closing line on every receipt; empty for none" }),
    receipt_send_declined: t.Boolean({ description: "Whether a declined pay() still e-mails a receipt" }),
    is_surcharge_enabled: t.Boolean({ description: "Whether credit card payments are surcharged" }),
    cnp_credit_surcharge_rate: Nullable(
      t.Number({ description: "The surcharge rate in percent (e.g. 3 or 1.5), at most 3; null when none is set" }),
    ),
  },
  { title: "MerchantSettings" },
);

export const MerchantRecord = t.Object(
  {
    id: t.String(),
    name: t.String(),
    email: t.String(),
    web_payments_token: t.String(),
    api_key: t.String(),
    webhook_secret: t.String({ description: "Signs webhook deliveries (PaySandbox-Signature)" }),
    is_default: t.Boolean(),
    settings: MerchantSettingsRecord,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: "Merchant" },
);

/** The list envelope of docs/contract.md §5 around a record schema (named "<Record>Page" when the record is named). */
export const PageOf = <T extends TSchema>(item: T) =>
  t.Object(
    {
      current_page: Integer(),
      per_page: Integer(),
      total: Integer(),
      last_page: Integer(),
      from: Nullable(Integer()),
      to: Nullable(Integer()),
      data: t.Array(item),
      next_page_url: Nullable(t.String()),
      prev_page_url: Nullable(t.String()),
    },
    item.title ? { title: `${item.title}Page` } : {},
  );

// Digits as strings: Elysia's numeric coercion reports errors without the parameter's name.
export const PageQuery = {
  page: t.Optional(t.String({ pattern: "^[1-9][0-9]{0,8}$", description: "1-based page number" })),
  per_page: t.Optional(t.String({ pattern: "^[1-9][0-9]{0,2}$", description: "records per page: 1-200 (default 25)" })),
};

/** The error answers every authenticated route can give. */
export const AUTH_ERRORS = { 401: ErrorBody, 403: ErrorBody, 422: ErrorBody } as const;
