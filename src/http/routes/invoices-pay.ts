import { runIdempotent } from "../../services/idempotency";
import { idempotencyKeyOf } from "../auth";
import type { AppDeps } from "../deps";
import type { ReceiptService } from "../../services/mail/receipts";
import type { InvoiceRecord } from "../../domain/schemas/invoices";

export interface PayRequest {
  merchantId: string;
  invoiceId: string;
  paymentMethodId: string;
  headers: Record<string, string | undefined>;
  /** Idempotency scope: the merchant route and the public pay() route keep separate keys. */
  scope: string;
  source: "api" | "webpayment";
  isMerchantPresent: boolean;
}

/**
 * POST /invoice/{id}/pay and its public twin: charges the balance once per Idempotency-Key,
 * answers 200 with the invoice or 402 with the declined invoice, and sends the attempt's receipt
 * after the commit (a replay sends none; a mail failure fails nothing).
 */
export async function payInvoice(
  deps: AppDeps,
  receipts: ReceiptService,
  request: PayRequest,
): Promise<{ status: number; body: typeof InvoiceRecord.static; replayed: boolean }> {
  const { invoices } = deps.services;
  const result = await runIdempotent(
    deps.db,
    {
      merchantId: request.merchantId,
      scope: request.scope,
      key: idempotencyKeyOf(request.headers, undefined),
      // The invoice id is part of the request: the same key for another invoice is a conflict.
      body: { invoice_id: request.invoiceId, payment_method_id: request.paymentMethodId },
      now: await deps.clock.timestamp(request.merchantId),
    },
    async (tx) => {
      const { invoice, transaction } = await invoices.pay(
        tx,
        request.merchantId,
        request.invoiceId,
        request.paymentMethodId,
        { source: request.source, isMerchantPresent: request.isMerchantPresent },
      );
      const record = await invoices.record(tx, invoice);
      return transaction.success === 1
        ? { status: 200, body: record }
        : {
            status: 402,
            body: { message: transaction.message ?? "Declined.", code: "payment_declined", invoice: record },
          };
    },
  );
  if (!result.replayed) await receipts.afterInvoicePayment(request.merchantId, request.invoiceId);
  return { ...result, body: result.body as typeof InvoiceRecord.static };
}
