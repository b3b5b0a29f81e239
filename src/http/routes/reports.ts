import { Elysia } from "elysia";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { ValidationFailed } from "../../domain/errors";
import { AUTH_ERRORS } from "../../domain/schemas/records";
import {
  CardProcessingReport,
  CardTypeReport,
  DailySalesReport,
  StatementQuery,
  TeamSummary,
} from "../../domain/schemas/reports";

/** A range that ends before it starts is a 422 naming endDate. */
function range(query: { startDate: string; endDate: string }) {
  if (query.endDate < query.startDate) {
    throw new ValidationFailed({ endDate: ["The endDate may not be before the startDate."] });
  }
  return query;
}

const ABOUT =
  "Computed from what is stored, by the sandbox clock's dates (startDate to endDate, both inclusive). A sale is a successful, unvoided charge or capture; fees are the simulated processor's (docs/settlement.md).";

/** The real service's statement reports and team summary (docs/contract.md, "Reports"). */
export function reportRoutes(deps: AppDeps) {
  const { reports } = deps.services;
  return new Elysia({ prefix: "/query", tags: ["Reports"] })
    .use(merchantAuth(deps))
    .get("/statement/v3/daily-sales", ({ merchant, query }) => reports.dailySales(merchant.id, range(query)), {
      query: StatementQuery,
      response: { 200: DailySalesReport, ...AUTH_ERRORS },
      detail: { summary: "Sales and fees per day", description: ABOUT },
    })
    .get(
      "/statement/v3/volumes/card-processing",
      ({ merchant, query }) => reports.cardProcessing(merchant.id, range(query)),
      {
        query: StatementQuery,
        response: { 200: CardProcessingReport, ...AUTH_ERRORS },
        detail: { summary: "Sales by payment method, by kind and by card brand", description: ABOUT },
      },
    )
    .get("/statement/v3/volumes/card-type", ({ merchant, query }) => reports.cardType(merchant.id, range(query)), {
      query: StatementQuery,
      response: { 200: CardTypeReport, ...AUTH_ERRORS },
      detail: { summary: "Card sales and their fees per card brand", description: ABOUT },
    })
    .get("/statistics/teamSummary", ({ merchant }) => reports.teamSummary(merchant.id), {
      response: { 200: TeamSummary, ...AUTH_ERRORS },
      detail: {
        summary: "Counts of the merchant's records",
        description:
          "Successful and failed charges (pre-auths included), successful refunds, invoices and customers not deleted, the invoices a schedule made; one user (the API user); files: 0.",
      },
    });
}
