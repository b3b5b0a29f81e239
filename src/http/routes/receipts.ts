import { Elysia, t } from "elysia";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { AUTH_ERRORS, ErrorBody, TransactionRecord } from "../../domain/schemas/records";
import { LIMITS } from "../../../packages/rules/validation";

const IdParams = t.Object({ id: t.String() });
const Email = t.String({ format: "email", maxLength: 254 });
const Phone = t.String({ minLength: LIMITS.phoneMin, maxLength: 32 });
const RECEIPT_RESPONSES = { 200: TransactionRecord, ...AUTH_ERRORS, 404: ErrorBody } as const;
const EMAIL_DETAIL =
  "Sets receipt_email_at and emits update_transaction. The message is in GET /_sandbox/emails (and relayed with --smtp).";
const SMS_DETAIL =
  "Sets receipt_sms_at and emits update_transaction. The messages are in GET /_sandbox/sms (SMS is never really sent).";

/** Receipts a merchant sends for a transaction (API key). */
export function receiptRoutes(deps: AppDeps) {
  const { receipts } = deps.services;
  return new Elysia({ prefix: "/transaction", tags: ["Transactions"] })
    .use(merchantAuth(deps))
    .put(
      "/:id/receipt/email",
      async ({ merchant, params, body }) =>
        receipts.emailTransaction(merchant.id, params.id, body?.email, body?.ccEmails ?? []),
      {
        params: IdParams,
        body: t.Optional(
          t.Object(
            {
              ccEmails: t.Optional(t.Array(Email, { maxItems: 10, description: "Copied (Cc) on the receipt" })),
              email: t.Optional(Email),
            },
            { description: "To `email` (sandbox), else the invoice's, else the customer's e-mail" },
          ),
        ),
        response: RECEIPT_RESPONSES,
        detail: { summary: "E-mail a receipt for a transaction", description: EMAIL_DETAIL },
      },
    )
    .put(
      "/:id/receipt-sms",
      async ({ merchant, params, body }) =>
        receipts.smsTransaction(merchant.id, params.id, body?.phone, body?.ccSMS ?? []),
      {
        params: IdParams,
        body: t.Optional(
          t.Object(
            {
              ccSMS: t.Optional(t.Array(Phone, { maxItems: 10, description: "More numbers, each texted the receipt" })),
              phone: t.Optional(Phone),
            },
            { description: "To `phone` (sandbox), else the customer's phone" },
          ),
        ),
        response: RECEIPT_RESPONSES,
        detail: { summary: "Text a receipt for a transaction", description: SMS_DETAIL },
      },
    )
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
        response: RECEIPT_RESPONSES,
        detail: {
          summary: "E-mail a receipt for a transaction (alias of PUT /transaction/{id}/receipt/email)",
          description: EMAIL_DETAIL,
        },
      },
    )
    .post(
      "/:id/receipt-sms",
      async ({ merchant, params, body }) => receipts.smsTransaction(merchant.id, params.id, body?.phone),
      {
        params: IdParams,
        body: t.Optional(t.Object({ phone: t.Optional(t.String({ description: "Default: the customer's phone" })) })),
        response: RECEIPT_RESPONSES,
        detail: {
          summary: "Text a receipt for a transaction (alias of PUT /transaction/{id}/receipt-sms)",
          description: SMS_DETAIL,
        },
      },
    );
}
