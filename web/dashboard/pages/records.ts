/**
 * Pages of the other modules' records: invoices, the e-mail and SMS outboxes, webhooks and their
 * deliveries, deposits. Row shapes are declared here (what the pages read), so these pages do not
 * depend on how those modules are built.
 */
import type { Page } from "../../../lib/pagination";
import { html, queryString, type Renderable, type SafeHtml } from "../../html";
import { actionButton, badge, emptyState, fields, idLink, money, pager } from "../layout";

// ---- invoices

export interface InvoiceView {
  id: string;
  status: string;
  total: number;
  total_paid: number;
  balance_due: number;
  customer: { id: string; firstname: string; lastname: string; email: string };
  child_transactions: {
    id: string;
    type: string;
    success: boolean;
    total: number;
    message: string | null;
    created_at: string;
  }[];
  meta: Record<string, unknown>;
  url: string;
  payment_attempt_message: string;
  created_at: string;
  paid_at: string | null;
}

export function invoiceStatus(status: string): SafeHtml {
  const tone = status === "PAID" ? "ok" : status === "ATTEMPTED" ? "bad" : status === "DRAFT" ? "" : "warn";
  return badge(status, tone);
}

const INVOICE_STATUSES = ["DRAFT", "PAID", "ATTEMPTED", "PARTIALLY_REFUNDED", "REFUNDED", "VOIDED", "DELETED"];

export function invoicesPage(page: Page<InvoiceView>, status: string): Renderable {
  return html`<h1>Invoices</h1>
    <form class="filters" method="get" action="/dashboard/invoices">
      <label
        >Status
        <select name="status">
          <option value="">Any</option>
          ${INVOICE_STATUSES.map(
            (s) => html`<option value="${s}" ${s === status ? html` selected` : ""}>${s}</option>`,
          )}
        </select></label
      >
      <button type="submit">Filter</button>
    </form>
    ${
      page.total === 0
        ? emptyState(status ? "No invoices with this status." : "No invoices yet: pay() makes one per payment.")
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
                    <td>${idLink(`/dashboard/invoices/${encodeURIComponent(i.id)}`, i.id)}</td>
                    <td>${i.created_at}</td>
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
    ${pager("/dashboard/invoices", page, { status })}`;
}

export function invoicePage(i: InvoiceView, emails: Renderable): Renderable {
  return html`<h1>Invoice ${money(i.total)} ${invoiceStatus(i.status)}</h1>
    <div class="grid">
      <section class="card">
        ${fields([
          ["Id", html`<code>${i.id}</code>`],
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
          ["Created", i.created_at],
          ["Paid at", i.paid_at],
          ["Hosted page", html`<a href="/hosted/invoice/${encodeURIComponent(i.id)}">/hosted/invoice/${i.id}</a>`],
          ["Meta", html`<code>${JSON.stringify(i.meta)}</code>`],
        ])}
      </section>
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
                    <td>${idLink(`/dashboard/transactions/${encodeURIComponent(t.id)}`, t.id)}</td>
                    <td>${t.created_at}</td>
                    <td>${t.type}</td>
                    <td>${t.success ? badge("approved", "ok") : badge("declined", "bad")}</td>
                    <td class="num">${money(t.total)}</td>
                    <td>${t.message}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    <h2>E-mails</h2>
    ${emails}`;
}

// ---- e-mail and SMS outboxes

export interface EmailView {
  id: string;
  kind: string;
  from_address: string;
  to_address: string;
  subject: string;
  invoice_id: string | null;
  transaction_id: string | null;
  relay_status: string;
  relay_error: string | null;
  created_at: string;
}

export function emailList(emails: readonly EmailView[], currentId?: string): SafeHtml {
  return html`<div class="list card">
    ${emails.map(
      (e) =>
        html`<a
          href="/dashboard/emails/${encodeURIComponent(e.id)}"
          class="${e.id === currentId ? "current" : ""}"
          data-id="${e.id}"
          ><strong>${e.subject}</strong><br /><span class="muted">${e.to_address} · ${e.created_at}</span></a
        >`,
    )}
  </div>`;
}

export function emailsPage(page: Page<EmailView>, current: EmailView | null, to: string): Renderable {
  return html`<h1>E-mail outbox</h1>
    <form class="filters" method="get" action="/dashboard/emails">
      <label>To <input type="search" name="to" value="${to}" placeholder="address" /></label
      ><button type="submit">Filter</button>
    </form>
    ${
      page.total === 0
        ? emptyState("No e-mails yet: every pay() sends a receipt to the customer's e-mail address.")
        : html`<div class="split">
            <div>${emailList(page.data, current?.id)}${pager("/dashboard/emails", page, { to })}</div>
            <div>${current ? emailView(current) : html`<div class="empty">Pick an e-mail.</div>`}</div>
          </div>`
    }`;
}

