import { t } from "elysia";
import { Integer, Nullable, PageOf, PageQuery, Timestamp } from "./records";
import { DateParam } from "./deposits";

const Money = (description: string) => t.Number({ description });

/** The query of the statement reports: the page, and the dates (UTC, inclusive; either alone is enough). */
export const StatementQuery = t.Object({
  ...PageQuery,
  startDate: t.Optional(DateParam),
  endDate: t.Optional(DateParam),
});

/** One ACH return (GET /query/statement/v3/ach-rejects): the real service's fields, then the sandbox's. */
export const AchRejectRecord = t.Object(
  {
    ach_reject_transaction_id: t.String({ description: "The void child the return added to the original" }),
    ach_reject_transaction_created_at: Timestamp,
    ach_reject_transaction_amount: Money("The amount returned (the original's total)"),
    ach_reject_transaction_timing: t.Union([t.Literal("pre_payout"), t.Literal("post_payout")], {
      description: "pre_payout: returned before the deposit carrying the payment landed; post_payout: after",
    }),
    original_transaction_id: t.String(),
    original_transaction_created_at: Timestamp,
    original_transaction_amount: Money("The original payment's total"),
    deposit_id: Nullable(t.String({ description: "The deposit the returned amount was withdrawn from" })),
    ach_reject_fee_id: Nullable(t.String({ description: "The return fee's adjustment" })),
    ach_reject_fee_amount: Money("The return fee (15.00)"),
    ach_reject_fee_deducted_at: Nullable(Timestamp),
    ach_reject_code: t.String({ description: "The ACH return code: R01, R02, R03, R04, R10, R29" }),
    ach_reject_reason: t.String(),
  },
  { title: "AchReject" },
);

export const AchRejectSummary = t.Object(
  {
    ach_reject_transaction_count: Integer(),
    ach_reject_transaction_amount: Money("The returned amounts' sum"),
    original_transaction_amount: Money("The original payments' sum"),
    ach_reject_fee_amount: Money("The return fees' sum"),
  },
  { title: "AchRejectSummary" },
);

export const AchRejectsPage = t.Composite([PageOf(AchRejectRecord), t.Object({ summary: AchRejectSummary })], {
  title: "AchRejectsPage",
});

/** One row of GET /query/statement/v3/adjustments: a refund, a credit or a deposit adjustment. */
export const StatementAdjustmentRecord = t.Object(
  {
    id: t.String({ description: "The refund or credit transaction, or the adjustment" }),
    transaction_id: Nullable(t.String({ description: "The (top-level) transaction it concerns" })),
    batch_id: Nullable(t.String({ description: "The batch whose deposit carried it; null until one did" })),
    type: t.String({
      description:
        "refund, credit, or an adjustment kind: ach_return, return_fee, dispute, dispute_fee, dispute_reversal",
    }),
    subtype: Nullable(t.String({ description: "An adjustment's code: a return code, a dispute reason" })),
    amount: Money("The absolute amount"),
    created_at: Timestamp,
    net: Money("Its signed effect on the deposits: negative withdraws, positive gives back"),
    deposit_id: Nullable(t.String()),
    description: t.String(),
  },
  { title: "StatementAdjustment" },
);

export const StatementAdjustmentSummary = t.Object(
  {
    adjustments_count: Integer(),
    adjustments_amount: Money("The sum of the absolute amounts"),
    net_amount: Money("The signed sum: what the rows did to the deposits"),
  },
  { title: "StatementAdjustmentSummary" },
);

export const StatementAdjustmentsPage = t.Composite(
  [PageOf(StatementAdjustmentRecord), t.Object({ summary: StatementAdjustmentSummary })],
  { title: "StatementAdjustmentsPage" },
);
