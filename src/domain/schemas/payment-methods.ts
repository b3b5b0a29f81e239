import { t } from "elysia";
import { CUSTOMER_FIELDS_UNLESS_CUSTOMER, TokenizeBody } from "./webpayment";
import { PageQuery } from "./records";

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
  { title: "PaymentMethodRequest", ...CUSTOMER_FIELDS_UNLESS_CUSTOMER() },
);
export type PaymentMethodBody = typeof PaymentMethodBody.static;

const Refused = (why: string) => t.Optional(t.Never({ description: `Refused (422): ${why}` }));
const NEVER_THE_NUMBER = "the number (and what follows from it) never changes; tokenize a new payment method";

/** PUT /payment-method/{id}: what may change. A field left out keeps its value. */
export const PaymentMethodUpdateBody = t.Object(
  {
    person_name: t.Optional(t.String({ minLength: 1, maxLength: 50, description: "The card or account holder" })),
    nickname: t.Optional(t.String({ maxLength: 100 })),
    card_exp: t.Optional(
      t.String({ pattern: "^(0[1-9]|1[0-2])[0-9]{2}$", description: "A card's expiry: MMYY, not in the past" }),
    ),
    address_1: t.Optional(t.Union([t.String({ maxLength: 255 }), t.Null()])),
    address_zip: t.Optional(t.Union([t.String({ maxLength: 16 }), t.Null()])),
    bank_name: t.Optional(t.Union([t.String({ maxLength: 100 }), t.Null()], { description: "A bank account only" })),
    bank_type: t.Optional(
      t.Union([t.Literal("checking"), t.Literal("savings")], { description: "A bank account only" }),
    ),
    bank_holder_type: t.Optional(
      t.Union([t.Literal("personal"), t.Literal("business")], { description: "A bank account only" }),
    ),
    card_number: Refused(NEVER_THE_NUMBER),
    card_last_four: Refused(NEVER_THE_NUMBER),
    card_type: Refused(NEVER_THE_NUMBER),
    bank_account: Refused(NEVER_THE_NUMBER),
    bank_routing: Refused(NEVER_THE_NUMBER),
  },
  { title: "PaymentMethodUpdate" },
);

/** GET /payment-method: filters of the merchant's live payment methods. */
export const PaymentMethodQuery = t.Object({
  ...PageQuery,
  customer_id: t.Optional(t.String({ description: "Only this customer's" })),
  method: t.Optional(t.Union([t.Literal("card"), t.Literal("bank")])),
});
