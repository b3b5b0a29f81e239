/**
 * Disputes (`GET /underwriting/disputes`, `POST /underwriting/dispute/{id}/submit`, the
 * create_dispute and update_dispute events) and the disputes statement
 * (`GET /query/statement/v3/disputes`): the real record's fields, then the sandbox's.
 */
import { t } from "elysia";
import { Integer, Nullable, NullableTimestamp, PageOf, PageQuery, Timestamp } from "./records";
import { DateParam } from "./deposits";
import { FileRecord } from "./files";
import { DISPUTE_REASONS } from "../../../packages/rules/test-data";

/** The states of a dispute (docs/settlement.md, "Disputes"). */
export const DISPUTE_STATUSES = ["PENDING", "EVIDENCE_UPLOADED", "WON", "LOST"] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

export const DISPUTE_REASON_CODES = Object.keys(DISPUTE_REASONS) as (keyof typeof DISPUTE_REASONS)[];

/** Literals, not t.UnionEnum: Elysia fills an absent query enum with its first member. */
const oneOf = <T extends string>(values: readonly T[], description: string) =>
  t.Optional(
    t.Union(
      values.map((value) => t.Literal(value)),
      { description },
    ),
  );

const DISPUTE_FIELDS = {
  id: t.String(),
  transaction_id: t.String({ description: "The disputed (top-level) card transaction" }),
  merchant_id: t.String(),
  reason: t.String({
    description: "FRAUD, PRODUCT_NOT_RECEIVED, DUPLICATE, CREDIT_NOT_PROCESSED or SUBSCRIPTION_CANCELED",
  }),
  amount: t.Number({ description: "The disputed amount, withdrawn from the next deposit when the dispute opened" }),
  status: t.String({
    description:
      "PENDING (awaiting the merchant's response), EVIDENCE_UPLOADED (submitted, awaiting the decision), WON or LOST",
  }),
  respond_by: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
  reason_description: t.String({ description: "What the reason means (sandbox field)" }),
  fee: t.Number({ description: "The dispute fee withdrawn with the amount (sandbox field; never given back)" }),
  notes: Nullable(t.String({ description: "The text submitted with the evidence (sandbox field)" })),
  submitted_at: NullableTimestamp,
  decision_at: Nullable(Timestamp),
  closed_at: NullableTimestamp,
  files: t.Array(FileRecord, { description: "The live evidence files (sandbox field)" }),
};

export const DisputeRecord = t.Object(DISPUTE_FIELDS, { title: "Dispute" });
export type DisputeRecord = typeof DisputeRecord.static;

// One schema object for the record and the page's rows: Elysia closes a route's root answer schema
// in place (additionalProperties: false), so a copy titled the same would become a second, different
// "Dispute" once GET /underwriting/dispute/{id} had answered, and /openapi/json a 500.
export const DisputePage = PageOf(DisputeRecord);

/**
 * POST /_sandbox/disputes's answer: the same record, its own schema object (Elysia marks a route's
 * root response schema in place: two objects under one title would then differ in /openapi/json).
 */
export const OpenedDisputeRecord = t.Object(DISPUTE_FIELDS, { title: "OpenedDispute" });

export const DisputeListQuery = t.Object({
  ...PageQuery,
  id: t.Optional(t.String({ description: "only this dispute" })),
  transaction_id: t.Optional(t.String({ description: "only the dispute of this transaction" })),
  status: oneOf(DISPUTE_STATUSES, "only the disputes in this status"),
  reason: oneOf(DISPUTE_REASON_CODES, "only the disputes with this reason"),
  sort: oneOf(["created_at", "updated_at", "respond_by", "amount"], "sort by (default created_at)"),
  order: oneOf(["asc", "desc"], "default desc"),
  startDate: t.Optional(DateParam),
  endDate: t.Optional(DateParam),
});
export type DisputeListQuery = typeof DisputeListQuery.static;

export const DisputeSubmitBody = t.Optional(
  t.Object(
    {
      notes: t.Optional(
        t.String({
          maxLength: 5000,
          description: "Text submitted with the evidence files (sandbox field; read for winning_evidence)",
        }),
      ),
    },
    { title: "DisputeSubmitRequest" },
  ),
);

/** One row of GET /query/statement/v3/disputes: a dispute's hold (its opening) or its release (won). */
export const DisputeStatementRecord = t.Object(
  {
    id: t.String({ description: "The adjustment that moved the money" }),
    date: Timestamp,
    type: t.Union([t.Literal("HOLD"), t.Literal("RELEASE")], {
      description: "HOLD: the amount and fee withdrawn when the dispute opened; RELEASE: the amount given back (won)",
    }),
    dispute_amount: t.Number({ description: "The amount withheld or given back (absolute)" }),
    fee_amount: t.Number({ description: "The dispute fee withdrawn (0 on a RELEASE)" }),
    dispute_id: t.String(),
    transaction_id: t.String(),
    reason: t.String(),
    status: t.String({ description: "The dispute's status now" }),
    deposit_id: Nullable(t.String({ description: "The deposit that carried it; null until one did" })),
    net: t.Number({ description: "Its signed effect on the deposits" }),
  },
  { title: "DisputeStatement" },
);

export const DisputeStatementSummary = t.Object(
  {
    dispute_amount_total: t.Number({ description: "Signed: holds negative, releases positive" }),
    fee_amount_total: t.Number({ description: "The fees withdrawn" }),
    count: Integer(),
  },
  { title: "DisputeStatementSummary" },
);

export const DisputeStatementPage = t.Composite(
  [PageOf(DisputeStatementRecord), t.Object({ summary: DisputeStatementSummary })],
  { title: "DisputeStatementPage" },
);
