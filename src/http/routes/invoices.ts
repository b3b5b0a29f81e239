import { Elysia, t } from "elysia";
import { settingsOf, surchargePolicyOf } from "../../services/merchants";
import { listPage } from "../page";
import { merchantAuth } from "../auth";
import { IdempotencyHeaders, idempotency } from "../idempotency";
import type { AppDeps } from "../deps";
import { payInvoice, payScope } from "./invoices-pay";
import { AUTH_ERRORS, ErrorBody, PageOf, PageQuery } from "../../domain/schemas/records";
import {
  InvoiceBody,
  InvoiceDeclinedBody,
  InvoiceIdParams,
  InvoiceListQuery,
  InvoiceRecord,
  InvoiceUpdateBody,
  PayInvoiceBody,
} from "../../domain/schemas/invoices";

/** The merchant's invoices (API key). */
export function invoiceRoutes(deps: AppDeps) {
  const { invoices, invoiceMail } = deps.services;
  return new Elysia({ prefix: "/invoice", tags: ["Invoices"] })
    .use(merchantAuth(deps))
    .use(idempotency(deps))
    .get(
      "",
      async ({ merchant, query, request }) =>
        listPage(query, request, (page) =>
          invoices.list(
            merchant.id,
            { status: query.status, customerId: query.customer_id, startDate: query.startDate, endDate: query.endDate },
            page,
          ),
        ),
      {
        query: t.Object({ ...PageQuery, ...InvoiceListQuery }),
        response: { 200: PageOf(InvoiceRecord), ...AUTH_ERRORS },
        detail: { summary: "List invoices (newest first)" },
      },
    )
    .post(
      "",
      ({ merchant, body, idempotently }) =>
        idempotently(async (tx) => ({
          status: 200,
          body: (
            await invoices.create(
              tx,
              merchant.id,
              body,
              deps.publicUrl,
              // The merchant's custom fields apply with Advanced Customization on.
              merchant.advanced_customization === 1 ? settingsOf(merchant).custom_fields : [],
            )
          ).record,
        })),
      {
        idempotent: "POST /invoice",
        body: InvoiceBody,
        headers: IdempotencyHeaders,
        response: { 200: InvoiceRecord, ...AUTH_ERRORS, 404: ErrorBody, 409: ErrorBody },
        detail: { summary: "Create an invoice for a customer (status DRAFT)" },
      },
    )
    .get("/:id", async ({ merchant, params }) => invoices.get(merchant.id, params.id), {
      params: InvoiceIdParams,
      response: { 200: InvoiceRecord, ...AUTH_ERRORS, 404: ErrorBody },
      detail: { summary: "Get an invoice with its customer and transactions" },
    })
    .put(
      "/:id",
      async ({ merchant, params, body }) => {
        const { customer_id: _customer, ...changes } = body;
        return invoices.update(merchant.id, params.id, changes);
      },
      {
        params: InvoiceIdParams,
        body: InvoiceUpdateBody,
        response: { 200: InvoiceRecord, ...AUTH_ERRORS, 404: ErrorBody },
        detail: {
          summary: "Update an invoice: what may change depends on its status",
          description:
            "Unpaid (DRAFT, ATTEMPTED): total, meta, url, send_receipt, email, payment_method_id, is_partial_payment_enabled, due_at. Partly paid: the same but payment_method_id; the total never below what was paid. PAID, PARTIALLY_REFUNDED, REFUNDED, VOIDED: meta only. DELETED: nothing. A field the status does not let change is a 422 invalid_state naming it. Emits update_invoice.",
        },
      },
    )
    .put(
      "/:id/send/email",
      async ({ merchant, params, body }) => invoiceMail.email(merchant.id, params.id, body?.ccEmails),
      {
        params: InvoiceIdParams,
        body: t.Optional(
          t.Object({
            ccEmails: t.Optional(
              t.Array(t.String({ format: "email", maxLength: 254 }), { maxItems: 10, description: "Copied (Cc)" }),
            ),
          }),
        ),
        response: { 200: InvoiceRecord, ...AUTH_ERRORS, 404: ErrorBody },
        detail: {
          summary: "E-mail an invoice with its hosted payment link",
          description:
            "To the invoice's e-mail, else its customer's. The message (kind `invoice`) is in GET /_sandbox/emails; sent_at is set the first time; emits send_invoice. An invoice with nothing due (PAID, REFUNDED, …, DELETED) is a 422 invalid_state.",
        },
      },
    )
    .put(
      "/:id/send/sms",
      async ({ merchant, params, body }) =>
        invoiceMail.sms(merchant.id, params.id, { phone: body?.phone, message: body?.message }),
      {
        params: InvoiceIdParams,
        body: t.Optional(
          t.Object({
            phone: t.Optional(t.String({ minLength: 10, maxLength: 32, description: "Default: the customer's phone" })),
            message: t.Optional(t.String({ maxLength: 300, description: "Text before the pay link" })),
          }),
        ),
        response: { 200: InvoiceRecord, ...AUTH_ERRORS, 404: ErrorBody },
        detail: {
          summary: "Text an invoice's hosted payment link",
          description:
            "The text is in GET /_sandbox/sms (never really sent); sent_at is set the first time; emits send_invoice. An invoice with nothing due is a 422 invalid_state.",
        },
      },
    )
    .delete("/:id", async ({ merchant, params }) => invoices.delete(merchant.id, params.id), {
      params: InvoiceIdParams,
      response: { 200: InvoiceRecord, ...AUTH_ERRORS, 404: ErrorBody },
      detail: {
        summary: "Delete an unpaid invoice (soft: status DELETED, deleted_at set; still readable)",
        description: "A paid invoice cannot be deleted (422 invalid_state): refund or void its payment.",
      },
    })
    .post(
      "/:id/pay",
      ({ merchant, params, body, idempotently }) =>
        idempotently(
          payInvoice(deps, {
            merchantId: merchant.id,
            merchant,
            invoiceId: params.id,
            paymentMethodId: body.payment_method_id,
            surcharge: surchargePolicyOf(merchant),
            source: "api",
            isMerchantPresent: true,
          }),
        ),
      {
        idempotent: payScope("POST /invoice/pay"),
        params: InvoiceIdParams,
        body: PayInvoiceBody,
        headers: IdempotencyHeaders,
        response: { 200: InvoiceRecord, 402: InvoiceDeclinedBody, ...AUTH_ERRORS, 404: ErrorBody, 409: ErrorBody },
        detail: {
          summary: "Pay an invoice's balance with a payment method",
          description:
            "Approved → 200 with the PAID invoice. Declined → 402 `{message, code:'payment_declined', invoice}` with the invoice ATTEMPTED.",
        },
      },
    );
}
