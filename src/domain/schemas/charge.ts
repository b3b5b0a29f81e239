import { t } from "elysia";
import { MoneyInput } from "./records";

/**
 * `meta` as a request sends it: the parsed value itself. Elysia's schema normalization would
 * reshape a wrong type to fit an object schema ([1] → {"0": 1}, "s" → {"0": "s"}, 5 → {}), so
 * the route takes it unnormalized and checks it (validateMeta of packages/rules: an object, or a
 * 422 naming meta), and stores it exactly as given.
 */
export const MetaInput = t.Unknown({
  title: "MetaInput",
  description:
    "An object, free-form: reference, memo, subtotal, tax, lineItems and any other member, kept as given. Any other value is a 422 naming meta.",
  examples: [{ reference: "A-1", tax: 0.5 }],
});

export const ChargeBody = t.Object(
  {
    payment_method_id: t.String({ description: "The id tokenize returned" }),
    total: MoneyInput("Amount in dollars: > 0, at most two decimals; a number or a numeric string", [10.5, "10.50"]),
    pre_auth: t.Optional(t.Boolean({ description: "Authorize only; capture later with /transaction/{id}/capture" })),
    meta: t.Optional(MetaInput),
    invoice_id: t.Optional(t.String({ description: "An invoice of the merchant this charge pays" })),
    idempotency_id: t.Optional(t.String({ description: "Same as the Idempotency-Key header" })),
  },
  { title: "ChargeRequest" },
);
export type ChargeBody = typeof ChargeBody.static;

export const CreditBody = t.Object(
  {
    payment_method_id: t.String({
      description: "The card or bank account to send the money to (the id tokenize returned)",
    }),
    total: MoneyInput(
      "Amount in dollars: > 0, at most two decimals; a number or a numeric string. A merchant credits at most 10,000.00 a day.",
      [1, "1.00"],
    ),
    meta: t.Optional(MetaInput),
    idempotency_id: t.Optional(t.String({ description: "Same as the Idempotency-Key header" })),
  },
  {
    title: "CreditRequest",
    description: "meta is kept as given: the real service's members are subtotal, tax, memo, reference and lineItems.",
  },
);
export type CreditBody = typeof CreditBody.static;
