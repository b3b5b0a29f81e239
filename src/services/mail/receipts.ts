/**
 * Receipts by e-mail and SMS: the automatic one after every pay() attempt (send_receipt), and
 * the ones a merchant asks for with POST /transaction/{id}/receipt-email and /receipt-sms.
 * ReceiptService's verbs: `storeInvoiceReceipt` (and `relayInvoiceReceipt`), `emailTransaction`,
 * `smsTransaction`, and `view` (what a receipt shows, which ./receipt-templates.ts renders as HTML,
 * text and SMS).
 */
import { parseJson } from "../../lib/json";
import { safeHref } from "../../lib/html";
import type { NewEmail, OutgoingEmail } from "./mailer";
import { SENDER_ADDRESS } from "./mailer";
import {
  lineItemsOf,
  methodLabel,
  moneyText,
  renderHtml,
  renderSms,
  renderText,
  subjectOf,
  type ReceiptView,
} from "./receipt-templates";
import { MESSAGES } from "../../../packages/rules/messages";
import { validateCustomerFields } from "../../../packages/rules/validation";
import type { Database, Executor } from "../../storage/database";
import { stampReceipt } from "../../storage/repositories/transactions";
import type { CustomerService } from "../customers";
import type { InvoiceService } from "../invoices";
import type { MerchantService } from "../merchants";
import type { PaymentMethodRow, PaymentMethodService } from "../payment-methods";
import type { TransactionService } from "../transactions";
import type { Mailer } from "./mailer";
import type { Logger } from "../../lib/logger";
import type { SandboxClock } from "../clock";
import type { EventBus } from "../../domain/events";
import { ValidationFailed } from "../../domain/errors";
import { defaultInvoiceUrl, receiptAddress, SETTLED_STATUSES, type InvoiceRow } from "../invoices";
import { invoiceCustomFields } from "../merchant-options";
import { settingsOf, type MerchantRow } from "../merchants";
import type { TransactionRow } from "../transactions";

const HEADINGS: Record<string, string> = {
  charge: "Payment received",
  capture: "Payment received",
  pre_auth: "Payment authorized",
  refund: "Refund issued",
  void: "Payment voided",
};

