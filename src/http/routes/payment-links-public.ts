import { Elysia, t } from "elysia";
import { tokenAuth } from "../auth";
import { IdempotencyHeaders, idempotency } from "../idempotency";
import type { AppDeps } from "../deps";
import { payInvoice } from "./invoices-pay";
import { settingsOf } from "../../services/merchants";
import { ErrorBody } from "../../domain/schemas/records";
import { InvoiceDeclinedBody, InvoiceRecord } from "../../domain/schemas/invoices";
import { LinkPayBody } from "../../domain/schemas/payment-links";

/**
 * A payment through a payment link's hosted page (/hosted/link/{id}), authenticated by the web
 * payments token like pay()'s steps (CORS open): the page tokenizes in the card frames, then
 * sends the payment method here. One unit of work: the link is locked and checked, an invoice is
 * made and paid (the same pay as POST /invoice/{id}/pay, receipt and all), and an approved
 * payment counts as a sale of the link.
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
            invoiceId: opened.invoiceId,
            paymentMethodId: body.payment_method_id,
            source: "webpayment",
            isMerchantPresent: false,
          })(tx);
          if (paid.status === 200) await paymentLinks.recordSale(tx, merchant.id, opened.linkId, opened.totalCents);
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
            "Approved → 200 with the PAID invoice (meta.payment_link_id names the link), a receipt e-mail, and the link's uses, total_sales and total_transactions counted. Declined → 402 with the ATTEMPTED invoice; the link is not used up. An expired, used-up or inactive link is a 422 invalid_state with its reason; nothing is written.",
        },
      },
    );
}
