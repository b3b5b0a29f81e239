import { Elysia, t } from "elysia";
import { pageRequest } from "../../lib/pagination";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { AUTH_ERRORS, ErrorBody, PageOf, PageQuery, TransactionRecord } from "../models";

const DateParam = t.String({
  pattern: "^\\d{4}-\\d{2}-\\d{2}( \\d{2}:\\d{2}:\\d{2})?$",
  description: "YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (UTC); both ends inclusive",
});

export const TransactionQuery = t.Object({
  ...PageQuery,
  startDate: t.Optional(DateParam),
  endDate: t.Optional(DateParam),
  type: t.Optional(t.Union(["charge", "pre_auth", "capture", "void", "refund"].map((v) => t.Literal(v)))),
  success: t.Optional(t.Union([t.Literal("true"), t.Literal("false"), t.Literal("1"), t.Literal("0")])),
  method: t.Optional(t.Union([t.Literal("card"), t.Literal("bank")])),
  customer_id: t.Optional(t.String()),
  keywords: t.Optional(t.String({ description: "id, last four, invoice id, or customer name/e-mail/company" })),
});

export function transactionRoutes(deps: AppDeps) {
  const { transactions } = deps.services;
  return new Elysia({ prefix: "/transaction", tags: ["Transactions"] })
    .use(merchantAuth(deps))
    .get(
      "",
      ({ merchant, query, request }) =>
        transactions.list(
          merchant.id,
          {
            startDate: query.startDate,
            endDate: query.endDate,
            type: query.type,
            success: query.success === undefined ? undefined : query.success === "true" || query.success === "1",
            method: query.method,
            customerId: query.customer_id,
            keywords: query.keywords,
          },
          pageRequest(query),
          request.url,
        ),
      {
        query: TransactionQuery,
        response: { 200: PageOf(TransactionRecord), ...AUTH_ERRORS },
        detail: { summary: "List transactions, newest first; captures, voids and refunds appear under their parent" },
      },
    )
    .get("/:id", ({ merchant, params }) => transactions.recordOf(merchant.id, params.id), {
      params: t.Object({ id: t.String() }),
      response: { 200: TransactionRecord, ...AUTH_ERRORS, 404: ErrorBody },
      detail: { summary: "Get a transaction with its children" },
    });
}
