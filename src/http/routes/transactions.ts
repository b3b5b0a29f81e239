import { Elysia, t } from "elysia";
import { listPage } from "../page";
import { parseTotalCents } from "../../../packages/rules/validation";
import { merchantAuth } from "../auth";
import { IdempotencyHeaders, idempotency } from "../idempotency";
import type { AppDeps } from "../deps";
import { assertValid, ValidationFailed } from "../../domain/errors";
import { AUTH_ERRORS, ErrorBody, MoneyInput, PageOf, PageQuery, TransactionRecord } from "../../domain/schemas/records";
import { MetaInput } from "../../domain/schemas/charge";
import { FundingRecord } from "../../domain/schemas/deposits";
import { validateMeta } from "../../../packages/rules/validation";
import type { Executor } from "../../services";

const DateParam = t.String({
  pattern: "^\\d{4}-\\d{2}-\\d{2}( \\d{2}:\\d{2}:\\d{2})?$",
  description: "YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (UTC); both ends inclusive",
});

export const TransactionQuery = t.Object({
  ...PageQuery,
  startDate: t.Optional(DateParam),
  endDate: t.Optional(DateParam),
  type: t.Optional(
    t.Union(
      ["charge", "pre_auth", "capture", "void", "refund", "credit"].map((v) => t.Literal(v)),
      {
        description:
          "charge, pre_auth or credit: those transactions, each with its children; capture, void or refund: those child transactions themselves (parent_id names the parent)",
      },
    ),
  ),
  success: t.Optional(t.Union([t.Literal("true"), t.Literal("false"), t.Literal("1"), t.Literal("0")])),
  method: t.Optional(t.Union([t.Literal("card"), t.Literal("bank")])),
  customer_id: t.Optional(t.String()),
  keywords: t.Optional(t.String({ description: "id, last four, invoice id, or customer name/e-mail/company" })),
  batch_id: t.Optional(t.String({ description: "transactions with a row in this settlement batch" })),
});

const AmountBody = (what: string) =>
  t.Optional(
    t.Object({
      total: t.Optional(
        MoneyInput(`${what}. Dollars: > 0, at most two decimals; a number or a numeric string`, [5, "5.00"]),
      ),
      idempotency_id: t.Optional(t.String({ description: "Same as the Idempotency-Key header" })),
    }),
  );
const MONEY_RESPONSES = { 200: TransactionRecord, ...AUTH_ERRORS, 404: ErrorBody, 409: ErrorBody } as const;

type MoneyRoute = "capture" | "void" | "refund" | "void-or-refund";

