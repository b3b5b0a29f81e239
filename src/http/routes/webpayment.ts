import { Elysia, t } from "elysia";
import { tokenAuth } from "../auth";
import { idempotency } from "../idempotency";
import type { AppDeps } from "../deps";
import { ErrorBody, PaymentMethodRecord } from "../../domain/schemas/records";
import { TokenizeBody, TokenParams } from "../../domain/schemas/webpayment";

/** Customer members the public answer keeps whatever was sent: identity and timestamps, not personal data. */
const CUSTOMER_META = new Set([
  "id",
  "created_at",
  "updated_at",
  "deleted_at",
  "allow_invoice_credit_card_payments",
  "gravatar",
]);

/**
 * The payment method as the public token may see it: its customer carries only the fields the
 * caller sent (person_name counts for the names it fills). The token is public — anyone can send
 * someone's customer_id, or their e-mail and name that a tokenize matches — so the stored
 * customer's other fields (phone, address, notes, …) must not come back. The merchant's own
 * routes (API key) return the full record.
 */
export function withSentCustomerFields<T extends { customer: object | null }>(
  record: T,
  sent: Record<string, unknown>,
): T {
  if (!record.customer) return record;
  const names = typeof sent.person_name === "string" && sent.person_name.trim() !== "";
  const customer: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record.customer)) {
    const keep =
      CUSTOMER_META.has(key) ||
      (typeof sent[key] === "string" && sent[key] !== "") ||
      (names && (key === "firstname" || key === "lastname"));
    customer[key] = keep ? value : typeof value === "string" ? "" : typeof value === "object" ? null : value;
  }
  return { ...record, customer };
}

/**
 * Public routes, authenticated by the web payments token in the path: what a browser or a
 * mobile app may call. CORS is open for them (see src/http/pipeline/cors.ts).
 */
export function webpaymentRoutes(deps: AppDeps) {
  const { paymentMethods } = deps.services;
  return new Elysia({ prefix: "/webpayment/:token", tags: ["Web payments (public)"] })
    .use(tokenAuth(deps))
    .use(idempotency(deps))
    .post(
      "/tokenize",
      ({ merchant, body, idempotently }) =>
        idempotently(async (tx) => ({
          status: 200,
          body: withSentCustomerFields(await paymentMethods.create(tx, merchant, body), body),
        })),
      {
        idempotent: "POST /webpayment/tokenize",
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
