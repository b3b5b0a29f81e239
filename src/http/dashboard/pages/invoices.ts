/**
 * The dashboard's invoice pages: the list with GET /invoice's filters, and one invoice with its
 * customer, transactions, e-mails and the hosted page's link.
 */
import type { InvoiceView } from "../../../services/dashboard";
import type { OutsidePaymentRow } from "../../../services/invoices/outside-payments";
import type { Page } from "../../page";
import type { ShownCustomField } from "../../../services/merchant-options";
import { html, type Renderable, type SafeHtml } from "../../../lib/html";
import { badge, copyable, emptyState, fields, idLink, money, pager, when } from "../layout";

export function invoiceStatus(status: string): SafeHtml {
  const tone = status === "PAID" ? "ok" : status === "ATTEMPTED" ? "bad" : status === "DRAFT" ? "" : "warn";
  return badge(status, tone);
}

const INVOICE_STATUSES = ["DRAFT", "PAID", "ATTEMPTED", "PARTIALLY_REFUNDED", "REFUNDED", "VOIDED", "DELETED"];

/** The invoice list's filters: every filter of GET /invoice, same names. */
export interface InvoiceFilterValues {
  status?: string;
  customer_id?: string;
  startDate?: string;
  endDate?: string;
}

export function invoicesPage(page: Page<InvoiceView>, filters: InvoiceFilterValues): Renderable {
  const status = filters.status ?? "";
  const filtered = Object.values(filters).some((v) => v);
  return html`<h1>Invoices</h1>
    <form class="filters" method="get" action="/dashboard/invoices" aria-label="Filter invoices">
      <label
        >Status
        <select name="status">
          <option value="">Any</option>
          ${INVOICE_STATUSES.map(
            (s) => html`<option value="${s}" ${s === status ? html` selected` : ""}>${s}</option>`,
          )}
        </select></label
      >
      <label>Customer id <input name="customer_id" value="${filters.customer_id ?? ""}" size="12" /></label>
      <label>From <input type="date" name="startDate" value="${filters.startDate ?? ""}" /></label>
      <label>To <input type="date" name="endDate" value="${filters.endDate ?? ""}" /></label>
      <button type="submit">Filter</button> <a href="/dashboard/invoices">Clear</a>
    </form>
    ${
      page.total === 0
        ? filtered
          ? emptyState(html`No invoices match these filters. <a href="/dashboard/invoices">Clear them</a>.`)
          : emptyState(
              html`No invoices yet: payjs's <code>pay()</code> makes one per payment (try it on the
                <a href="/dashboard/try">Try it</a> page), or create one with <code>POST /invoice</code>.`,
            )
        : html`<table class="invoices">
            <thead>
              <tr>
                <th>Id</th>
                <th>Created</th>
                <th>Status</th>
                <th>Customer</th>
                <th class="num">Total</th>
                <th class="num">Paid</th>
                <th class="num">Balance</th>
                <th>Hosted</th>
              </tr>
            </thead>
            <tbody>
              ${page.data.map(
                (i) =>
                  html`<tr data-id="${i.id}">
                    <td>${idLink(`/dashboard/invoices/${encodeURIComponent(i.id)}`, i.id, "invoice id")}</td>
                    <td>${when(i.created_at)}</td>
                    <td>${invoiceStatus(i.status)}</td>
                    <td>
                      <a href="/dashboard/customers/${encodeURIComponent(i.customer.id)}"
                        >${[i.customer.firstname, i.customer.lastname].filter(Boolean).join(" ") || i.customer.email}</a
                      >
                    </td>
                    <td class="num">${money(i.total)}</td>
                    <td class="num">${money(i.total_paid)}</td>
                    <td class="num">${money(i.balance_due)}</td>
                    <td><a href="/hosted/invoice/${encodeURIComponent(i.id)}">view</a></td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${pager("/dashboard/invoices", page, { ...filters })}`;
}

export function invoicePage(
  i: InvoiceView,
  emails: Renderable,
  customFields: readonly ShownCustomField[] = [],
  outside: readonly OutsidePaymentRow[] = [],
): Renderable {
  return html`<h1>Invoice ${money(i.total)} ${invoiceStatus(i.status)}</h1>
    <div class="grid">
      <section class="card">
        ${fields([
          ["Id", copyable(i.id, "invoice id")],
          ["Total", money(i.total)],
          ["Paid", money(i.total_paid)],
          ["Balance due", money(i.balance_due)],
          [
            "Customer",
            html`<a href="/dashboard/customers/${encodeURIComponent(i.customer.id)}"
              >${[i.customer.firstname, i.customer.lastname].filter(Boolean).join(" ") || i.customer.email}</a
            >`,
          ],
          ["Last attempt", i.payment_attempt_message],
          [
            "Schedule",
            i.schedule_id
              ? idLink(`/dashboard/schedules/${encodeURIComponent(i.schedule_id)}`, i.schedule_id, "schedule id")
              : "—",
          ],
          ["Created", when(i.created_at)],
          ["Paid at", when(i.paid_at)],
          [
            "Hosted pages",
            html`<a href="/hosted/invoice/${encodeURIComponent(i.id)}" target="_blank" rel="noopener">invoice ↗</a> ·
              <a href="/hosted/pay/${encodeURIComponent(i.id)}" target="_blank" rel="noopener">pay page ↗</a>`,
          ],
          ["Meta", html`<code>${JSON.stringify(i.meta)}</code>`],
        ])}
      </section>
      ${
        customFields.length === 0
          ? ""
          : html`<section class="card" id="invoice-custom-fields">
              <h2>Custom fields</h2>
              ${fields(
                customFields.map((f) => [
                  `${f.name}${f.visible ? "" : " (merchant only)"}`,
                  f.value === "" ? "—" : f.value,
                ]),
              )}
            </section>`
      }
    </div>
    <h2>Transactions</h2>
    ${
      i.child_transactions.length === 0
        ? emptyState("None yet.")
        : html`<table>
            <thead>
              <tr>
                <th>Id</th>
                <th>Created</th>
                <th>Type</th>
                <th>Result</th>
                <th class="num">Amount</th>
                <th>Message</th>
              </tr>
            </thead>
            <tbody>
              ${i.child_transactions.map(
                (t) =>
                  html`<tr>
                    <td>${idLink(`/dashboard/transactions/${encodeURIComponent(t.id)}`, t.id, "transaction id")}</td>
                    <td>${when(t.created_at)}</td>
                    <td>${t.type}</td>
                    <td>${t.success ? badge("approved", "ok") : badge("declined", "bad")}</td>
                    <td class="num">${money(t.total)}</td>
                    <td>${t.message}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${outside.length === 0 ? "" : outsidePayments(outside)}
    <h2>E-mails</h2>
    ${emails}`;
}

/** Cash and check payments (POST /invoice/{id}/pay/{method}): recorded, never charged. */
function outsidePayments(rows: readonly OutsidePaymentRow[]): Renderable {
  return html`<h2>Paid outside the sandbox</h2>
    <table id="invoice-outside-payments">
      <thead>
        <tr>
          <th>Created</th>
          <th>Method</th>
          <th class="num">Amount</th>
          <th>Check number</th>
          <th>Note</th>
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (p) =>
            html`<tr>
              <td>${when(p.created_at)}</td>
              <td>${p.method}</td>
              <td class="num">${money(p.total_cents, "cents")}</td>
              <td>${p.check_number ?? ""}</td>
              <td>${p.payment_note ?? ""}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}
