import { Elysia, t } from "elysia";
import { runIdempotent } from "../../services/idempotency";
import { idempotencyKeyOf, merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { AUTH_ERRORS, ErrorBody, PaymentMethodRecord } from "../../domain/schemas/records";
import { PaymentMethodBody } from "../../domain/schemas/payment-methods";

const IdParams = t.Object({ id: t.String() });

export function paymentMethodRoutes(deps: AppDeps) {
  const { paymentMethods } = deps.services;
  return new Elysia({ prefix: "/payment-method", tags: ["Payment methods"] })
    .use(merchantAuth(deps))
    .post(
      "",
      async ({ merchant, body, headers, set }) => {
        const { idempotency_id: _key, ...input } = body;
        const result = await runIdempotent(
          deps.db,
          {
            merchantId: merchant.id,
            scope: "POST /payment-method",
            key: idempotencyKeyOf(headers, body),
            body: input,
            now: await deps.clock.timestamp(merchant.id),
          },
          // The same service as tokenize: the same rules, test cards and fingerprint-only storage.
          async (tx) => ({ status: 200, body: await paymentMethods.create(tx, merchant, input) }),
        );
        set.status = result.status;
        if (result.replayed) set.headers["idempotent-replayed"] = "true";
        return result.body as typeof PaymentMethodRecord.static;
      },
      {
        body: PaymentMethodBody,
        headers: t.Object({
          "idempotency-key": t.Optional(
            t.String({ description: "Repeat a request safely: same key + same body → same answer" }),
          ),
        }),
        response: { 200: PaymentMethodRecord, ...AUTH_ERRORS, 409: ErrorBody },
        detail: {
          summary: "Create a payment method server-side (what the mobile SDKs do with the merchant key)",
          description:
            "The card or bank fields of tokenize plus `customer_id` (from POST /customer), or the customer fields to create or match one. The same rules, test cards and no-number-stored guarantee as POST /webpayment/{token}/tokenize.",
        },
      },
    )
    .get("/:id", async ({ merchant, params }) => paymentMethods.show(merchant.id, params.id), {
      params: IdParams,
      response: { 200: PaymentMethodRecord, ...AUTH_ERRORS, 404: ErrorBody },
      detail: { summary: "Get a payment method (brand, last four, expiry; never the number)" },
    })
    .delete("/:id", async ({ merchant, params }) => paymentMethods.delete(merchant.id, params.id), {
      params: IdParams,
      response: { 200: PaymentMethodRecord, ...AUTH_ERRORS, 404: ErrorBody },
      detail: { summary: "Soft-delete a payment method: it can no longer be charged" },
    });
}
