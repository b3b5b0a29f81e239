/**
 * Payment links (/query/payment-links): the record as the real service answers it plus the
 * sandbox's expiry, uses and usable-now fields, the real envelopes, and the request bodies
 * (docs/contract.md §5, "Payment links").
 */
import { t } from "elysia";
import { Integer, MoneyInput, Nullable, NullableTimestamp, Timestamp } from "./records";
import { PriceInput } from "./items";
import { PAYER_NAMES_REQUIRED, PayerName } from "./invoices";

const TIMESTAMP_PATTERN = "^\\d{4}-\\d{2}-\\d{2}( \\d{2}:\\d{2}:\\d{2})?$";

export const LINK_INACTIVE_REASONS = ["inactive", "expired", "used_up"] as const;
export type LinkInactiveReason = (typeof LINK_INACTIVE_REASONS)[number];

/** The payment link record of docs/contract.md §6. */
export const PaymentLinkRecord = t.Object(
  {
    id: t.String({ description: "32 hex digits, as the real service's" }),
    merchant_id: t.String(),
    common_name: t.String(),
    url: t.String({ description: "The address prefix the integrator gave; the sandbox's page is tinyurl" }),
    tinyurl: t.String({ description: "The link's hosted payment page, served by the sandbox" }),
    link_meta: t.Record(t.String(), t.Unknown(), {
      description: "As given, with paymentLinkId, the priced lineItems and subtotal, and total",
    }),
    active: Integer({ description: "1: on, 0: switched off (PUT active)" }),
    amount: t.Number({ description: "What the customer pays (0 on a link whose total the customer enters)" }),
    expires_at: NullableTimestamp,
    max_uses: Nullable(Integer({ description: "Payments it takes; null: no limit (1: single-use)" })),
    uses: Integer({ description: "Payments made through it (its page and update-stats)" }),
    is_active: t.Boolean({ description: "Whether it can be paid now, on the merchant's sandbox clock" }),
    inactive_reason: Nullable(t.UnionEnum(LINK_INACTIVE_REASONS)),
    total_sales: t.Number(),
    total_transactions: Integer(),
    created_at: Timestamp,
    updated_at: NullableTimestamp,
    deleted_at: NullableTimestamp,
  },
  { title: "PaymentLink" },
);
export type PaymentLinkRecord = typeof PaymentLinkRecord.static;

/** A link's amount or total: > 0, at most two decimals (a fresh schema per use). */
const Amount = (description = "Dollars: > 0, at most two decimals; a number or a numeric string") =>
  MoneyInput(description, [15, "15.00"]);
const Flag = t.Optional(t.Boolean());

/** link_meta: the real members (any other member is kept as given). */
export const LinkMetaInput = t.Object(
  {
    total: t.Optional(Amount()),
    memo: t.Optional(t.String({ maxLength: 500 })),
    successRedirect: t.Optional(t.String({ maxLength: 2000, description: "Where the page goes after a payment" })),
    frequency: t.Optional(
      t.String({
        maxLength: 500,
        description:
          "A recurring link's frequency: daily, weekly, biweekly, monthly, quarterly, yearly, or an RRULE without DTSTART (FREQ=MONTHLY;COUNT=12); once or empty: paid once",
      }),
    ),
    rrule: t.Optional(
      t.Union([t.Boolean(), t.String({ maxLength: 500 })], {
        description: "true: the link recurs by frequency; or the RRULE itself",
      }),
    ),
    isTotalEditable: Flag,
    tokenizeOnly: t.Optional(
      t.Boolean({ description: "The page saves the payment method for the payer (…/save) and charges nothing" }),
    ),
    areCnpDigitalWalletPaymentsAllowed: Flag,
    areBankPaymentsAllowed: Flag,
    areCreditCardsPaymentsAllowed: Flag,
    arePaypalPaymentsAllowed: Flag,
    areVenmoPaymentsAllowed: Flag,
    arePaypalBnplPaymentsAllowed: t.Optional(t.Union([t.Boolean(), t.String()])),
    buttonText: t.Optional(t.String({ maxLength: 40 })),
    active: t.Optional(t.Union([t.Number(), t.Boolean()])),
    item: t.Optional(t.String({ maxLength: 255 })),
    price: t.Optional(PriceInput),
    quantity: t.Optional(MoneyInput("The quantity of item: > 0, at most two decimals (default 1)", [2, "1.5"])),
    unitOfMeasurement: t.Optional(t.String()),
    tax: t.Optional(PriceInput),
    productCode: t.Optional(t.String()),
    lineItems: t.Optional(
      t.Array(t.Record(t.String(), t.Unknown()), {
        maxItems: 100,
        description: "Invoice line items; an entry's id names a catalog item (priced as an invoice's)",
      }),
    ),
  },
  { additionalProperties: true, title: "LinkMeta" },
);

