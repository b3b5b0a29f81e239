/**
 * Pages of the other modules' records: invoices, the e-mail and SMS outboxes, webhooks and their
 * deliveries, deposits. Row shapes are declared here (what the pages read), so these pages do not
 * depend on how those modules are built.
 */
import type {
  AttemptView,
  DeliveryView,
  DepositView,
  EmailView,
  InvoiceView,
  SmsView,
  WebhookView,
} from "../../../services/dashboard";
import type { Page } from "../../../domain/pagination";
import type { ShownCustomField } from "../../../services/merchant-options";
import { ccOf } from "../../../services/mail/mailer";
import { html, queryString, type Renderable, type SafeHtml } from "../../../lib/html";
import {
  actionButton,
  badge,
  command,
  copyable,
  emptyState,
  fields,
  idLink,
  idText,
  money,
  pager,
  when,
} from "../layout";

// ---- invoices

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
    <h2>E-mails</h2>
    ${emails}`;
}

// ---- e-mail and SMS outboxes

export function emailList(emails: readonly EmailView[], currentId?: string): SafeHtml {
  return html`<div class="list card">
    ${emails.map(
      (e) =>
        html`<a
          href="/dashboard/emails/${encodeURIComponent(e.id)}"
          class="${e.id === currentId ? "current" : ""}"
          data-id="${e.id}"
          ><strong>${e.subject}</strong><br /><span class="muted">${e.to_address} · ${when(e.created_at)}</span></a
        >`,
    )}
  </div>`;
}

/** What empty states put in their curl examples: this sandbox's URL and the merchant's API key. */
export interface Hints {
  publicUrl: string;
  apiKey: string;
}

export function emailsPage(page: Page<EmailView>, current: EmailView | null, to: string, hints: Hints): Renderable {
  return html`<h1>E-mail outbox</h1>
    <form class="filters" method="get" action="/dashboard/emails">
      <label>To <input type="search" name="to" value="${to}" placeholder="address" /></label
      ><button type="submit">Filter</button>
    </form>
    ${
      page.total === 0
        ? to
          ? emptyState(html`No e-mails to addresses matching “${to}”. <a href="/dashboard/emails">Show all</a>.`)
          : emptyState(
              html`No e-mails yet: <code>pay()</code> with <code>send_receipt</code> e-mails a receipt, and so does the
                Send receipt action on a transaction's page, or:`,
              command(
                `curl -s -X POST ${hints.publicUrl}/transaction/<id>/receipt-email -H 'Authorization: Bearer ${hints.apiKey}' -H 'Content-Type: application/json' -d '{"email":"ada@example.com"}'`,
                "receipt e-mail command",
              ),
            )
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
        ["Id", copyable(e.id, "e-mail id")],
        ["From", e.from_address],
        ["To", e.to_address],
        ["Cc", ccOf({ cc_addresses: e.cc_addresses ?? "[]" }).join(", ")],
        ["Reply-To", e.reply_to ?? ""],
        ["Sent", when(e.created_at)],
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
                <td>${when(e.created_at)}</td>
                <td>${e.to_address}</td>
                <td><a href="/dashboard/emails/${encodeURIComponent(e.id)}">${e.subject}</a></td>
              </tr>`,
          )}
        </tbody>
      </table>`;
}

