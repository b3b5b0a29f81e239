import { Elysia, t } from "elysia";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { AUTH_ERRORS, ErrorBody, PaymentMethodRecord } from "../models";

const IdParams = t.Object({ id: t.String() });

export function paymentMethodRoutes(deps: AppDeps) {
  const { paymentMethods } = deps.services;
  return new Elysia({ prefix: "/payment-method", tags: ["Payment methods"] })
    .use(merchantAuth(deps))
    .get("/:id", ({ merchant, params }) => paymentMethods.record(paymentMethods.get(merchant.id, params.id)), {
      params: IdParams,
      response: { 200: PaymentMethodRecord, ...AUTH_ERRORS, 404: ErrorBody },
      detail: { summary: "Get a payment method (brand, last four, expiry; never the number)" },
    })
    .delete("/:id", ({ merchant, params }) => paymentMethods.delete(merchant.id, params.id), {
      params: IdParams,
      response: { 200: PaymentMethodRecord, ...AUTH_ERRORS, 404: ErrorBody },
      detail: { summary: "Soft-delete a payment method: it can no longer be charged" },
    });
}