export function transactionRoutes(deps: AppDeps) {
  const { transactions, deposits } = deps.services;
  return new Elysia({ prefix: "/transaction", tags: ["Transactions"] })
    .use(merchantAuth(deps))
    .use(idempotency(deps))
    .get(
      "",
      async ({ merchant, query, request }) =>
        listPage(query, request, (page) =>
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
              batchId: query.batch_id,
            },
            page,
          ),
        ),
      {
        query: TransactionQuery,
        response: { 200: PageOf(TransactionRecord), ...AUTH_ERRORS },
        detail: { summary: "List transactions, newest first; captures, voids and refunds appear under their parent" },
      },
    )
    .get("/:id", async ({ merchant, params }) => transactions.get(merchant.id, params.id), {
      params: t.Object({ id: t.String() }),
      response: { 200: TransactionRecord, ...AUTH_ERRORS, 404: ErrorBody },
      detail: { summary: "Get a transaction with its children" },
    })
    .put(
      "/:id",
      async ({ merchant, params, body }) => {
        assertValid(validateMeta(body.meta));
        return transactions.update(merchant.id, params.id, { meta: (body.meta ?? {}) as Record<string, unknown> });
      },
      {
        params: t.Object({ id: t.String() }),
        body: t.Object(
          {
            meta: t.Optional(MetaInput),
            // The real service takes these two; the sandbox refuses them (docs/contract.md).
            customer_id: t.Optional(
              t.Never({ description: "Refused: a transaction keeps its payment method's customer" }),
            ),
            invoice_id: t.Optional(t.Never({ description: "Refused: a transaction keeps the invoice it paid" })),
          },
          {
            title: "TransactionUpdate",
            description:
              "Only meta may change (memo, reference and any other member): its members are merged into the stored meta, and a member set to null is removed.",
          },
        ),
        response: { 200: TransactionRecord, ...AUTH_ERRORS, 404: ErrorBody },
        detail: {
          summary: "Update a transaction's meta",
          description: "Answers the transaction's record and emits update_transaction. Amounts never change here.",
        },
      },
    )
    .get("/:id/related", async ({ merchant, params }) => transactions.related(merchant.id, params.id), {
      params: t.Object({ id: t.String() }),
      response: { 200: t.Array(TransactionRecord), ...AUTH_ERRORS, 404: ErrorBody },
      detail: {
        summary: "The transactions related to one: its parent, its children and its siblings",
        description:
          "Oldest first, the transaction itself left out: for a charge, its captures, voids and refunds; for a refund, the charge and the charge's other children. None: an empty list.",
      },
    })
    .get("/:id/funding", async ({ merchant, params }) => deposits.funding(merchant.id, params.id), {
      params: t.Object({ id: t.String() }),
      response: { 200: t.Array(FundingRecord), ...AUTH_ERRORS, 404: ErrorBody },
      detail: {
        summary: "Which batch and deposit carried a transaction",
        description:
          "One entry per row of the transaction that settled (the sale or its capture, each refund), oldest first, on the merchant's sandbox clock. Not settled yet (or never: declined, voided): an empty list.",
      },
    })
    .post(
      "/:id/capture",
      ({ merchant, params, body, idempotently }) => idempotently(operate(merchant.id, "capture", params.id, body)),
      {
        idempotent: "POST /transaction/:id/capture",
        params: t.Object({ id: t.String() }),
        body: AmountBody("Amount to capture: at most the authorized total (default: all of it)"),
        headers: IdempotencyHeaders,
        response: MONEY_RESPONSES,
        detail: {
          summary: "Capture a pre_auth",
          description:
            "Captures a successful `pre_auth` once, for its total or less. Answers the pre_auth (now `is_captured`) with the new `capture` child. Emits update_transaction.",
        },
      },
    )
    .post(
      "/:id/void",
      ({ merchant, params, body, idempotently }) => idempotently(operate(merchant.id, "void", params.id, body)),
      {
        idempotent: "POST /transaction/:id/void",
        params: t.Object({ id: t.String() }),
        body: AmountBody("Optional: the full amount (a void is always in full; any other amount is refused)"),
        headers: IdempotencyHeaders,
        response: MONEY_RESPONSES,
        detail: {
          summary: "Void a transaction that has not settled",
          description:
            "Only before settlement, always the full amount: a `void` child; the transaction is `is_voided` and never settles. After settlement, refund instead. Emits update_transaction.",
        },
      },
    )
    .post(
      "/:id/refund",
      ({ merchant, params, body, idempotently }) => idempotently(operate(merchant.id, "refund", params.id, body)),
      {
        idempotent: "POST /transaction/:id/refund",
        params: t.Object({ id: t.String() }),
        body: AmountBody("Amount to refund: at most what remains (default: all that remains)"),
        headers: IdempotencyHeaders,
        response: MONEY_RESPONSES,
        detail: {
          summary: "Refund a settled transaction",
          description:
            "Only after settlement (before it, void instead); partial refunds allowed, never beyond what remains. A `refund` child; `total_refunded` grows. Emits update_transaction.",
        },
      },
    )
    .post(
      "/:id/void-or-refund",
      ({ merchant, params, body, idempotently }) =>
        idempotently(operate(merchant.id, "void-or-refund", params.id, body)),
      {
        idempotent: "POST /transaction/:id/void-or-refund",
        params: t.Object({ id: t.String() }),
        body: AmountBody("Refund amount after settlement; before it, a void is always in full"),
        headers: IdempotencyHeaders,
        response: MONEY_RESPONSES,
        detail: {
          summary: "Void before settlement, refund after",
          description: "Picks the operation the transaction's state allows. Emits update_transaction.",
        },
      },
    );

  /** One money operation, as the unit of work of its idempotent route. */
  function operate(
    merchantId: string,
    action: MoneyRoute,
    id: string,
    body: { total?: number | string; idempotency_id?: string } | null | undefined,
  ) {
    return async (tx: Executor) => {
      let cents: number | undefined;
      if (body?.total !== undefined) {
        const parsed = parseTotalCents(body.total);
        if ("error" in parsed) throw new ValidationFailed({ total: [parsed.error] });
        cents = parsed.cents;
      }
      return { status: 200, body: await transactions.operateIn(tx, merchantId, id, action, cents) };
    };
  }
}
