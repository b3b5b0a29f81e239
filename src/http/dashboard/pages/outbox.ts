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

/** The views of one e-mail, as Mailpit has them. */
export const EMAIL_VIEWS = ["html", "text", "headers", "raw", "attachments", "links"] as const;
export type EmailViewName = (typeof EMAIL_VIEWS)[number];

/** An e-mail's MIME message taken apart (src/http/dashboard/routes/outbox-pages.ts, with mailparser). */
export interface EmailParts {
  text: string;
  /** Every header line as sent, unfolded: name and value. */
  headers: readonly (readonly [string, string])[];
  raw: string;
  attachments: readonly { filename: string; contentType: string; size: number }[];
  /**
   * Every href of the HTML part, in order, with the path the sandbox answers it on when it points
   * at the sandbox (`check`), or null when it points elsewhere.
   */
  links: readonly { href: string; check: string | null }[];
}

export function emailsPage(
  page: Page<EmailView>,
  current: { email: EmailView; parts: EmailParts; view: EmailViewName } | null,
  to: string,
  hints: Hints,
): Renderable {
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
            <div>${emailList(page.data, current?.email.id)}${pager("/dashboard/emails", page, { to })}</div>
            <div>
              ${current ? emailView(current.email, current.parts, current.view) : html`<div class="empty">Pick an e-mail.</div>`}
            </div>
          </div>`
    }`;
}

function bytes(size: number): string {
  return size < 1024 ? `${size} B` : `${(size / 1024).toFixed(1)} KB`;
}

/** One e-mail: who and when, then one view of it (HTML, text, headers, raw source, attachments, links). */
export function emailView(e: EmailView, parts: EmailParts, view: EmailViewName): SafeHtml {
  const id = encodeURIComponent(e.id);
  const tabs: [EmailViewName, string][] = [
    ["html", "HTML"],
    ["text", "Text"],
    ["headers", `Headers (${parts.headers.length})`],
    ["raw", "Raw source"],
    ["attachments", `Attachments (${parts.attachments.length})`],
    ["links", `Links (${parts.links.length})`],
  ];
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
    <nav class="views" aria-label="Views of this e-mail">
      ${tabs.map(
        ([name, label]) =>
          html`<a
            href="/dashboard/emails/${id}${name === "html" ? "" : `?view=${name}`}"
            ${name === view ? html`aria-current="page" class="current"` : ""}
            >${label}</a
          >`,
      )}
    </nav>
    <div class="email-view" data-view="${view}">${emailViewBody(e, parts, view)}</div>`;
}

function emailViewBody(e: EmailView, parts: EmailParts, view: EmailViewName): Renderable {
  const id = encodeURIComponent(e.id);
  switch (view) {
    case "html":
      return html`<iframe
        class="mail"
        title="The e-mail's HTML"
        sandbox="allow-popups allow-popups-to-escape-sandbox"
        src="/dashboard/emails/${id}/body.html"
      ></iframe>`;
    case "text":
      return parts.text
        ? html`<pre class="mail-text" tabindex="0">${parts.text}</pre>`
        : emptyState("This e-mail has no text part.");
    case "headers":
      return html`<table class="headers mail-headers">
        <caption class="sr-only">
          The e-mail's headers, as sent
        </caption>
        <tbody>
          ${parts.headers.map(
            ([name, value]) =>
              html`<tr>
                <td>${name}</td>
                <td class="mono">${value}</td>
              </tr>`,
          )}
        </tbody>
      </table>`;
    case "raw":
      return html`<p class="muted">
          The MIME message as the sandbox composed it (and relays it with <code>--smtp</code>).
        </p>
        ${command(parts.raw, "raw source")}`;
    case "attachments":
      return parts.attachments.length === 0
        ? emptyState("No attachments: the sandbox's receipts and invoices are HTML and text only.")
        : html`<table class="attachments">
            <thead>
              <tr>
                <th>File</th>
                <th>Type</th>
                <th class="num">Size</th>
              </tr>
            </thead>
            <tbody>
              ${parts.attachments.map(
                (a) =>
                  html`<tr>
                    <td>${a.filename}</td>
                    <td>${a.contentType}</td>
                    <td class="num">${bytes(a.size)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`;
    case "links":
      return parts.links.length === 0
        ? emptyState("This e-mail links nowhere.")
        : html`<p class="muted">
              Each link to the sandbox is requested as the customer's browser would (without the dashboard's cookie);
              links elsewhere are listed, not followed.
            </p>
            <table class="links">
              <thead>
                <tr>
                  <th>Link</th>
                  <th>Check</th>
                </tr>
              </thead>
              <tbody>
                ${parts.links.map(
                  (link) =>
                    html`<tr>
                      <td class="mono"><a href="${link.href}" target="_blank" rel="noopener">${link.href}</a></td>
                      <td>
                        ${
                          link.check
                            ? html`<span class="link-check" data-check="${link.check}" role="status">checking…</span>`
                            : html`<span class="muted">not checked: not a sandbox address</span>`
                        }
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`;
  }
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
