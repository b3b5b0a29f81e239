import { t } from "elysia";
import { Meta } from "./records";

export const ChargeBody = t.Object(
  {
    payment_method_id: t.String({ description: "The id tokenize returned" }),
    total: t.Union([t.Number(), t.String()], {
      description: "Amount in dollars: > 0, at most two decimals; a number or a numeric string",
      examples: [10.5, "10.50"],
    }),
    pre_auth: t.Optional(t.Boolean({ description: "Authorize only; capture later with /transaction/{id}/capture" })),
    meta: t.Optional(Meta),
    invoice_id: t.Optional(t.String({ description: "An invoice of the merchant this charge pays" })),
    idempotency_id: t.Optional(t.String({ description: "Same as the Idempotency-Key header" })),
  },
  { title: "ChargeRequest" },
);
export type ChargeBody = typeof ChargeBody.static;