export function smsPage(page: Page<SmsView>, to: string, hints: Hints): Renderable {
  return html`<h1>SMS outbox</h1>
    <form class="filters" method="get" action="/dashboard/sms" aria-label="Filter text messages">
      <label>To <input type="search" name="to" value="${to}" placeholder="phone" /></label
      ><button type="submit">Filter</button>
    </form>
    ${
      page.total === 0 && to
        ? emptyState(html`No text messages to “${to}”. <a href="/dashboard/sms">Show all</a>.`)
        : page.total === 0
          ? emptyState(
              "No text messages yet: the Send receipt SMS action on a transaction's page sends one, or:",
              command(
                `curl -s -X POST ${hints.publicUrl}/transaction/<id>/receipt-sms -H 'Authorization: Bearer ${hints.apiKey}' -H 'Content-Type: application/json' -d '{"phone":"5555550123"}'`,
                "receipt SMS command",
              ),
            )
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
                      <td>${when(m.created_at)}</td>
                      <td>${m.to_phone}</td>
                      <td>${m.body}</td>
                      <td>
                        ${m.transaction_id ? idLink(`/dashboard/transactions/${encodeURIComponent(m.transaction_id)}`, m.transaction_id, "transaction id") : ""}
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`
    }
    ${pager("/dashboard/sms", page, { to })}`;
}

// ---- webhooks

function deliveryStatus(status: string): SafeHtml {
  return badge(
    status,
    status === "delivered" ? "ok" : status === "failed" ? "bad" : status === "pending" ? "warn" : "",
  );
}

const deliveryPath = (id: string) => `/dashboard/webhooks/deliveries/${encodeURIComponent(id)}`;

/** Deliveries with their last result and a redeliver button; `back` is where redeliver returns to. */
export function deliveriesTable(deliveries: readonly DeliveryView[], back: string): SafeHtml {
  if (deliveries.length === 0) return emptyState("No deliveries.");
  return html`<table class="deliveries">
    <thead>
      <tr>
        <th>Delivery</th>
        <th>Created</th>
        <th>Event</th>
        <th>Record</th>
        <th>Target</th>
        <th>Status</th>
        <th>Attempts</th>
        <th><span class="sr-only">Actions</span></th>
      </tr>
    </thead>
    <tbody>
      ${deliveries.map(
        (d) =>
          html`<tr data-id="${d.id}" data-status="${d.status}">
            <td>${idLink(deliveryPath(d.id), d.id, "delivery id")}</td>
            <td>${when(d.created_at)}</td>
            <td>${d.event}</td>
            <td>${idText(d.record_id, "record id")}</td>
            <td class="mono">${d.target_url}</td>
            <td>
              ${deliveryStatus(d.status)}${d.redelivery_of ? html` <span class="muted">redelivery</span>` : ""}${d.next_attempt_at && d.status === "pending" ? html`<br /><span class="muted">next ${when(d.next_attempt_at)}</span>` : ""}
            </td>
            <td>
              ${d.attempts}/${d.max_attempts}${d.attempt_log.map(
                (a) =>
                  html`<div class="muted">
                    #${a.attempt} ${when(a.started_at)} →
                    ${a.status_code ?? a.error ?? "…"}${a.latency_ms !== null ? ` (${a.latency_ms} ms)` : ""}
                  </div>`,
              )}
            </td>
            <td>
              <a href="${deliveryPath(d.id)}">Details</a>
              ${actionButton("/dashboard/webhooks/redeliver", "Redeliver", { delivery_id: d.id, back })}
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

const EVENT_CHOICES = [
  "*",
  "create_transaction",
  "update_transaction",
  "update_transaction_settled",
  "create_invoice",
  "update_invoice",
  "create_customer",
  "update_customer",
  "create_deposit",
];

function eventSelect(id: string, value: string): SafeHtml {
  return html`<select name="event" id="${id}">
    ${EVENT_CHOICES.map(
      (e) =>
        html`<option value="${e}" ${e === value ? html` selected` : ""}>${e === "*" ? "* (every event)" : e}</option>`,
    )}
  </select>`;
}

function webhookRow(h: WebhookView): SafeHtml {
  const base = `/dashboard/webhooks/${encodeURIComponent(h.id)}`;
  return html`<tr data-id="${h.id}" data-state="${h.disabled_at ? "disabled" : "enabled"}">
    <td>${idText(h.id, "webhook id")}</td>
    <td>${h.event}</td>
    <td class="mono">${h.target_url}</td>
    <td>${h.disabled_at ? badge("disabled", "warn") : badge("enabled", "ok")}</td>
    <td>${when(h.created_at)}</td>
    <td>
      <div class="row">
        ${actionButton(`${base}/test`, "Send test event", {})}
        ${actionButton(`${base}/update`, h.disabled_at ? "Enable" : "Disable", { disabled: h.disabled_at ? "false" : "true" })}
        ${actionButton(`${base}/delete`, "Delete", {}, { danger: true, confirm: `Delete the webhook to ${h.target_url}? Its pending deliveries are cancelled.` })}
      </div>
      <details class="edit">
        <summary>Edit</summary>
        <form method="post" novalidate action="${base}/update" class="stack" id="edit-${h.id}">
          <label>Target URL <input name="target_url" type="url" value="${h.target_url}" required /></label>
          <label>Event ${eventSelect(`edit-event-${h.id}`, h.event)}</label>
          <div class="row"><button type="submit" class="primary">Save</button></div>
          <span class="result" role="status"></span>
        </form>
      </details>
    </td>
  </tr>`;
}

/** The deliveries list's filters: every filter of GET /_sandbox/webhook-deliveries, same names. */
export interface DeliveryFilterValues {
  status?: string;
  event?: string;
  webhook_id?: string;
  record_id?: string;
}

export function webhooksPage(
  hooks: readonly WebhookView[],
  deliveries: Page<DeliveryView>,
  filters: DeliveryFilterValues,
  hints: Hints,
): Renderable {
  const subscribe = `curl -s ${hints.publicUrl}/webhook -H 'Authorization: Bearer ${hints.apiKey}' -H 'Content-Type: application/json' \\
  -d '{"target_url":"http://127.0.0.1:4000/hooks","event":"*"}'`;
  return html`<h1>Webhooks</h1>
    <section class="card">
      <h2>Add an endpoint</h2>
      <form method="post" novalidate action="/dashboard/webhooks" class="row" id="webhook-create">
        <label class="grow"
          >Target URL <input name="target_url" type="url" placeholder="http://127.0.0.1:4000/hooks" size="40" required
        /></label>
        <label>Event ${eventSelect("create-event", "*")}</label>
        <button type="submit" class="primary">Add endpoint</button>
        <span class="result" role="status"></span>
      </form>
    </section>
    ${
      hooks.length === 0
        ? emptyState(html`No endpoints yet. Add one above, or with curl:`, command(subscribe, "subscribe command"))
        : html`<table class="webhooks">
            <thead>
              <tr>
                <th>Id</th>
                <th>Event</th>
                <th>Target</th>
                <th>State</th>
                <th>Created</th>
                <th><span class="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              ${hooks.map(webhookRow)}
            </tbody>
          </table>`
    }
    <h2>Deliveries</h2>
    <form class="filters" method="get" action="/dashboard/webhooks" aria-label="Filter deliveries">
      <label
        >Status
        <select name="status">
          <option value="">Any</option>
          ${["pending", "delivered", "failed", "cancelled"].map(
            (s) => html`<option value="${s}" ${s === filters.status ? html` selected` : ""}>${s}</option>`,
          )}
        </select></label
      >
      <label
        >Event
        <select name="event">
          <option value="">Any</option>
          ${[...EVENT_CHOICES.slice(1), "test"].map(
            (e) => html`<option value="${e}" ${e === filters.event ? html` selected` : ""}>${e}</option>`,
          )}
        </select></label
      >
      <label>Webhook id <input name="webhook_id" value="${filters.webhook_id ?? ""}" size="12" /></label>
      <label>Record id <input name="record_id" value="${filters.record_id ?? ""}" size="12" /></label>
      <button type="submit">Filter</button> <a href="/dashboard/webhooks">Clear</a>
    </form>
    ${deliveriesTable(deliveries.data, `/dashboard/webhooks${queryString({ ...filters })}`)}
    ${pager("/dashboard/webhooks", deliveries, { ...filters })}`;
}

function headersTable(headers: Record<string, string>, caption: string): SafeHtml {
  const entries = Object.entries(headers);
  if (entries.length === 0) return html`<p class="muted">None recorded.</p>`;
  return html`<table class="headers">
    <caption class="sr-only">
      ${caption}
    </caption>
    <tbody>
      ${entries.map(
        ([name, value]) =>
          html`<tr>
            <td>${name}</td>
            <td class="mono">${value}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** A response body, pretty-printed when it is JSON. */
function prettyBody(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** One delivery: what was sent (headers, the signed payload) and every attempt's answer and timing. */
export function deliveryPage(d: DeliveryView, options: { showBodies: boolean }): Renderable {
  const payload = JSON.stringify(d.payload, null, 2);
  const attempts = [...d.attempt_log].reverse();
  return html`<h1>Delivery ${d.event} ${deliveryStatus(d.status)}</h1>
    <div class="grid">
      <section class="card">
        ${fields([
          ["Delivery id", copyable(d.id, "delivery id")],
          ["Webhook id", copyable(d.webhook_id, "webhook id")],
          ["Record id", copyable(d.record_id, "record id")],
          ["Target", html`<code>${d.target_url}</code>`],
          ["Created", when(d.created_at)],
          ["Delivered", when(d.delivered_at)],
          ["Attempts", `${d.attempts} of ${d.max_attempts}`],
          ["Next attempt", d.status === "pending" ? when(d.next_attempt_at) : ""],
          ["Last error", d.last_error],
          [
            "Redelivery of",
            d.redelivery_of ? html`<a href="${deliveryPath(d.redelivery_of)}">${d.redelivery_of}</a>` : "",
          ],
        ])}
        <div class="row">
          ${actionButton("/dashboard/webhooks/redeliver", "Redeliver", { delivery_id: d.id, back: deliveryPath(d.id) }, { primary: true })}
          <a href="/dashboard/webhooks${queryString({ webhook_id: d.webhook_id })}">All deliveries of this webhook</a>
        </div>
      </section>
      <section class="card">
        <h2>Signed payload</h2>
        <p class="muted">
          The exact bytes were signed: verify <code>PaySandbox-Signature</code> against the raw body, not this
          pretty-printed copy.
        </p>
        ${command(payload, "payload")}
      </section>
    </div>
    <h2>Attempts</h2>
    ${
      attempts.length === 0
        ? emptyState(
            d.status === "pending"
              ? "Not sent yet: it goes out when due (advance the clock to send retries now)."
              : "No attempt was made.",
          )
        : attempts.map(
            (a) =>
              html`<section class="card attempt-card" data-attempt="${String(a.attempt)}">
                <h3>
                  Attempt ${a.attempt} ·
                  ${a.status_code !== null ? badge(`HTTP ${a.status_code}`, a.success ? "ok" : "bad") : badge(a.error ?? "no answer yet", "bad")}
                </h3>
                ${fields([
                  ["Started", when(a.started_at)],
                  ["Took", a.latency_ms !== null ? `${a.latency_ms} ms` : "still out"],
                  ["Error", a.error],
                ])}
                <div class="grid">
                  <div>
                    <h4>Request headers</h4>
                    ${headersTable(a.request_headers, `Request headers of attempt ${a.attempt}`)}
                  </div>
                  <div>
                    <h4>Response headers</h4>
                    ${a.response_headers ? headersTable(a.response_headers, `Response headers of attempt ${a.attempt}`) : html`<p class="muted">No answer.</p>`}
                  </div>
                </div>
                <h4>Response body</h4>
                ${
                  !options.showBodies
                    ? html`<p class="muted">
                        Not shown: this target is not on the allowlist of targets whose answers the sandbox shows.
                      </p>`
                    : a.response_snippet
                      ? html`<pre class="response-body" tabindex="0">${prettyBody(a.response_snippet)}</pre>`
                      : html`<p class="muted">Empty.</p>`
                }
              </section>`,
          )
    }`;
}

// ---- deposits

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
                      <a class="mono" href="/dashboard/transactions${queryString({ batch_id: d.batch_id })}"
                        >${d.batch_id}</a
                      >
                      ${idText(d.batch_id, "batch id")}
                    </td>
                    <td>${d.method}</td>
                    <td>${when(d.settled_at)}</td>
                    <td>${when(d.deposit_at)}</td>
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
