/**
 * The dashboard's invoice schedule pages: the list (GET /invoice/schedule's records), and one
 * schedule with its rule, next occurrences and the invoices its occurrences made, each linked.
 */
import type { InvoiceSchedule } from "../../../services/invoice-schedules";
import type { InvoiceView } from "../../../services/dashboard";
import type { Page } from "../../page";
import { html, type Renderable, type SafeHtml } from "../../../lib/html";
import { badge, copyable, emptyState, fields, idLink, money, pager, when } from "../layout";
import { invoiceStatus } from "./invoices";

export function scheduleStatus(status: string): SafeHtml {
  return badge(status, status === "ACTIVE" ? "ok" : status === "DELETED" ? "bad" : "warn");
}

const customerName = (s: InvoiceSchedule) =>
  [s.customer.firstname, s.customer.lastname].filter(Boolean).join(" ") || s.customer.email || s.customer.id;

const paymentText = (s: InvoiceSchedule) =>
  s.payment_method
    ? `${s.payment_method.card_type ?? s.payment_method.method} ending ${s.payment_method.card_last_four ?? s.payment_method.bank_last_four ?? ""}`
    : "none: the invoice is sent";

export function schedulesPage(page: Page<InvoiceSchedule>): Renderable {
  return html`<h1>Invoice schedules</h1>
    ${
      page.total === 0
        ? emptyState(
            html`No invoice schedules yet: <code>POST /invoice/schedule</code> with an RRULE (for example
              <code>FREQ=MONTHLY;DTSTART=20300103T140000Z</code>) bills a customer at each occurrence the sandbox clock
              passes.`,
          )
        : html`<table class="schedules">
            <thead>
              <tr>
                <th>Id</th>
                <th>Status</th>
                <th>Rule</th>
                <th>Customer</th>
                <th class="num">Total</th>
                <th>Next</th>
                <th class="num">Invoices</th>
              </tr>
            </thead>
            <tbody>
              ${page.data.map(
                (s) =>
                  html`<tr data-id="${s.id}">
                    <td>${idLink(`/dashboard/schedules/${encodeURIComponent(s.id)}`, s.id, "schedule id")}</td>
                    <td>${scheduleStatus(s.status)}</td>
                    <td>${s.rule_text}</td>
                    <td><a href="/dashboard/customers/${encodeURIComponent(s.customer_id)}">${customerName(s)}</a></td>
                    <td class="num">${money(s.total)}</td>
                    <td>${when(s.next_run_at)}</td>
                    <td class="num">${s.count}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${pager("/dashboard/schedules", page, {})}`;
}

export function schedulePage(s: InvoiceSchedule, invoices: readonly InvoiceView[]): Renderable {
  return html`<h1>Schedule ${money(s.total)} ${scheduleStatus(s.status)}</h1>
    <div class="grid">
      <section class="card">
        ${fields([
          ["Id", copyable(s.id, "schedule id")],
          ["Rule", html`${s.rule_text} · <code>${s.rule}</code>`],
          ["Total", money(s.total)],
          [
            "Customer",
            html`<a href="/dashboard/customers/${encodeURIComponent(s.customer_id)}">${customerName(s)}</a>`,
          ],
          ["Pays with", paymentText(s)],
          ["E-mails the customer", s.email_notification ? "yes" : "no"],
          ["Occurrences run", String(s.count) + (s.max === null ? "" : ` of ${s.max}`)],
          ["Last run", when(s.last_run_at)],
          ["Ends", when(s.end_at)],
          ["Created", when(s.created_at)],
          ["Meta", html`<code>${JSON.stringify(s.meta)}</code>`],
        ])}
      </section>
      <section class="card" id="schedule-next">
        <h2>Next occurrences</h2>
        ${
          s.future_occurrences.length === 0
            ? emptyState("None: the schedule is paused, completed or deleted.")
            : html`<ol>
                ${s.future_occurrences.map((at) => html`<li>${when(at)}</li>`)}
              </ol>`
        }
      </section>
    </div>
    <h2>Invoices it made</h2>
    ${
      invoices.length === 0
        ? emptyState("None yet: advance the sandbox clock past an occurrence (Clock page).")
        : html`<table class="invoices">
            <thead>
              <tr>
                <th>Invoice</th>
                <th>Occurrence</th>
                <th>Status</th>
                <th class="num">Total</th>
                <th class="num">Paid</th>
                <th>Last attempt</th>
              </tr>
            </thead>
            <tbody>
              ${invoices.map(
                (i) =>
                  html`<tr data-id="${i.id}">
                    <td>${idLink(`/dashboard/invoices/${encodeURIComponent(i.id)}`, i.id, "invoice id")}</td>
                    <td>${when(i.created_at)}</td>
                    <td>${invoiceStatus(i.status)}</td>
                    <td class="num">${money(i.total)}</td>
                    <td class="num">${money(i.total_paid)}</td>
                    <td>${i.payment_attempt_message}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }`;
}
