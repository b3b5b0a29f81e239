/**
 * Sending an invoice to its customer (PUT /invoice/{id}/send/email and /send/sms): a message in
 * the outbox with the amount due and the hosted payment link, the invoice's sent_at set the first
 * time, and the send_invoice event, whose delivery rows commit with sent_at.
 */
import { html } from "../../lib/html";
import { parseJson } from "../../lib/json";
import { MESSAGES } from "../../../packages/rules/messages";
import { validateCustomerFields } from "../../../packages/rules/validation";
import { invalidState, ValidationFailed } from "../../domain/errors";
import { centsToNumber } from "../../domain/money";
import { markInvoice } from "../../storage/repositories/invoices";
import type { Executor } from "../../storage/database";
import { SETTLED_STATUSES, type Invoice, type InvoiceRow } from "../invoices";
import type { MerchantRow } from "../merchants";
import { SENDER_ADDRESS, type OutgoingEmail } from "./mailer";
import { hostedPayUrl, type ReceiptDeps } from "./receipts";

/** What an invoice message says: who asks, how much is due, what for, and where to pay it. */
interface InvoiceView {
  merchantName: string;
  due: string;
  memo: string;
  payLink: string;
}

export class InvoiceMail {
  constructor(private readonly deps: ReceiptDeps) {}

  /** PUT /invoice/{id}/send/email: to the invoice's e-mail (else the customer's), `cc` copied. */
  async email(merchantId: string, invoiceId: string, cc: readonly string[] = []): Promise<Invoice> {
    const { invoice, merchant, customer } = await this.context(merchantId, invoiceId);
    const to = invoice.email?.trim() || customer.email;
    if (!to) throw new ValidationFailed({ email: [MESSAGES.required("email")] });
    await this.deps.mailer.send(this.message(merchant, invoice, to, { cc }));
    return this.sent(merchantId, invoiceId);
  }

  /**
   * The invoice e-mail to `to` (kind `invoice`): the amount due, the memo, the hosted pay link, and
   * `note` (an invoice schedule says which card it will charge).
   */
  message(
    merchant: MerchantRow,
    invoice: InvoiceRow,
    to: string,
    options: { cc?: readonly string[]; note?: string } = {},
  ): OutgoingEmail {
    const view = this.view(merchant, invoice);
    const note = options.note ?? "";
    const text = `${view.merchantName} sent you an invoice for ${view.due}.${view.memo ? `\n\n${view.memo}` : ""}${note ? `\n\n${note}` : ""}\n\nPay it here: ${view.payLink}\n`;
    const body = html`<!doctype html>
      <html>
        <body>
          <p>${view.merchantName} sent you an invoice for <strong>${view.due}</strong>.</p>
          ${view.memo ? html`<p>${view.memo}</p>` : ""} ${note ? html`<p>${note}</p>` : ""}
          <p><a href="${view.payLink}">Pay the invoice</a></p>
        </body>
      </html>`;
    return {
      merchantId: merchant.id,
      kind: "invoice",
      from: { name: merchant.name, address: SENDER_ADDRESS },
      to,
      cc: options.cc ?? [],
      subject: `Invoice from ${merchant.name}: ${view.due} due`,
      text,
      html: body.toString(),
      invoiceId: invoice.id,
    };
  }

  /** PUT /invoice/{id}/send/sms: to `phone` (else the customer's); `message` goes before the link. */
  async sms(merchantId: string, invoiceId: string, input: { phone?: string; message?: string }): Promise<Invoice> {
    const { invoice, merchant, customer } = await this.context(merchantId, invoiceId);
    const to = input.phone?.trim() || customer.phone;
    if (!to) throw new ValidationFailed({ phone: [MESSAGES.required("phone")] });
    const errors = validateCustomerFields({ phone: to }, { requireNames: false, requireContact: false });
    if (errors.phone) throw new ValidationFailed(errors);
    const view = this.view(merchant, invoice);
    const lead = input.message?.trim() || `${view.merchantName}: invoice for ${view.due}.`;
    return this.sent(merchantId, invoiceId, (tx) =>
      this.deps.mailer.sendSms(tx, { merchantId, to, body: `${lead} Pay: ${view.payLink}` }),
    );
  }

  /** The invoice, which must have something due, with its merchant and customer. */
  private async context(merchantId: string, invoiceId: string) {
    const { invoices, customers, merchants } = this.deps.services;
    const invoice = await invoices.getRow(this.deps.db, merchantId, invoiceId);
    if (invoice.status === "DELETED") throw invalidState("The invoice was deleted.", { status: invoice.status });
    if (SETTLED_STATUSES.includes(invoice.status) || invoice.total_cents - invoice.total_paid_cents <= 0) {
      throw invalidState(`The invoice is ${invoice.status}: nothing is due.`, { status: invoice.status });
    }
    const customer = await customers.getRow(this.deps.db, merchantId, invoice.customer_id);
    return { invoice, customer, merchant: (await merchants.find(merchantId))! };
  }

  private view(merchant: MerchantRow, invoice: InvoiceRow): InvoiceView {
    const memo = parseJson<{ memo?: unknown }>(invoice.meta, {}).memo;
    return {
      merchantName: merchant.name,
      due: `$${centsToNumber(invoice.total_cents - invoice.total_paid_cents).toFixed(2)}`,
      memo: typeof memo === "string" ? memo : "",
      payLink: hostedPayUrl(this.deps.publicUrl(), invoice.id),
    };
  }

  /** Sets sent_at (the first time) and emits send_invoice with the record, in one unit of work. */
  private sent(merchantId: string, invoiceId: string, alongside: (tx: Executor) => unknown = () => {}) {
    const { invoices } = this.deps.services;
    return this.deps.db.transaction(async (tx) => {
      await alongside(tx);
      await markInvoice(tx, merchantId, invoiceId, "sent_at", this.deps.clock.timestamp(merchantId));
      const record = await invoices.get(merchantId, invoiceId, tx);
      await this.deps.events.emit(tx, { merchantId, name: "send_invoice", record });
      return record;
    });
  }
}