export function emailView(e: EmailView): SafeHtml {
  const id = encodeURIComponent(e.id);
  return html`<section class="card email" data-id="${e.id}">
      <h2 class="subject">${e.subject}</h2>
      ${fields([
        ["From", e.from_address],
        ["To", e.to_address],
        ["Sent", e.created_at],
        ["Kind", e.kind],
        [
          "Transaction",
          e.transaction_id
            ? html`<a href="/dashboard/transactions/${encodeURIComponent(e.transaction_id)}">${e.transaction_id}</a>`
            : "",
        ],
        [
          "Invoice",
          e.invoice_id
            ? html`<a href="/dashboard/invoices/${encodeURIComponent(e.invoice_id)}">${e.invoice_id}</a>`
            : "",
        ],
        [
          "SMTP relay",
          e.relay_status === "off"
            ? "off (no --smtp)"
            : `${e.relay_status}${e.relay_error ? `: ${e.relay_error}` : ""}`,
        ],
        [
          "Source",
          html`<a href="/_sandbox/emails/${id}.eml" download>download .eml</a> ·
            <a href="/dashboard/emails/${id}/body.html" target="_blank" rel="noopener">open HTML</a>`,
        ],
      ])}
    </section>
    <iframe
      class="mail"
      title="The e-mail's HTML"
      sandbox="allow-popups allow-popups-to-escape-sandbox"
      src="/dashboard/emails/${id}/body.html"
    ></iframe>`;
}

export function emailSummaryTable(emails: readonly EmailView[]): SafeHtml {
  return emails.length === 0
    ? emptyState("None.")
    : html`<table>
        <thead>
          <tr>
            <th>Sent</th>
            <th>To</th>
            <th>Subject</th>
          </tr>
        </thead>
        <tbody>
          ${emails.map(
            (e) =>
              html`<tr>
                <td>${e.created_at}</td>
                <td>${e.to_address}</td>
                <td><a href="/dashboard/emails/${encodeURIComponent(e.id)}">${e.subject}</a></td>
              </tr>`,
          )}
        </tbody>
      </table>`;
}

export interface SmsView {
  id: string;
  to_phone: string;
  body: string;
  transaction_id: string | null;
  created_at: string;
}

