import { Elysia, t } from "elysia";
import { runIdempotent } from "../../lib/idempotency";
import { idempotencyKeyOf, tokenAuth } from "../auth";
import type { AppDeps } from "../deps";
import { ErrorBody, PaymentMethodRecord } from "../models";
import { TokenizeBody, TokenParams } from "./model";

/**
 * Public routes, authenticated by the web payments token in the path: what a browser or a
 * mobile app may call. CORS is open for them (see app.ts).
 */
export function webpaymentRoutes(deps: AppDeps) {
  const { paymentMethods } = deps.services;
  return new Elysia({ prefix: "/webpayment/:token", tags: ["Web payments (public)"] }).use(tokenAuth(deps)).post(
    "/tokenize",
    ({ merchant, body, headers, set }) => {
      const result = runIdempotent(
        deps.db,
        {
          merchantId: merchant.id,
          scope: "POST /webpayment/tokenize",
          key: idempotencyKeyOf(headers, undefined),
          body,
          now: deps.clock.timestamp(merchant.id),
        },
        () => ({ status: 200, body: paymentMethods.record(paymentMethods.tokenize(merchant, body)) }),
      );
      set.status = result.status;
      if (result.replayed) set.headers["idempotent-replayed"] = "true";
      return result.body as typeof PaymentMethodRecord.static;
    },
    {
      params: TokenParams,
      body: TokenizeBody,
      response: { 200: PaymentMethodRecord, 401: ErrorBody, 409: ErrorBody, 422: ErrorBody },
      detail: {
        summary: "Tokenize a card or bank account",
        description:
          "Creates a payment method for a new, matched (same email + first + last name) or given customer. Only test cards and the test bank account are accepted; the number and CVV are never stored.",
      },
    },
  );
}
