import { Elysia, t } from "elysia";
import { merchantAuth } from "../auth";
import { IdempotencyHeaders, idempotency } from "../idempotency";
import type { AppDeps } from "../deps";
import { AUTH_ERRORS, ErrorBody, PageOf, PaymentMethodRecord } from "../../domain/schemas/records";
import { PaymentMethodBody, PaymentMethodQuery, PaymentMethodUpdateBody } from "../../domain/schemas/payment-methods";
import { listPage } from "../page";

const IdParams = t.Object({ id: t.String() });

/** The payment method's fields: the key a body may carry is not one of them. */
function withoutKey({ idempotency_id: _key, ...input }: PaymentMethodBody): Omit<PaymentMethodBody, "idempotency_id"> {
  return input;
}

/** A repeat must send the same fields; whether the key came as a header or in the body does not matter. */
const CREATE = {
  scope: "POST /payment-method",
  request: ({ body }: { body: unknown }) => withoutKey(body as PaymentMethodBody),
};

export function paymentMethodRoutes(deps: AppDeps) {
  const { paymentMethods } = deps.services;
  return new Elysia({ prefix: "/payment-method", tags: ["Payment methods"] })
    .use(merchantAuth(deps))
    .use(idempotency(deps))
    .post(
      "",
      ({ merchant, body, idempotently }) =>
        // The same service as tokenize: the same rules, test cards and fingerprint-only storage.
        idempotently(async (tx) => ({
          status: 200,
          body: await paymentMethods.create(tx, merchant, withoutKey(body)),
        })),
      {
        idempotent: CREATE,
        body: PaymentMethodBody,
        headers: IdempotencyHeaders,
        response: { 200: PaymentMethodRecord, ...AUTH_ERRORS, 409: ErrorBody },
        detail: {
          summary: "Create a payment method server-side (what the mobile SDKs do with the merchant key)",
          description:
            "The card or bank fields of tokenize plus `customer_id` (from POST /customer), or the customer fields to create or match one. The same rules, test cards and no-number-stored guarantee as POST /webpayment/{token}/tokenize.",
        },
      },
    )
    .get(
      "",
      ({ merchant, query, request }) =>
        listPage(query, request, (page) =>
          paymentMethods.list(merchant.id, { customerId: query.customer_id, method: query.method }, page),
        ),
      {
        query: PaymentMethodQuery,
        response: { 200: PageOf(PaymentMethodRecord), ...AUTH_ERRORS },
        detail: {
          summary: "List the merchant's payment methods, newest first",
          description:
            "Live ones only (a deleted payment method is read by id). Filters: customer_id, method; page and per_page.",
        },
      },
    )
    .put(
      "/:id",
      async ({ merchant, params, body }) => {
        const {
          card_number: _n,
          card_last_four: _l,
          card_type: _t,
          bank_account: _a,
          bank_routing: _r,
          ...changes
        } = body;
        return paymentMethods.update(merchant.id, params.id, changes);
      },
      {
        params: IdParams,
        body: PaymentMethodUpdateBody,
        response: { 200: PaymentMethodRecord, ...AUTH_ERRORS, 404: ErrorBody },
        detail: {
          summary:
            "Update a payment method: holder, nickname, address, a card's expiry, a bank account's name and types",
          description:
            "Never the number: the sandbox never kept it. A deleted payment method is a 422 `invalid_state`.",
        },
      },
    )
    .get("/:id", async ({ merchant, params }) => paymentMethods.get(merchant.id, params.id), {
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
