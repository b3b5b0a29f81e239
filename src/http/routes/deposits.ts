import { Elysia } from "elysia";
import { pageRequest } from "../../domain/pagination";
import { listPage, pageOf } from "../page";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { AUTH_ERRORS, ErrorBody } from "../../domain/schemas/records";
import { DepositDetailPage, DepositDetailQuery, DepositPage, DepositQuery } from "../../domain/schemas/deposits";
import { statementRoutes } from "./statements";

const RULES =
  "Card sales and refunds batch at each midnight UTC and deposit the next day; ACH settles after the merchant's `ach_settlement_days` business days and deposits at once. Fees per sale: card 2.9% + 0.30, ACH 0.8% capped at 5.00, each rounded half up to the cent; refunds carry no fee and do not return the sale's. net = gross − refunds − fees.";

export function depositRoutes(deps: AppDeps) {
  const { deposits } = deps.services;
  return new Elysia({ prefix: "/query", tags: ["Deposits"] })
    .use(merchantAuth(deps))
    .get(
      "/deposit",
      ({ merchant, query, request }) =>
        listPage(query, request, (page) =>
          deposits.list(merchant.id, { startDate: query.startDate, endDate: query.endDate }, page),
        ),
      {
        query: DepositQuery,
        response: { 200: DepositPage, ...AUTH_ERRORS },
        detail: {
          summary: "Deposit batches that landed, by deposit date, newest first",
          description: `startDate and endDate (YYYY-MM-DD) bound the deposit date; either alone is enough. ${RULES}`,
        },
      },
    )
    .get(
      "/depositDetail",
      async ({ merchant, query, request }) => {
        const page = pageRequest(query);
        const { deposit, ...listing } = await deposits.listDetail(
          merchant.id,
          { batchId: query.batch_id, startDate: query.startDate, endDate: query.endDate },
          page,
        );
        // With a batch_id the page carries its deposit, after the envelope's fields.
        return deposit ? { ...pageOf(listing, page, request.url), deposit } : pageOf(listing, page, request.url);
      },
      {
        query: DepositDetailQuery,
        response: { 200: DepositDetailPage, ...AUTH_ERRORS, 404: ErrorBody },
        detail: {
          summary: "The transactions of a settlement batch, or of every deposit in a date range",
          description: `With batch_id: that batch (pending or landed) with its \`deposit\`. Without: startDate and/or endDate, the transactions of every deposit GET /query/deposit lists for that range. Each row is the transaction with its fee, net and the deposit-detail fields (batch_id, display_batch_id, batched_at, transaction_id, fees, card_type, customer_*). The items' net add up to the deposit's net. ${RULES}`,
        },
      },
    )
    .use(statementRoutes(deps));
}
