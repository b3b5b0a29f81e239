import { Elysia } from "elysia";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { AUTH_ERRORS, ErrorBody } from "../../domain/schemas/records";
import {
  SurchargeReview,
  SurchargeReviewQuery,
  SurchargeStatement,
  SurchargeStatementQuery,
} from "../../domain/schemas/surcharges";
import { parseTotalCents } from "../../../packages/rules/validation";
import { ValidationFailed } from "../../domain/errors";

const RULES =
  "Only credit cards are surcharged, at the merchant's `cnp_credit_surcharge_rate` (at most 3%) when `is_surcharge_enabled`; debit and prepaid cards and bank payments never are. The surcharge is rate × total rounded half up to the cent, added on top of the charge's total.";

/** GET /surcharge/review and GET /query/statement/v3/surcharges (docs/contract.md "Surcharging"). */
export function surchargeRoutes(deps: AppDeps) {
  const { surcharges } = deps.services;
  return new Elysia({ tags: ["Surcharging"] })
    .use(merchantAuth(deps))
    .get(
      "/surcharge/review",
      async ({ merchant, query }) => {
        let cents = 0;
        if (query.total !== undefined && Number(query.total) !== 0) {
          const total = parseTotalCents(query.total);
          if ("error" in total) throw new ValidationFailed({ total: [total.error] });
          cents = total.cents;
        }
        return surcharges.review(merchant, query.payment_method_id, cents);
      },
      {
        query: SurchargeReviewQuery,
        response: { 200: SurchargeReview, ...AUTH_ERRORS, 404: ErrorBody },
        detail: {
          summary: "Review a transaction's surcharge information",
          description: `What a charge of \`total\` with this payment method would add, or why nothing (no_surcharge_reason, explanation). ${RULES}`,
        },
      },
    )
    .get(
      "/query/statement/v3/surcharges",
      ({ merchant, query }) => surcharges.statement(merchant.id, query.startDate, query.endDate),
      {
        query: SurchargeStatementQuery,
        response: { 200: SurchargeStatement, ...AUTH_ERRORS },
        detail: {
          summary: "Surcharging: the surcharges collected and refunded, by day",
          description: `startDate and endDate (YYYY-MM-DD, UTC, inclusive) bound the transactions' dates. Payments voided since are left out; refunds return the surcharge in proportion to what they refund. ${RULES}`,
        },
      },
    );
}
