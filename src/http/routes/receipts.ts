import { Elysia, t } from "elysia";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { AUTH_ERRORS, ErrorBody, TransactionRecord } from "../../domain/schemas/records";

const IdParams = t.Object({ id: t.String() });

/** Receipts a merchant sends for a transaction (API key). */
export function receiptRoutes(deps: AppDeps) {
  const { receipts } = deps.services;
  return new Elysia({ prefix: "/transaction", tags: ["Transactions"] })
    .use(merchantAuth(deps))
    .post(
      "/:id/receipt-email",
      async ({ merchant, params, body }) => receipts.emailTransaction(merchant.id, params.id, body?.email),
      {
        params: IdParams,
        body: t.Optional(
          t.Object({
            email: t.Optional(t.String({ description: "Default: the invoice's, else the customer's e-mail" })),
          }),
        ),
        response: { 200: TransactionRecord, ...AUTH_ERRORS, 404: ErrorBody },
        detail: {
          summary: "E-mail a receipt for a transaction",
          description: "Sets receipt_email_at. The message is in GET /_sandbox/emails (and relayed with --smtp).",
        },
      },
    )
    .post(
      "/:id/receipt-sms",
      async ({ merchant, params, body }) => receipts.smsTransaction(merchant.id, params.id, body?.phone),
      {
        params: IdParams,
        body: t.Optional(t.Object({ phone: t.Optional(t.String({ description: "Default: the customer's phone" })) })),
        response: { 200: TransactionRecord, ...AUTH_ERRORS, 404: ErrorBody },
        detail: {
          summary: "Text a receipt for a transaction",
          description: "Sets receipt_sms_at. The message is in GET /_sandbox/sms (SMS is never really sent).",
        },
      },
    );
}
