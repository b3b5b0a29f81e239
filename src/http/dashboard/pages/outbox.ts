/**
 * The dashboard's e-mail and SMS outboxes: what the sandbox sent (receipts, invoices), as a list,
 * one message, or a summary table on a record's page.
 */
import type { EmailView, SmsView } from "../../../services/dashboard";
import type { Page } from "../../page";
import { ccOf } from "../../../services/mail/mailer";
import { html, type Renderable, type SafeHtml } from "../../../lib/html";
import { command, copyable, emptyState, fields, idLink, pager, when } from "../layout";
import type { Hints } from "./hints";

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
