import { Elysia, t } from "elysia";
import { tokenAuth } from "../auth";
import { IdempotencyHeaders, idempotency } from "../idempotency";
import type { AppDeps } from "../deps";
import { payInvoice } from "./invoices-pay";
import { settingsOf } from "../../services/merchants";
import { ErrorBody } from "../../domain/schemas/records";
import { InvoiceDeclinedBody, InvoiceRecord } from "../../domain/schemas/invoices";
import { LinkPayBody, LinkSaveBody } from "../../domain/schemas/payment-links";
import { PaymentMethodRecord } from "../../domain/schemas/records";

/**
 * A payment through a payment link's hosted page (/hosted/link/{id}), authenticated by the web
 * payments token like pay()'s steps (CORS open): the page tokenizes in the card frames, then
 * sends the payment method here. One unit of work: the link is locked and checked, an invoice is
 * made and paid (the same pay as POST /invoice/{id}/pay, receipt and all), and an approved
 * payment counts as a sale of the link (a recurring link's also starts the payer's schedule). A
 * tokenizeOnly link's page sends the payment method to …/save instead: kept, nothing charged.
 */
export function publicPaymentLinkRoutes(deps: AppDeps) {
  const { paymentLinks } = deps.services;
  return new Elysia({ prefix: "/webpayment/:token", tags: ["Web payments (public)"] })
    .use(tokenAuth(deps))
    .use(idempotency(deps))
    .post(
      "/payment-link/:id/pay",
      ({ merchant, params, body, idempotently }) =>
        idempotently(async (tx) => {
          const opened = await paymentLinks.openPayment(tx, merchant.id, params.id, body, settingsOf(merchant));
          const paid = await payInvoice(deps, {
            merchantId: merchant.id,
            merchant,
            invoiceId: opened.invoiceId,
            paymentMethodId: body.payment_method_id,
            source: "webpayment",
            isMerchantPresent: false,
          })(tx);
          if (paid.status === 200) await paymentLinks.completePayment(tx, merchant.id, opened);
          return paid;
        }),
      {
        idempotent: "POST /webpayment/payment-link/:id/pay",
        params: t.Object({ token: t.String(), id: t.String() }),
        body: LinkPayBody,
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
          summary: "Pay through a payment link (its hosted page's step after tokenize)",
          description:
            "Approved → 200 with the PAID invoice (meta.payment_link_id names the link), a receipt e-mail, and the link's uses, total_sales and total_transactions counted; a recurring link (link_meta.frequency or rrule) also starts an invoice schedule for the payer from this payment on (create_scheduled_invoice). Declined → 402 with the ATTEMPTED invoice; the link is not used up and nothing recurs. An expired, used-up or inactive link, or a tokenizeOnly one, is a 422 invalid_state with its reason; nothing is written.",
        },
      },
    )
    .post(
      "/payment-link/:id/save",
      ({ merchant, params, body, idempotently }) =>
        idempotently(async (tx) => ({
          status: 200,
          body: await paymentLinks.savePaymentMethod(tx, merchant.id, params.id, body.payment_method_id),
        })),
      {
        idempotent: "POST /webpayment/payment-link/:id/save",
        params: t.Object({ token: t.String(), id: t.String() }),
        body: LinkSaveBody,
        headers: IdempotencyHeaders,
        response: { 200: PaymentMethodRecord, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody },
        detail: {
          summary: "Save a payment method through a tokenizeOnly payment link (its hosted page's step after tokenize)",
          description:
            "The payment method the page tokenized is kept for its customer: 200 with it; no invoice, no charge. Counts as a use of the link (uses), not a sale. A link that charges (not tokenizeOnly), an expired, used-up or inactive one is a 422 invalid_state with its reason; nothing is written.",
        },
      },
    );
}
