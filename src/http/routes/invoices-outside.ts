import { Elysia, t } from "elysia";
import { parseTotalCents } from "../../../packages/rules/validation";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { ValidationFailed } from "../../domain/errors";
import { AUTH_ERRORS, ErrorBody } from "../../domain/schemas/records";
import { InvoiceRecord } from "../../domain/schemas/invoices";

const Text = (description: string, maxLength = 100) => t.Optional(t.String({ minLength: 1, maxLength, description }));

/** The real service's query parameters of POST /invoice/{id}/pay/{method} (the JSON body may carry them too). */
const OUTSIDE_PAYMENT_FIELDS = {
  apply_balance: t.Optional(
    t.String({
      pattern: "^[0-9]{1,8}(\\.[0-9]{1,2})?$",
      description:
        "Dollars to apply, > 0 (default: the balance due). Less than the balance due only when the invoice takes partial payments.",
      examples: ["10.00"],
    }),
  ),
  email_receipt: t.Optional(
    t.UnionEnum(["0", "1", "true", "false"], {
      description:
        "Accepted; the sandbox e-mails no receipt for a cash or check payment (receipts are of transactions)",
    }),
  ),
  check_number: Text("The check's number (method check)", 50),
  driver_license: Text("The payer's driver's license number", 50),
  driver_license_state: Text("The state that issued it", 50),
  payment_phone: Text("The payer's phone", 32),
  payment_note: Text("A note kept with the payment", 500),
};
export const OutsidePaymentQuery = t.Object(OUTSIDE_PAYMENT_FIELDS);

/** POST /invoice/{id}/pay/{method}: an invoice paid outside the sandbox, in cash or by check. */
export function outsidePaymentRoutes(deps: AppDeps) {
  const { invoices } = deps.services;
  return new Elysia({ prefix: "/invoice", tags: ["Invoices"] }).use(merchantAuth(deps)).post(
    "/:id/pay/:method",
    async ({ merchant, params, query: inQuery, body }) => {
      // The real service reads the query; a JSON body may carry the same fields (the query wins).
      const query = { ...body, ...inQuery };
      let applyCents: number | undefined;
      if (query.apply_balance !== undefined) {
        const parsed = parseTotalCents(query.apply_balance);
        if ("error" in parsed) throw new ValidationFailed({ apply_balance: [parsed.error] });
        applyCents = parsed.cents;
      }
      return invoices.payOutside(merchant.id, params.id, {
        method: params.method,
        applyCents,
        checkNumber: query.check_number,
        driverLicense: query.driver_license,
        driverLicenseState: query.driver_license_state,
        paymentPhone: query.payment_phone,
        paymentNote: query.payment_note,
      });
    },
    {
      params: t.Object({
        id: t.String(),
        method: t.UnionEnum(["cash", "check"], { description: "How the customer paid" }),
      }),
      query: OutsidePaymentQuery,
      body: t.Optional(t.Object(OUTSIDE_PAYMENT_FIELDS, { title: "OutsidePaymentRequest" })),
      response: { 200: InvoiceRecord, ...AUTH_ERRORS, 404: ErrorBody },
      detail: {
        summary: "Mark an invoice paid in cash or by check",
        description:
          "Nothing is charged: the payment is recorded (shown on the dashboard's invoice page) and counts toward total_paid; the balance due makes the invoice PAID. Answers the invoice and emits update_invoice. A deleted invoice, or one with nothing due, is a 422 invalid_state.",
      },
    },
  );
}
