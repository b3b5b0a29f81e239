import { t } from "elysia";
import {
  CustomerRecord,
  Integer,
  Meta,
  MoneyInput,
  Nullable,
  NullableTimestamp,
  PaymentMethodRecord,
  Timestamp,
} from "./records";
import { MetaInput } from "./charge";

export const SCHEDULE_STATUSES = ["ACTIVE", "PAUSED", "COMPLETED", "DELETED"] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/**
 * The payment method record under its own title: OpenAPI writes a nullable object as
 * `type: ["object", "null"]`, which must not change the one titled PaymentMethod.
 */
const SchedulePaymentMethod = t.Object(PaymentMethodRecord.properties, {
  title: "SchedulePaymentMethod",
  description: "The payment method record, or null",
});

/** The invoice schedule record (the real DELETE /invoice/schedule/{id} example's fields, plus ours). */
export const InvoiceScheduleRecord = t.Object(
  {
    id: t.String(),
    merchant_id: t.String(),
    customer_id: t.String(),
    customer: CustomerRecord,
    payment_method_id: Nullable(t.String({ description: "Charged at every occurrence; null: the invoice is sent" })),
    payment_method: Nullable(SchedulePaymentMethod),
    active: t.Boolean({ description: "false: paused (no occurrence runs until it is true again)" }),
    status: t.UnionEnum(SCHEDULE_STATUSES, {
      description: "ACTIVE, PAUSED (active false), COMPLETED (the rule has no occurrence left), DELETED",
    }),
    rule: t.String({
      description: "The iCalendar RRULE, with its DTSTART",
      examples: ["FREQ=MONTHLY;INTERVAL=1;DTSTART=20250703T140000Z"],
    }),
    rule_text: t.String({ description: "The rule in words", examples: ["every month"] }),
    count: Integer({ description: "Occurrences run so far (each made one invoice)" }),
    max: Nullable(Integer({ description: "The rule's COUNT: occurrences in all, counted from DTSTART" })),
    end_at: NullableTimestamp,
    last_run_at: NullableTimestamp,
    next_run_at: Nullable(Timestamp),
    future_occurrences: t.Array(Timestamp, { description: "The next occurrences (at most 5), from next_run_at" }),
    last_invoice_status: Nullable(t.String({ description: "The status of the last invoice an occurrence made" })),
    event: t.String({ description: "What an occurrence does: always InvoiceGenerator" }),
    total: t.Number(),
    meta: Meta,
    url: t.String({ description: "The hosted invoice address prefix of the invoices it makes" }),
    email_notification: t.Boolean({ description: "E-mail each invoice, and its receipt, to the customer" }),
    is_partial_payment_enabled: t.Boolean(),
    files: t.Array(t.String()),
    channel: t.String(),
    invoice_ids: t.Array(t.String(), { description: "The invoices its occurrences made, oldest first" }),
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: NullableTimestamp,
  },
  { title: "InvoiceSchedule" },
);
export type InvoiceScheduleRecord = typeof InvoiceScheduleRecord.static;

const Total = () =>
  MoneyInput("Amount in dollars of each invoice: > 0, at most two decimals; a number or a numeric string", [
    100,
    "100.00",
  ]);
const Rule = t.String({
  maxLength: 1000,
  description:
    "An iCalendar RRULE: FREQ=DAILY|WEEKLY|MONTHLY|YEARLY, with INTERVAL, COUNT or UNTIL, BYDAY, BYMONTHDAY (…) and DTSTART (UTC, e.g. 20250703T140000Z; default: now). An impossible rule, or UNTIL before DTSTART, is a 422.",
  examples: ["FREQ=MONTHLY;INTERVAL=1;DTSTART=20250703T140000Z"],
});
const Files = t.Array(t.String({ maxLength: 2048 }), { maxItems: 20, description: "Kept and answered as given" });

/** POST /invoice/schedule. */
export const InvoiceScheduleBody = t.Object(
  {
    rule: Rule,
    total: Total(),
    customer_id: t.Optional(t.String({ description: "Default: the payment method's customer" })),
    payment_method_id: t.Optional(t.String({ description: "Charged at every occurrence (the customer's)" })),
    url: t.Optional(t.String({ maxLength: 2048, description: "Default {public_url}/hosted/invoice/" })),
    email_notification: t.Optional(t.Boolean({ description: "Default true" })),
    files: t.Optional(Files),
    meta: t.Optional(MetaInput),
  },
  { title: "InvoiceScheduleRequest" },
);
export type InvoiceScheduleBody = typeof InvoiceScheduleBody.static;

/** PUT /invoice/schedule/{id}: a field left out keeps its value. */
export const InvoiceScheduleUpdateBody = t.Object(
  {
    rule: t.Optional(Rule),
    total: t.Optional(Total()),
    active: t.Optional(t.Boolean({ description: "false pauses; true resumes from the next occurrence to come" })),
    payment_method_id: t.Optional(
      Nullable(t.String({ description: "Another of the customer's payment methods; null: send, do not charge" })),
    ),
    url: t.Optional(t.String({ maxLength: 2048 })),
    email_notification: t.Optional(t.Boolean()),
    files: t.Optional(Files),
    meta: t.Optional(MetaInput),
    customer_id: t.Optional(t.Never({ description: "Refused (422): a schedule keeps its customer" })),
  },
  { title: "InvoiceScheduleUpdateRequest" },
);
export type InvoiceScheduleUpdateBody = typeof InvoiceScheduleUpdateBody.static;

/** Literals, not t.UnionEnum: Elysia fills an absent query enum with its first member. */
const oneOf = <T extends string>(values: readonly T[], description: string) =>
  t.Optional(
    t.Union(
      values.map((value) => t.Literal(value)),
      { description },
    ),
  );

export const InvoiceScheduleListQuery = {
  customer_id: t.Optional(t.String()),
  sort: oneOf(["created_at", "updated_at", "next_run_at", "total"], "Sort by (default created_at)"),
  order: oneOf(["asc", "desc"], "Default desc"),
};
