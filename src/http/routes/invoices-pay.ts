import type { AppDeps } from "../deps";
import type { Executor } from "../../services";
import type { PayInvoiceBody } from "../../domain/schemas/invoices";
import { declineFields } from "../../domain/gateway";
import type { SurchargePolicy } from "../../domain/surcharge";
import type { MerchantRow } from "../../services/merchants";

export interface PayRequest {
  merchantId: string;
  invoiceId: string;
  paymentMethodId: string;
  source: "api" | "webpayment";
  isMerchantPresent: boolean;
  /** The authenticated merchant's surcharge settings (its row is already read); omitted, the charge reads them. */
  surcharge?: SurchargePolicy;
  /** The authenticated merchant's row, for the receipt. */
  merchant: MerchantRow;
}

/**
 * What a pay key is bound to: the invoice id is part of the request, so the same key for another
 * invoice is a conflict. Each pay route has its own scope: the merchant route and the public pay()
 * route keep separate keys.
 */
export function payScope(scope: string) {
  return {
    scope,
    request: ({ body, params }: { body: unknown; params: Record<string, string> }) => ({
      invoice_id: params.id,
      payment_method_id: (body as typeof PayInvoiceBody.static).payment_method_id,
    }),
  };
}

/**
 * POST /invoice/{id}/pay and its public twin, as the unit of work of an idempotent route: charges
 * the balance, answers 200 with the invoice or 402 with the declined invoice, and stores the
 * attempt's receipt with the payment, relayed after the commit (a replay sends none; a relay
 * failure fails nothing). An
 * approved payment of an invoice with `meta.update_inventory` takes its catalog items out of stock
 * (not enough stock undoes the payment: a 422).
 */
export function payInvoice(deps: AppDeps, request: PayRequest) {
  const { invoices, receipts, items } = deps.services;
  return async (tx: Executor) => {
    const {
      invoice,
      transaction,
      paymentMethod,
      record: built,
    } = await invoices.pay(tx, request.merchantId, request.invoiceId, request.paymentMethodId, {
      source: request.source,
      isMerchantPresent: request.isMerchantPresent,
      surcharge: request.surcharge,
      sendsReceipt: (locked, attempt) => receipts.sendsInvoiceReceipt(request.merchant, locked, attempt),
    });
    const record = built ?? (await invoices.toRecord(tx, invoice));
    // An approved payment of an invoice with meta.update_inventory takes its items out of stock.
    if (transaction.success === 1) await items.takeStock(tx, request.merchantId, record.meta);
    // The receipt shows the attempt as this unit of work leaves it, with the payment method it
    // charged and the merchant the request authenticated: nothing to read again. Stored with the
    // payment (one statement on PostgreSQL), relayed once it committed.
    const receipt = await receipts.storeInvoiceReceipt(tx, request.merchant, { invoice, transaction, paymentMethod });
    const afterCommit = async () => receipts.relayInvoiceReceipt(receipt);
    return transaction.success === 1
      ? { status: 200, body: record, afterCommit }
      : {
          status: 402,
          body: {
            message: transaction.message ?? "Declined.",
            code: "payment_declined",
            ...declineFields(transaction.decline_code),
            invoice: record,
          },
          afterCommit,
        };
  };
}
