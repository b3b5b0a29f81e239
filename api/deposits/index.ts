import { Elysia } from "elysia";
import { pageRequest } from "../../lib/pagination";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { AUTH_ERRORS, ErrorBody } from "../models";
import { DepositDetailPage, DepositDetailQuery, DepositPage, DepositQuery } from "./model";
import { DepositService } from "./service";

const RULES =
  "Card sales and refunds batch at each midnight UTC and deposit the next day; ACH settles after the merchant's `ach_settlement_days` business days and deposits at once. Fees per sale: card 2.9% + 0.30, ACH 0.8% capped at 5.00, each rounded half up to the cent; refunds carry no fee and do not return the sale's. net = gross − refunds − fees.";

export function depositRoutes(deps: AppDeps) {
  const deposits = new DepositService(deps.db, deps.services.transactions);
  return new Elysia({ prefix: "/query", tags: ["Deposits"] })
    .use(merchantAuth(deps))
    .get(
      "/deposit",
      ({ merchant, query, request }) =>
        deposits.list(
          merchant.id,
          { startDate: query.startDate, endDate: query.endDate },
          pageRequest(query),
          request.url,
        ),
      {
        query: DepositQuery,
        response: { 200: DepositPage, ...AUTH_ERRORS },
        detail: { summary: "Deposits that landed, by deposit date, newest first", description: RULES },
      },
    )
    .get(
      "/depositDetail",
      ({ merchant, query, request }) => deposits.detail(merchant.id, query.batch_id, pageRequest(query), request.url),
      {
        query: DepositDetailQuery,
        response: { 200: DepositDetailPage, ...AUTH_ERRORS, 404: ErrorBody },
        detail: {
          summary: "The transactions of a settlement batch, with each one's fee and net",
          description: `The sum of the items' net equals the deposit's net. ${RULES}`,
        },
      },
    );
}
