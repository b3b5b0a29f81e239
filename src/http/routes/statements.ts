import { Elysia } from "elysia";
import { pageRequest } from "../../domain/pagination";
import { pageOf } from "../page";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { AUTH_ERRORS } from "../../domain/schemas/records";
import { AchRejectsPage, StatementAdjustmentsPage, StatementQuery } from "../../domain/schemas/statements";
import { DisputeStatementPage } from "../../domain/schemas/disputes";

/**
 * GET /query/statement/v3/*: the statement reports (docs/settlement.md, "Statements"). Mounted by
 * depositRoutes under its /query prefix (one plugin fewer in the app's chain, whose type is as
 * deep as TypeScript allows).
 */
export function statementRoutes(deps: AppDeps) {
  const { statements, disputes } = deps.services;
  return new Elysia({ prefix: "/statement/v3", tags: ["Deposits"] })
    .use(merchantAuth(deps))
    .get(
      "/ach-rejects",
      async ({ merchant, query, request }) => {
        const page = pageRequest(query);
        const range = { startDate: query.startDate, endDate: query.endDate };
        const { summary, ...listing } = await statements.achRejects(merchant.id, range, page);
        return { ...pageOf(listing, page, request.url), summary };
      },
      {
        query: StatementQuery,
        response: { 200: AchRejectsPage, ...AUTH_ERRORS },
        detail: {
          summary: "ACH returns, with their fees and a summary",
          description:
            "The ACH payments their banks returned within startDate and endDate (the day of the return; either alone is enough, neither: all), oldest first. Each is the void child added to the original, the return fee, the deposit the amount was withdrawn from and whether that was before or after the payment's own deposit landed (pre_payout, post_payout). The summary covers the whole range, not only the page.",
        },
      },
    )
    .get(
      "/disputes",
      async ({ merchant, query, request }) => {
        const page = pageRequest(query);
        const range = { startDate: query.startDate, endDate: query.endDate };
        const { summary, ...listing } = await disputes.statement(merchant.id, range, page);
        return { ...pageOf(listing, page, request.url), summary };
      },
      {
        query: StatementQuery,
        response: { 200: DisputeStatementPage, ...AUTH_ERRORS },
        detail: {
          summary: "Disputes' holds and releases, with a summary",
          description:
            "Each dispute's money movements within startDate and endDate (either alone is enough, neither: all), oldest first: a HOLD when it opened (dispute_amount and fee_amount withdrawn), a RELEASE when it was won (dispute_amount given back). The summary covers the whole range: dispute_amount_total is signed (holds negative, releases positive), fee_amount_total the fees withdrawn.",
        },
      },
    )
    .get(
      "/adjustments",
      async ({ merchant, query, request }) => {
        const page = pageRequest(query);
        const range = { startDate: query.startDate, endDate: query.endDate };
        const { summary, ...listing } = await statements.adjustments(merchant.id, range, page);
        return { ...pageOf(listing, page, request.url), summary };
      },
      {
        query: StatementQuery,
        response: { 200: StatementAdjustmentsPage, ...AUTH_ERRORS },
        detail: {
          summary: "Refunds and adjustments, with a summary",
          description:
            "Every movement of the merchant's money besides a sale within startDate and endDate (either alone is enough, neither: all), oldest first: refunds and credits, ACH returns and their fees, dispute withdrawals, fees and reversals. amount is absolute, net signed (negative withdraws). The summary covers the whole range.",
        },
      },
    );
}
