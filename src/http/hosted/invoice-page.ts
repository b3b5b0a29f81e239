/**
 * The hosted invoice a customer opens from a receipt (/hosted/invoice/{id}): what was billed,
 * what was paid, and a link to the payment page while something is due. Server-rendered.
 */
import { html } from "../../lib/html";
import { formatMoney } from "../../domain/money";
import type { ReceiptCustomField, ReceiptLineItem } from "../../services/mail/receipt-templates";
import { customFieldsTable, layout, lineItemsTable, pair } from "./layout";

export interface InvoicePageView {
  merchantName: string;
  invoiceId: string;
  status: string;
  totalCents: number;
  totalPaidCents: number;
  balanceDueCents: number;
  invoiceDate: string;
  paidAt: string | null;
  dueAt: string | null;
  customer: {
    name: string;
    company: string;
    email: string;
    address: string[];
  };
  reference: string;
  memo: string;
  subtotal: string;
  tax: string;
  lineItems: ReceiptLineItem[];
  customFields: ReceiptCustomField[];
  /** The transactions of the invoice, the paying one first. */
  transactions: {
    id: string;
    type: string;
    success: boolean;
    total: string;
    method: string;
    lastFour: string;
    date: string;
    message: string | null;
  }[];
  /** The hosted payment page while something is due; null once paid. */
  payUrl: string | null;
}

export function renderInvoicePage(view: InvoicePageView): string {
  const body = html`<h1>${view.merchantName}</h1>
    <p>
      Invoice <code>${view.invoiceId}</code>
      <span class="status status-${view.status}" id="invoice-status">${view.status}</span>
    </p>
    <table class="summary">
      ${pair("Invoice date", `${view.invoiceDate} UTC`)} ${pair("Due", view.dueAt ? `${view.dueAt} UTC` : null)}
      ${pair("Paid", view.paidAt ? `${view.paidAt} UTC` : null)} ${pair("Reference", view.reference)}
      ${pair("Memo", view.memo)}
    </table>
    <h2>Bill to</h2>
    <p class="customer">
      ${view.customer.name}${view.customer.company ? html`<br />${view.customer.company}` : ""}${view.customer.email ? html`<br />${view.customer.email}` : ""}${view.customer.address.map((line) => html`<br />${line}`)}
    </p>
    ${lineItemsTable(view.lineItems)}
    <table class="totals">
      ${pair("Subtotal", view.subtotal, "num")} ${pair("Tax", view.tax, "num")}
      <tr>
        <th>Total</th>
        <td class="num" id="invoice-total">${formatMoney(view.totalCents)}</td>
      </tr>
      <tr>
        <th>Paid</th>
        <td class="num" id="invoice-paid">${formatMoney(view.totalPaidCents)}</td>
      </tr>
      <tr>
        <th>Balance due</th>
        <td class="num" id="invoice-balance">${formatMoney(view.balanceDueCents)}</td>
      </tr>
    </table>
    ${customFieldsTable(view.customFields)}
    ${
      view.transactions.length
        ? html`<h2>Payments</h2>
            <table class="transactions">
              <thead>
                <tr>
                  <th>Date (UTC)</th>
                  <th>Type</th>
                  <th>Method</th>
                  <th class="num">Amount</th>
                  <th>Result</th>
                </tr>
              </thead>
              <tbody>
                ${view.transactions.map(
                  (t) =>
                    html`<tr>
                        <td>${t.date}</td>
                        <td>${t.type}</td>
                        <td>${t.method}${t.lastFour ? ` •••• ${t.lastFour}` : ""}</td>
                        <td class="num">${t.total}</td>
                        <td>${t.success ? "Approved" : html`<span class="error">${t.message ?? "Declined"}</span>`}</td>
                      </tr>
                      <tr>
                        <td colspan="5" class="muted">Transaction ${t.id}</td>
                      </tr>`,
                )}
              </tbody>
            </table>`
        : ""
    }
    ${view.payUrl ? html`<p><a class="button" id="pay-link" href="${view.payUrl}">Pay ${formatMoney(view.balanceDueCents)}</a></p>` : ""}
    <p class="muted">paysandbox: a local sandbox; no real money moves.</p>`;
  return layout(`Invoice from ${view.merchantName}`, body);
}