export function smsPage(page: Page<SmsView>): Renderable {
  return html`<h1>SMS outbox</h1>
    ${
      page.total === 0
        ? emptyState("No text messages yet: POST /transaction/{id}/receipt-sms sends one.")
        : html`<table class="sms">
            <thead>
              <tr>
                <th>Sent</th>
                <th>To</th>
                <th>Message</th>
                <th>Transaction</th>
              </tr>
            </thead>
            <tbody>
              ${page.data.map(
                (m) =>
                  html`<tr data-id="${m.id}">
                    <td>${m.created_at}</td>
                    <td>${m.to_phone}</td>
                    <td>${m.body}</td>
                    <td>
                      ${m.transaction_id ? idLink(`/dashboard/transactions/${encodeURIComponent(m.transaction_id)}`, m.transaction_id) : ""}
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${pager("/dashboard/sms", page, {})}`;
}

// ---- webhooks

export interface WebhookView {
  id: string;
  target_url: string;
  event: string;
  created_at: string;
}

export interface DeliveryView {
  id: string;
  webhook_id: string;
  target_url: string;
  event: string;
  record_id: string;
  status: string;
  attempts: number;
  max_attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  redelivery_of: string | null;
  created_at: string;
  attempt_log: {
    attempt: number;
    started_at: string;
    success: boolean;
    status_code: number | null;
    latency_ms: number | null;
    response_snippet: string | null;
    error: string | null;
  }[];
}

function deliveryStatus(status: string): SafeHtml {
  return badge(
    status,
    status === "delivered" ? "ok" : status === "failed" ? "bad" : status === "pending" ? "warn" : "",
  );
}

/** Deliveries with their attempt logs and a redeliver button; `back` is where redeliver returns to. */
export function deliveriesTable(deliveries: readonly DeliveryView[], back: string): SafeHtml {
  if (deliveries.length === 0) return emptyState("No deliveries.");
  return html`<table class="deliveries">
    <thead>
      <tr>
        <th>Created</th>
        <th>Event</th>
        <th>Record</th>
        <th>Target</th>
        <th>Status</th>
        <th>Attempts</th>
        <th></th>
      </tr>
    </thead>
    <tbody>
      ${deliveries.map(
        (d) =>
          html`<tr data-id="${d.id}" data-status="${d.status}">
            <td>${d.created_at}</td>
            <td>${d.event}</td>
            <td><code>${d.record_id.slice(0, 8)}</code></td>
            <td class="mono">${d.target_url}</td>
            <td>
              ${deliveryStatus(d.status)}${d.redelivery_of ? html` <span class="muted">redelivery</span>` : ""}${d.next_attempt_at && d.status === "pending" ? html`<br /><span class="muted">next ${d.next_attempt_at}</span>` : ""}
            </td>
            <td>
              ${d.attempts}/${d.max_attempts}${d.attempt_log.map(
                (a) =>
                  html`<div class="muted">
                    #${a.attempt} ${a.started_at} →
                    ${a.status_code ?? a.error ?? "…"}${a.latency_ms !== null ? ` (${a.latency_ms} ms)` : ""}
                  </div>`,
              )}
            </td>
            <td>${actionButton("/dashboard/webhooks/redeliver", "Redeliver", { delivery_id: d.id, back })}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export function webhooksPage(
  hooks: readonly WebhookView[],
  deliveries: Page<DeliveryView>,
  status: string,
): Renderable {
  return html`<h1>Webhooks</h1>
    ${
      hooks.length === 0
        ? emptyState(
            html`No webhooks yet. Subscribe with
              <code>POST /webhook {"target_url": "...", "event": "create_transaction"}</code>.`,
          )
        : html`<table class="webhooks">
            <thead>
              <tr>
                <th>Id</th>
                <th>Event</th>
                <th>Target</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              ${hooks.map(
                (h) =>
                  html`<tr>
                    <td><code>${h.id.slice(0, 8)}</code></td>
                    <td>${h.event}</td>
                    <td class="mono">${h.target_url}</td>
                    <td>${h.created_at}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    <h2>Deliveries</h2>
    <form class="filters" method="get" action="/dashboard/webhooks">
      <label
        >Status
        <select name="status">
          <option value="">Any</option>
          ${["pending", "delivered", "failed", "cancelled"].map(
            (s) => html`<option value="${s}" ${s === status ? html` selected` : ""}>${s}</option>`,
          )}
        </select></label
      ><button type="submit">Filter</button>
    </form>
    ${deliveriesTable(deliveries.data, `/dashboard/webhooks${queryString({ status })}`)}
    ${pager("/dashboard/webhooks", deliveries, { status })}`;
}

// ---- deposits

export interface DepositView {
  id: string;
  batch_id: string;
  method: string;
  settled_at: string;
  deposit_at: string;
  deposited_at: string | null;
  transaction_count: number;
  gross_cents: number;
  refunds_cents: number;
  fees_cents: number;
  net_cents: number;
}

export function depositsPage(page: Page<DepositView>): Renderable {
  return html`<h1>Deposits</h1>
    <p class="muted">
      Card transactions batch when the sandbox clock crosses midnight UTC and deposit the next day; ACH settles after
      the merchant's settlement days. <a href="/dashboard/clock">Advance the clock</a> to see them.
    </p>
    ${
      page.total === 0
        ? emptyState("No settlement batches yet.")
        : html`<table class="deposits">
            <thead>
              <tr>
                <th>Batch</th>
                <th>Method</th>
                <th>Settled</th>
                <th>Deposit</th>
                <th>Status</th>
                <th class="num">Transactions</th>
                <th class="num">Gross</th>
                <th class="num">Refunds</th>
                <th class="num">Fees</th>
                <th class="num">Net</th>
              </tr>
            </thead>
            <tbody>
              ${page.data.map(
                (d) =>
                  html`<tr data-batch="${d.batch_id}">
                    <td>
                      <a class="mono" href="/dashboard/transactions${queryString({ batch: d.batch_id })}"
                        >${d.batch_id}</a
                      >
                    </td>
                    <td>${d.method}</td>
                    <td>${d.settled_at}</td>
                    <td>${d.deposit_at}</td>
                    <td>${d.deposited_at ? badge("deposited", "ok") : badge("pending", "warn")}</td>
                    <td class="num">${d.transaction_count}</td>
                    <td class="num">${money(d.gross_cents, "cents")}</td>
                    <td class="num">${money(d.refunds_cents, "cents")}</td>
                    <td class="num">${money(d.fees_cents, "cents")}</td>
                    <td class="num">${money(d.net_cents, "cents")}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${pager("/dashboard/deposits", page, {})}`;
}
