import type { Executor } from "../../storage/database";
import { lockInvoice, type InvoiceRow } from "../../storage/repositories/invoices";
import { transactionsOfInvoice, type TransactionRow } from "../../storage/repositories/transactions";
import type { ChargeablePaymentMethodRow } from "../../storage/repositories/payment-methods";
import { invalidState, notFound } from "../../domain/errors";
import type { CustomerRow } from "../customers";
import type { PaymentMethodService } from "../payment-methods";
import type { ChargeInput, TransactionService } from "../transactions";
import { SETTLED_STATUSES, type KnownInvoiceParts } from "./records";
import { parseJson } from "../../lib/json";

/** `surcharge`: the merchant's surcharge settings when the caller has its row (else the charge reads them). */
export interface PayOptions extends Pick<ChargeInput, "surcharge"> {
  /** The transaction's source: "webpayment" for pay() and the hosted page, "api" for merchant calls. */
  source: string;
  isMerchantPresent: boolean;
  /**
   * Whether the attempt's receipt goes out with the payment (the caller stores it in the same unit
   * of work): the invoice's sent_at is then set, the first time, by the payment's own UPDATE.
   */
  sendsReceipt?: (invoice: InvoiceRow, transaction: TransactionRow) => boolean;
}

/** What pay() charges: the invoice (locked), its balance, its transactions so far, and the payment method. */
export interface PaymentStart {
  invoice: InvoiceRow;
  balance: number;
  /** The invoice's top-level transactions, as transactionsOfInvoice orders them. */
  earlier: TransactionRow[];
  chargeable: { pm: ChargeablePaymentMethodRow; customer: CustomerRow };
}

/**
 * pay()'s reads before its charge: the invoice, locked for the rest of the unit of work
 * (lockInvoice), then, once the lock is held, its transactions so far and the payment method with
 * its customer. Sent together: one round trip on PostgreSQL. Every unit that adds or changes a
 * transaction of an invoice locks the invoice before it commits (InvoiceService.sync), so the
 * transactions read here stay the invoice's until this unit ends, its own charge aside. The
 * invoice's refusals (404, deleted, settled, nothing due) come first, as if the payment method
 * were read after them.
 */
export async function lockForPayment(
  ex: Executor,
  paymentMethods: PaymentMethodService,
  merchantId: string,
  id: string,
  paymentMethodId: string,
): Promise<PaymentStart> {
  const [locked, earlier, chargeable] = await Promise.allSettled([
    lockInvoice(ex, merchantId, id),
    transactionsOfInvoice(ex, merchantId, id),
    paymentMethods.chargeableWithCustomer(ex, merchantId, paymentMethodId),
  ]);
  const invoice = settledValue(locked);
  if (!invoice) throw notFound("Invoice");
  if (invoice.status === "DELETED" || invoice.deleted_at) throw invalidState("The invoice was deleted.");
  if (SETTLED_STATUSES.includes(invoice.status)) {
    throw invalidState(`The invoice is ${invoice.status} and cannot be paid again.`, { status: invoice.status });
  }
  const balance = invoice.total_cents - invoice.total_paid_cents;
  if (balance <= 0) throw invalidState("Nothing is due on this invoice.", { status: invoice.status });
  return { invoice, balance, earlier: settledValue(earlier), chargeable: settledValue(chargeable) };
}

/** A settled promise's value, or its rejection thrown. */
function settledValue<T>(outcome: PromiseSettledResult<T>): T {
  if (outcome.status === "rejected") throw outcome.reason;
  return outcome.value;
}

/**
 * The invoice's top-level transactions with a charge just made, in transactionsOfInvoice's order
 * (approved first, then by created_at, then by insertion: the charge is the newest row).
 */
export function withCharge(earlier: readonly TransactionRow[], charge: TransactionRow): TransactionRow[] {
  const at = earlier.findIndex(
    (t) => t.success < charge.success || (t.success === charge.success && t.created_at > charge.created_at),
  );
  return at < 0 ? [...earlier, charge] : [...earlier.slice(0, at), charge, ...earlier.slice(at)];
}

/**
 * pay()'s charge of the invoice's balance (TransactionService.charge, with the payment method
 * lockForPayment read), and what the invoice's sync then knows without reading: its transactions
 * with the charge, the charge's record, the charged customer.
 */
export async function chargeInvoice(
  ex: Executor,
  transactions: TransactionService,
  merchantId: string,
  { invoice, balance, earlier, chargeable }: PaymentStart,
  options: PayOptions & { receiptEmailAt: string | null },
): Promise<{ transaction: TransactionRow; pm: ChargeablePaymentMethodRow; known: KnownInvoiceParts }> {
  const { row, record, pm, customer } = await transactions.charge(ex, merchantId, {
    paymentMethodId: chargeable.pm.id,
    totalCents: balance,
    preAuth: false,
    meta: parseJson(invoice.meta, {}),
    invoiceId: invoice.id,
    scheduleId: invoice.schedule_id,
    source: options.source,
    isMerchantPresent: options.isMerchantPresent,
    receiptEmailAt: options.receiptEmailAt,
    invoiceSyncedByCaller: true,
    surcharge: options.surcharge,
    chargeable,
  });
  const known: KnownInvoiceParts = {
    transactions: withCharge(earlier, row),
    records: new Map([[row.id, record]]),
    customers: new Map([[customer.id, customer]]),
  };
  return { transaction: row, pm, known };
}
