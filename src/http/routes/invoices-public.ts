import { Elysia, t } from "elysia";
import { tokenAuth } from "../auth";
import { idempotency } from "../idempotency";
import type { AppDeps } from "../deps";
import { payInvoice, payScope } from "./invoices-pay";
import { settingsOf, surchargePolicyOf } from "../../services/merchants";
import { ErrorBody } from "../../domain/schemas/records";
import {
  InvoiceDeclinedBody,
  InvoiceRecord,
  PayInvoiceBody,
  PublicInvoiceBody,
  PublicInvoiceParams,
} from "../../domain/schemas/invoices";

const IdempotencyHeaders = t.Object({
  "idempotency-key": t.Optional(t.String({ description: "pay() sends one key per call on every step" })),
});

/**
 * pay()'s steps 3 and 4, authenticated by the web payments token in the path (CORS open).
 * The hosted payment page of an existing invoice (/hosted/pay/{id}) uses the same pay route with
 * that invoice's id, so a payment from the page and from pay() behave alike.
 */
export function publicInvoiceRoutes(deps: AppDeps) {
  const { invoices } = deps.services;
  return new Elysia({ prefix: "/webpayment/:token", tags: ["Web payments (public)"] })
    .use(tokenAuth(deps))
    .use(idempotency(deps))
    .post(
      "/invoice",
      ({ merchant, body, idempotently }) =>
        idempotently(async (tx) => {
          const { record } = await invoices.createPublic(tx, merchant.id, body, settingsOf(merchant), deps.publicUrl);
          return { status: 200, body: record };
        }),
      {
        idempotent: "POST /webpayment/invoice",
        params: t.Object({ token: t.String() }),
        body: PublicInvoiceBody,
        headers: IdempotencyHeaders,
        response: { 200: InvoiceRecord, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody },
        detail: {
          summary: "Create the invoice pay() pays (step 3)",
          description:
            "A DRAFT invoice for `total`, for the payment method's customer (or `customer_id`). The same rules as pay()'s client-side validation, minus card and bank fields.",
        },
      },
    )
    .post(
      "/invoice/:id/pay",
      ({ merchant, params, body, idempotently }) =>
        idempotently(
          payInvoice(deps, {
            merchantId: merchant.id,
            merchant,
            invoiceId: params.id,
            paymentMethodId: body.payment_method_id,
            surcharge: surchargePolicyOf(merchant),
            source: "webpayment",
            isMerchantPresent: false,
          }),
        ),
      {
        idempotent: payScope("POST /webpayment/invoice/pay"),
        params: PublicInvoiceParams,
        body: PayInvoiceBody,
        headers: IdempotencyHeaders,
        response: {
          200: InvoiceRecord,
          401: ErrorBody,
          402: InvoiceDeclinedBody,
          404: ErrorBody,
          409: ErrorBody,
          422: ErrorBody,
        },
        detail: {
          summary: "Pay an invoice in full (step 4)",
          description:
            "Charges the payment method for the balance. Approved → 200 with the PAID invoice (the charge is child_transactions[0]). Declined → 402 `{message, code:'payment_declined', invoice}` with the invoice ATTEMPTED. A receipt e-mail goes out either way when send_receipt is true.",
        },
      },
    );
}
