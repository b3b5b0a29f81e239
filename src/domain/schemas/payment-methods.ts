import { t } from "elysia";
import { TokenizeBody } from "./webpayment";

/**
 * POST /payment-method: what the current mobile SDKs send with the merchant key after POST
 * /customer — the card or bank fields of tokenize plus `customer_id`. Other members they send
 * (merchant_id, tokenize, nickname, …) are accepted and ignored: the key decides the merchant.
 */
export const PaymentMethodBody = t.Composite(
  [
    TokenizeBody,
    t.Object({
      idempotency_id: t.Optional(t.String({ description: "Same as the Idempotency-Key header" })),
    }),
  ],
  { title: "PaymentMethodRequest" },
);
export type PaymentMethodBody = typeof PaymentMethodBody.static;
