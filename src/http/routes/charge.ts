import { Elysia, t } from "elysia";
import { parseTotalCents, validateMeta } from "../../../packages/rules/validation";
import { merchantAuth } from "../auth";
import { IdempotencyHeaders, idempotency } from "../idempotency";
import type { AppDeps } from "../deps";
import { ApiError, assertValid } from "../../domain/errors";
import { AUTH_ERRORS, DeclinedBody, ErrorBody, TransactionRecord } from "../../domain/schemas/records";
import { ChargeBody, CreditBody } from "../../domain/schemas/charge";
import { declineFields } from "../../domain/gateway";
import { surchargePolicyOf } from "../../services/merchants";

/** An approved transaction's 200, a declined one's 402 with the failed transaction (kept). */
function answer(row: { success: number }, record: typeof TransactionRecord.static) {
  return row.success
    ? { status: 200, body: record }
    : {
        status: 402,
        body: {
          message: record.message ?? "Declined.",
          code: "payment_declined",
          ...declineFields(record.decline_code),
          transaction: record,
        },
      };
}

/** A charge's or a credit's total in cents and its meta, or a 422 naming what is wrong with either. */
function moneyOf(body: { total: unknown; meta?: unknown }): { totalCents: number; meta: Record<string, unknown> } {
  const total = parseTotalCents(body.total);
  // meta as parsed (MetaInput is not normalized): an object is stored exactly as sent.
  const meta = body.meta ?? {};
  const errors = validateMeta(meta);
  if ("error" in total) errors.total = [total.error];
  assertValid(errors);
  return { totalCents: "cents" in total ? total.cents : 0, meta: meta as Record<string, unknown> };
}

/** POST /charge and POST /credit: money from, and money to, a payment method. */
export function chargeRoutes(deps: AppDeps) {
  const { transactions, invoices } = deps.services;
  return new Elysia({ tags: ["Transactions"] })
    .use(merchantAuth(deps))
    .use(idempotency(deps))
    .post(
      "/charge",
      ({ merchant, body, idempotently }) =>
        idempotently(async (tx) => {
          const { totalCents, meta } = moneyOf(body);
          const invoice =
            body.invoice_id === undefined ? undefined : await invoices.findRow(tx, merchant.id, body.invoice_id);
          if (body.invoice_id !== undefined && !invoice) {
            throw new ApiError("not_found", "Invoice not found.", { param: "invoice_id" });
          }
          const { row, record } = await transactions.charge(tx, merchant.id, {
            paymentMethodId: body.payment_method_id,
            totalCents,
            preAuth: body.pre_auth ?? false,
            meta,
            invoiceId: body.invoice_id ?? null,
            // A charge of a schedule's invoice carries the schedule, as the occurrence's own does.
            scheduleId: invoice?.schedule_id ?? null,
            source: "api",
            isMerchantPresent: true,
            // From the row authentication read: a surcharge costs the charge no query.
            surcharge: surchargePolicyOf(merchant),
          });
          return answer(row, record);
        }),
      {
        idempotent: "POST /charge",
        body: ChargeBody,
        headers: IdempotencyHeaders,
        response: { 200: TransactionRecord, 402: DeclinedBody, ...AUTH_ERRORS, 404: ErrorBody, 409: ErrorBody },
        detail: {
          summary: "Charge a payment method",
          description:
            "Approved → 200 with the transaction. Declined → 402 with the failed transaction, which is kept. `pre_auth: true` authorizes only.",
        },
      },
    )
    .post(
      "/credit",
      ({ merchant, body, idempotently }) =>
        idempotently(async (tx) => {
          const { totalCents, meta } = moneyOf(body);
          const { row, record } = await transactions.credit(tx, merchant.id, {
            paymentMethodId: body.payment_method_id,
            totalCents,
            meta,
          });
          return answer(row, record);
        }),
      {
        idempotent: "POST /credit",
        body: CreditBody,
        headers: IdempotencyHeaders,
        response: { 200: TransactionRecord, 402: DeclinedBody, ...AUTH_ERRORS, 404: ErrorBody, 409: ErrorBody },
        detail: {
          summary: "Credit a payment method: send money with no prior charge",
          description:
            "A `credit` transaction: approved → 200, declined (a declining test card or account) → 402 with the failed credit, which is kept. The total is > 0, the payment method not deleted (a card not expired), and a merchant credits at most 10,000.00 a day. A credit is never voided or refunded; it settles in the next batch of its method as money out and lowers that deposit. Emits create_transaction.",
        },
      },
    );
}