const linkFields = {
  url: t.Optional(t.String({ maxLength: 2000 })),
  link_meta: t.Optional(LinkMetaInput),
  amount: t.Optional(Amount()),
  active: t.Optional(t.Union([t.Boolean(), t.Literal(0), t.Literal(1)], { description: "Default on" })),
  expires_at: t.Optional(
    t.Union([t.String({ pattern: TIMESTAMP_PATTERN }), t.Null()], {
      description: "YYYY-MM-DD (its midnight) or YYYY-MM-DD HH:MM:SS, on the merchant's sandbox clock; null: never",
    }),
  ),
  max_uses: t.Optional(
    t.Union([t.Integer({ minimum: 1, maximum: 1_000_000 }), t.Null()], {
      description: "1: single-use; null: no limit",
    }),
  ),
  funding: t.Optional(t.Record(t.String(), t.Unknown(), { description: "Taken and ignored: one account" })),
};

export const PaymentLinkBody = t.Object(
  { common_name: t.String({ minLength: 1, maxLength: 255 }), ...linkFields },
  { title: "PaymentLinkRequest" },
);
export type PaymentLinkBody = typeof PaymentLinkBody.static;

/** PUT: the fields given change; the others keep their value. */
export const PaymentLinkUpdateBody = t.Object(
  { common_name: t.Optional(t.String({ minLength: 1, maxLength: 255 })), ...linkFields },
  { title: "PaymentLinkUpdateRequest" },
);
export type PaymentLinkUpdateBody = typeof PaymentLinkUpdateBody.static;

export const LinkStatsBody = t.Object(
  {
    total: t.Optional(
      Amount(
        "Required: the sale's amount in dollars (> 0, at most two decimals); checked after the link is found (404 first)",
      ),
    ),
  },
  { title: "PaymentLinkStatsRequest" },
);

/** The real envelope of a create, an update: `{status, message, body}`. */
export const LinkWriteAnswer = t.Object(
  { status: Integer(), message: t.String(), body: PaymentLinkRecord },
  { title: "PaymentLinkWritten" },
);

export const LinkAnswer = t.Object({ data: PaymentLinkRecord }, { title: "PaymentLinkAnswer" });

export const LinkPage = t.Object(
  {
    data: t.Object({
      current_page: Integer(),
      first_page_url: t.String(),
      from: Nullable(Integer()),
      last_page: Integer(),
      last_page_url: t.String(),
      next_page_url: Nullable(t.String()),
      path: t.String(),
      per_page: Integer(),
      prev_page_url: Nullable(t.String()),
      to: Nullable(Integer()),
      total: Integer(),
      data: t.Array(PaymentLinkRecord),
    }),
  },
  { title: "PaymentLinkPage" },
);

export const LinkDeleted = t.Object({ status: Integer(), message: t.String() }, { title: "PaymentLinkDeleted" });

export const LinkActiveAnswer = t.Object(
  { id: t.String(), is_active: t.Boolean(), reason: Nullable(t.UnionEnum(LINK_INACTIVE_REASONS)) },
  { title: "PaymentLinkActive" },
);

export const LinkStatsAnswer = t.Object(
  {
    status: Integer(),
    message: t.String(),
    body: t.Object({ total: t.Number({ description: "The link's total sales now" }), total_transactions: Integer() }),
  },
  { title: "PaymentLinkStats" },
);

export const LINK_SORTS = ["created_at", "updated_at", "common_name", "amount", "total_sales"] as const;

export const LinkListQuery = {
  active: t.Optional(t.Union([t.Literal("true"), t.Literal("false"), t.Literal("1"), t.Literal("0")])),
  keywords: t.Optional(t.Union([t.String(), t.Array(t.String())], { description: "Part of the name or memo" })),
  "keywords[]": t.Optional(
    t.Union([t.String(), t.Array(t.String())], { description: "Each: part of the name or memo" }),
  ),
  // Unions of literals: Elysia fills an optional UnionEnum left out with its first member.
  sort: t.Optional(
    t.Union(
      LINK_SORTS.map((s) => t.Literal(s)),
      { description: "Default created_at" },
    ),
  ),
  order: t.Optional(t.Union([t.Literal("asc"), t.Literal("desc")], { description: "Default desc" })),
};

/** POST /webpayment/{token}/payment-link/{id}/pay: what the link's page sends after tokenize. */
export const LinkPayBody = t.Object(
  {
    payment_method_id: t.String({ description: "The id tokenize returned" }),
    total: t.Optional(
      Amount("On a link whose total is editable, what the payer pays; otherwise, if given, the link's amount"),
    ),
    email: t.Optional(t.String({ maxLength: 254 })),
    firstname: t.Optional(PayerName("firstname")),
    lastname: t.Optional(PayerName("lastname")),
    address_zip: t.Optional(t.String()),
    address_1: t.Optional(t.String()),
  },
  { title: "PaymentLinkPayRequest", ...PAYER_NAMES_REQUIRED },
);
export type LinkPayBody = typeof LinkPayBody.static;

/** POST /webpayment/{token}/payment-link/{id}/save: what a tokenizeOnly link's page sends after tokenize. */
export const LinkSaveBody = t.Object(
  { payment_method_id: t.String({ description: "The id tokenize returned" }) },
  { title: "PaymentLinkSaveRequest" },
);

export const LinkIdParams = t.Object({ id: t.String() });