/** The hosted payment page of an invoice. */
export function hostedPayUrl(publicUrl: string, invoiceId: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/hosted/pay/${invoiceId}`;
}

/** What the receipts need: the records, the outbox, and the address pay links point at. */
export interface ReceiptDeps {
  db: Database;
  services: {
    merchants: MerchantService;
    customers: CustomerService;
    paymentMethods: PaymentMethodService;
    transactions: TransactionService;
    invoices: InvoiceService;
  };
  mailer: Mailer;
  /** The base URL pay links point at, as it is now (it is known once the server listens). */
  publicUrl: () => string;
  log: Logger;
  clock: SandboxClock;
  events: EventBus<Executor>;
}

export class ReceiptService {
  constructor(private readonly deps: ReceiptDeps) {}

  private async merchant(merchantId: string): Promise<MerchantRow> {
    return (await this.deps.services.merchants.find(merchantId))!;
  }

  /**
   * What a receipt for this transaction (and its invoice, if any) shows. `charged`: the payment
   * method the caller has read already (the one the transaction charged), not read again.
   */
  async view(
    merchant: MerchantRow,
    txn: TransactionRow,
    invoice: InvoiceRow | null,
    ex: Executor = this.deps.db,
    charged?: PaymentMethodRow,
  ): Promise<ReceiptView> {
    const { paymentMethods } = this.deps.services;
    const pm =
      charged?.id === txn.payment_method_id
        ? charged
        : await paymentMethods.getRow(ex, merchant.id, txn.payment_method_id);
    const success = txn.success === 1;
    // The invoice's details (line items, memo, ...) when there is one, else the transaction's own meta.
    const meta = parseJson<Record<string, unknown>>(invoice?.meta ?? txn.meta, {});
    const text = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v) : "");
    const settings = settingsOf(merchant);
    const invoiceOpen = invoice !== null && !SETTLED_STATUSES.includes(invoice.status) && invoice.status !== "DELETED";
    return {
      merchantName: merchant.name,
      heading: success ? (HEADINGS[txn.type] ?? "Receipt") : "Payment failed",
      success,
      declineMessage: success ? null : (txn.message ?? "The payment was declined."),
      totalCents: txn.total_cents,
      surchargeCents: txn.surcharge_cents,
      methodLabel: methodLabel(pm.method, pm.card_type),
      lastFour: txn.last_four,
      date: txn.created_at,
      reference: text(meta.reference),
      memo: text(meta.memo),
      subtotal: moneyText(meta.subtotal),
      tax: moneyText(meta.tax),
      lineItems: lineItemsOf(meta),
      // The merchant's Advanced Customization fields with the invoice's values, customer-visible ones only.
      customFields: invoiceCustomFields(meta, merchant.advanced_customization === 1, settings.custom_fields).filter(
        (f) => f.visible,
      ),
      invoiceId: invoice?.id ?? null,
      transactionId: txn.id,
      // The integrator's url when it is a web address, else the sandbox's own hosted invoice page.
      invoiceLink:
        invoice && success
          ? safeHref(`${invoice.url}${invoice.id}`, `${defaultInvoiceUrl(this.deps.publicUrl())}${invoice.id}`)
          : null,
      payLink: invoice && !success && invoiceOpen ? hostedPayUrl(this.deps.publicUrl(), invoice.id) : null,
      footer: settings.receipt_footer,
    };
  }

  private email(
    merchant: MerchantRow,
    to: string,
    view: ReceiptView,
    kind: "receipt" | "receipt_failed" | "transaction_receipt",
    extraCc: readonly string[] = [],
  ): Promise<NewEmail> {
    return this.deps.mailer.send(this.message(merchant, to, view, kind, extraCc));
  }

  /** The receipt e-mail of a view, with the merchant's receipt options. */
  private message(
    merchant: MerchantRow,
    to: string,
    view: ReceiptView,
    kind: "receipt" | "receipt_failed" | "transaction_receipt",
    extraCc: readonly string[] = [],
  ): OutgoingEmail {
    const { receipt_reply_to: replyTo, receipt_cc: merchantCc } = settingsOf(merchant);
    const cc = [...new Set([...merchantCc, ...extraCc])];
    return {
      merchantId: merchant.id,
      kind,
      from: { name: merchant.name, address: SENDER_ADDRESS },
      to,
      // The merchant's receipt options: copies and where the customer's reply goes.
      cc,
      replyTo,
      subject: subjectOf(view),
      text: renderText(view),
      html: renderHtml(view),
      invoiceId: view.invoiceId,
      transactionId: view.transactionId,
    };
  }

  /**
   * Whether a payment attempt on an invoice e-mails a receipt: the invoice has a receipt address,
   * and the attempt was approved or the merchant sends declined receipts too.
   */
  sendsInvoiceReceipt(merchant: MerchantRow, invoice: InvoiceRow, txn: TransactionRow): boolean {
    return receiptAddress(invoice) !== null && (txn.success === 1 || settingsOf(merchant).receipt_send_declined);
  }

  /**
   * The receipt of a payment attempt on an invoice, composed in the caller's unit of work `ex` (an
   * invoice schedule's occurrence stores it with the payment): null when sendsInvoiceReceipt says
   * none goes out. `charged`: the payment method the attempt charged, when the caller has it.
   */
  async invoicePaymentMessage(
    ex: Executor,
    merchant: MerchantRow,
    invoice: InvoiceRow,
    txn: TransactionRow,
    charged?: PaymentMethodRow,
  ): Promise<OutgoingEmail | null> {
    const to = receiptAddress(invoice);
    if (!to || !this.sendsInvoiceReceipt(merchant, invoice, txn)) return null;
    const view = await this.view(merchant, txn, invoice, ex, charged);
    return this.message(merchant, to, view, view.success ? "receipt" : "receipt_failed");
  }

  /**
   * The receipt of a pay() attempt, success or failure (invoicePaymentMessage), stored in the
   * payment's unit of work `ex`: it exists only if the payment commits, and on PostgreSQL its row
   * goes in the payment's own statement (the payment's sync set the invoice's sent_at:
   * InvoiceService.pay's sendsReceipt). Relay it with relayInvoiceReceipt once committed. `paid` is
   * the invoice and charge as the payment left them. Never throws for a receipt that cannot be
   * composed: that is logged, and the payment stands.
   */
  async storeInvoiceReceipt(
    ex: Executor,
    merchant: MerchantRow,
    paid: { invoice: InvoiceRow; transaction: TransactionRow; paymentMethod?: PaymentMethodRow },
  ): Promise<NewEmail | null> {
    let message: OutgoingEmail | null;
    try {
      message = await this.invoicePaymentMessage(ex, merchant, paid.invoice, paid.transaction, paid.paymentMethod);
    } catch (error) {
      const why = (error as Error)?.stack ?? String(error);
      this.deps.log.error(`receipt for invoice ${paid.invoice.id} failed: ${why}`);
      return null;
    }
    return message && this.deps.mailer.hold(ex, message);
  }

  /** Relays a receipt storeInvoiceReceipt stored, once its payment committed (when a relay is configured). */
  relayInvoiceReceipt(row: NewEmail | null): void {
    if (row) this.deps.mailer.relayStored(row);
  }

  private async transactionContext(merchantId: string, transactionId: string) {
    const { transactions, invoices, customers } = this.deps.services;
    const { db } = this.deps;
    const txn = await transactions.getRow(db, merchantId, transactionId);
    const parent = txn.parent_id ? await transactions.findRow(db, merchantId, txn.parent_id) : undefined;
    const invoiceId = txn.invoice_id ?? parent?.invoice_id ?? null;
    const invoice = (invoiceId && (await invoices.findRow(db, merchantId, invoiceId))) || null;
    const customer = await customers.getRow(db, merchantId, txn.customer_id);
    return { txn, invoice, customer, merchant: await this.merchant(merchantId) };
  }

  /**
   * PUT /transaction/{id}/receipt/email (and POST …/receipt-email): to `email`, else the invoice's,
   * else the customer's; `cc` (the real service's ccEmails) copied besides the merchant's receipt_cc.
   */
  async emailTransaction(merchantId: string, transactionId: string, email?: string, cc: readonly string[] = []) {
    const { txn, invoice, customer, merchant } = await this.transactionContext(merchantId, transactionId);
    const to = (email ?? "").trim() || invoice?.email || customer.email;
    if (!to) throw new ValidationFailed({ email: [MESSAGES.required("email")] });
    const errors = validateCustomerFields({ email: to }, { requireNames: false, requireContact: false });
    if (errors.email) throw new ValidationFailed(errors);
    const view = await this.view(merchant, txn, invoice);
    await this.email(merchant, to, view, "transaction_receipt", cc);
    return this.stamp(merchantId, transactionId, "receipt_email_at");
  }

  /**
   * PUT /transaction/{id}/receipt-sms (and POST): to `phone`, else the customer's; one more text to
   * each of `cc` (the real service's ccSMS).
   */
  async smsTransaction(merchantId: string, transactionId: string, phone?: string, cc: readonly string[] = []) {
    const { txn, invoice, customer, merchant } = await this.transactionContext(merchantId, transactionId);
    const to = (phone ?? "").trim() || customer.phone;
    if (!to) throw new ValidationFailed({ phone: [MESSAGES.required("phone")] });
    const errors = validateCustomerFields({ phone: to }, { requireNames: false, requireContact: false });
    if (errors.phone) throw new ValidationFailed(errors);
    const body = renderSms(await this.view(merchant, txn, invoice));
    for (const extra of cc) {
      const invalid = validateCustomerFields({ phone: extra }, { requireNames: false, requireContact: false });
      if (invalid.phone) throw new ValidationFailed({ ccSMS: invalid.phone });
    }
    const recipients = [...new Set([to, ...cc])];
    return this.stamp(merchantId, transactionId, "receipt_sms_at", async (tx) => {
      for (const number of recipients)
        await this.deps.mailer.sendSms(tx, { merchantId, to: number, body, transactionId });
    });
  }

  /** Sets receipt_email_at / receipt_sms_at and emits update_transaction, in one unit of work. */
  private stamp(
    merchantId: string,
    transactionId: string,
    column: "receipt_email_at" | "receipt_sms_at",
    alongside: (tx: Executor) => unknown = () => {},
  ) {
    const { transactions } = this.deps.services;
    return this.deps.db.transaction(async (tx) => {
      await alongside(tx);
      const now = this.deps.clock.timestamp(merchantId);
      await stampReceipt(tx, merchantId, transactionId, column, now);
      const record = await transactions.get(merchantId, transactionId, tx);
      await this.deps.events.emit(tx, { merchantId, name: "update_transaction", record });
      return record;
    });
  }
}
