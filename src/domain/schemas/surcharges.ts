/**
 * GET /surcharge/review and GET /query/statement/v3/surcharges (docs/contract.md "Surcharging"):
 * the real answer fields plus the sandbox's explanation.
 */
import { t } from "elysia";
import { Integer, Nullable, TWO_DECIMALS_CHECKED_BY_SERVICE } from "./records";
import { SURCHARGE_RATE_LIMIT_BPS } from "../surcharge";

/** The surcharge settings a settings change takes (PUT /team/options, PUT /_sandbox/merchants/{id}/settings). */
export const SurchargeSettingsFields = {
  is_surcharge_enabled: t.Optional(
    t.Boolean({ description: "surcharge credit card payments (needs cnp_credit_surcharge_rate; default false)" }),
  ),
  cnp_credit_surcharge_rate: t.Optional(
    Nullable(
      t.Number({
        exclusiveMinimum: 0,
        maximum: SURCHARGE_RATE_LIMIT_BPS / 100,
        ...TWO_DECIMALS_CHECKED_BY_SERVICE(),
        description:
          "the surcharge in percent, above 0 and at most 3 (the card brands' limit), two decimals at most; null clears it",
      }),
    ),
  ),
};

const Money = (description: string) => t.Number({ description });
const DATE = t.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "YYYY-MM-DD (UTC), inclusive" });

export const SurchargeReviewQuery = t.Object({
  payment_method_id: t.String({ minLength: 1, maxLength: 100, description: "The payment method that would pay" }),
  total: t.Optional(
    t.String({
      pattern: "^\\s*\\d{1,8}(\\.\\d{1,2})?\\s*$",
      description: "The sale before any surcharge (e.g. 12.00); omitted: 0, to learn just the rate",
    }),
  ),
});

export const SurchargeReview = t.Object(
  {
    bin_type: t.String({ description: "CREDIT, DEBIT or PREPAID for a card; BANK for a bank account" }),
    surcharge_rate: t.Number({ description: "The rate applied, in percent (0 when none applies)" }),
    surcharge_amount: Money("The surcharge a payment of `total` with this method adds, rounded half up to the cent"),
    total_with_surcharge_amount: Money("total + surcharge_amount: what the charge's total will be"),
    no_surcharge_reason: Nullable(
      t.Union(
        [t.Literal("surcharging_off"), t.Literal("debit_card"), t.Literal("prepaid_card"), t.Literal("bank_payment")],
        { description: "Why no surcharge applies (sandbox field); null when one does" },
      ),
    ),
    explanation: t.String({ description: "The answer in a sentence (sandbox field)" }),
  },
  { title: "SurchargeReview" },
);

export const SurchargeStatementQuery = t.Object({ startDate: DATE, endDate: DATE });

const totals = {
  transaction_count: Integer({ description: "Surcharged payments (charges and captures) that stand" }),
  sales_total: Money("Those payments' totals without their surcharge"),
  surcharge_total: Money("The surcharge those payments collected"),
  refunded_surcharge_total: Money("The surcharge refunds returned (in proportion to what they refunded)"),
  net_surcharge_total: Money("surcharge_total − refunded_surcharge_total"),
};

export const SurchargeStatement = t.Object(
  {
    data: t.Array(t.Object({ date: t.String({ description: "YYYY-MM-DD (UTC)" }), ...totals })),
    summary: t.Object(totals),
  },
  { title: "SurchargeStatement", description: "The surcharges of a date range, by day (days with none left out)" },
);
