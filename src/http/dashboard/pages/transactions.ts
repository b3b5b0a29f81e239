import type { Page } from "../../page";
import type { Transaction } from "../../../services/transactions";
import type { FiredFault } from "../../../services/faults";
import { DECLINE_REASONS, isDeclineCode } from "../../../../packages/rules/declines";
import { html, type Renderable, type SafeHtml } from "../../../lib/html";
import { badge, command, copyable, emptyState, fields, idLink, idText, money, pager, when } from "../layout";

/** Dollars captured from a pre_auth (its successful capture children); 0 for other types. */
export function capturedAmount(t: Pick<Transaction, "type" | "child_transactions">): number {
  if (t.type !== "pre_auth") return 0;
  const cents = t.child_transactions
    .filter((c) => c.type === "capture" && c.success)
    .reduce((sum, c) => sum + Math.round(c.total * 100), 0);
  return cents / 100;
}

/**
 * The money a transaction moved: a charge's total; a captured pre_auth's captured amount (which
 * may be less than it authorized); an uncaptured pre_auth's authorized total.
 */
export function movedAmount(t: Transaction): number {
  return t.type === "pre_auth" && t.is_captured ? capturedAmount(t) : t.total;
}

/** The one word (and tone) a person reads for a transaction's state. */
export function transactionStatus(t: Transaction): SafeHtml {
  if (!t.success) return badge("declined", "bad");
  if (t.is_voided) return badge("voided", "warn");
  if (t.total_refunded > 0) {
    return badge(t.total_refunded >= movedAmount(t) ? "refunded" : "partially refunded", "warn");
  }
  if (t.pre_auth && !t.is_captured) return badge("authorized", "");
  if (t.pre_auth && capturedAmount(t) < t.total) return badge("partially captured", "ok");
  return t.settled_at ? badge("settled", "ok") : badge("approved", "ok");
}

/** The amount cell: what moved, and for a partial capture what was authorized. */
function amountCell(t: Transaction): Renderable {
  const moved = movedAmount(t);
  return moved !== t.total
    ? html`${money(moved)}<br /><span class="muted">of ${money(t.total)} authorized</span>`
    : money(t.total);
}

export function paymentMethodLabel(t: Pick<Transaction, "payment_method" | "method" | "last_four">): string {
  const pm = t.payment_method;
  if (t.method === "bank")
    return `${pm.bank_name || "Bank"} ${pm.bank_type ?? ""} ••${t.last_four}`.replace(/\s+/g, " ");
  return `${pm.card_type ?? "card"} ••••${t.last_four}`;
}

function customerName(t: Transaction): string {
  const c = t.payment_method.customer;
  return [c.firstname, c.lastname].filter(Boolean).join(" ") || c.email || c.company || "(no name)";
}

/** The list's filters: every filter of GET /transaction (same names), and the dashboard's state. */
export interface TransactionFilterValues {
  keywords?: string;
  startDate?: string;
  endDate?: string;
  type?: string;
  success?: string;
  method?: string;
  customer_id?: string;
  batch_id?: string;
  state?: string;
}

function select(name: string, value: string | undefined, options: readonly [string, string][]): SafeHtml {
  return html`<select name="${name}" id="filter-${name}">
    ${options.map(
      ([v, label]) => html`<option value="${v}" ${v === (value ?? "") ? html` selected` : ""}>${label}</option>`,
    )}
  </select>`;
}

export function transactionRows(list: readonly Transaction[], showCustomer = true): SafeHtml {
  return html`<table class="transactions">
    <thead>
      <tr>
        <th>Id</th>
        <th>Created</th>
        <th>Type</th>
        <th>Status</th>
        ${showCustomer ? html`<th>Customer</th>` : ""}
        <th>Payment method</th>
        <th class="num">Amount</th>
        <th class="num">Refunded</th>
        <th>Message</th>
      </tr>
    </thead>
    <tbody>
      ${list.map(
        (t) =>
          html`<tr data-id="${t.id}">
            <td>${idLink(`/dashboard/transactions/${encodeURIComponent(t.id)}`, t.id, "transaction id")}</td>
            <td>${when(t.created_at)}</td>
            <td>${t.type}</td>
            <td>${transactionStatus(t)}</td>
            ${showCustomer ? html`<td><a href="/dashboard/customers/${encodeURIComponent(t.customer_id)}">${customerName(t)}</a></td>` : ""}
            <td>${paymentMethodLabel(t)}</td>
            <td class="num">${amountCell(t)}</td>
            <td class="num">${t.total_refunded ? money(t.total_refunded) : ""}</td>
            <td>${t.message}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** What to do when there is no transaction yet: the script tag and the curl that make one. */
export function firstPaymentSteps(publicUrl: string, token: string, apiKey: string): SafeHtml {
  const tokenize = `pm=$(curl -s ${publicUrl}/webpayment/${token}/tokenize -H 'Content-Type: application/json' \\
  -d '{"method":"card","card_number":"4111111111111111","card_cvv":"123","card_exp":"1230","person_name":"Ada Lovelace","email":"ada@example.com"}' |
  node -p 'JSON.parse(fs.readFileSync(0)).id')`;
  const chargeIt = `curl -s ${publicUrl}/charge -H 'Authorization: Bearer ${apiKey}' -H 'Content-Type: application/json' \\
  -d '{"payment_method_id":"'"$pm"'","total":10.50}'`;
  return html`<p>Take a payment on the <a href="/dashboard/try">Try it</a> page, or put payjs on your page:</p>
    ${copyable(`<script src="${publicUrl}/payjs.js"></script>`, "script tag")}
    <p>or tokenize a test card and charge it with curl:</p>
    ${command(tokenize, "tokenize command")} ${command(chargeIt, "charge command")}`;
}

export function transactionsPage(
  page: Page<Transaction>,
  filters: TransactionFilterValues,
  start: SafeHtml,
): Renderable {
  const filtered = Object.values(filters).some((v) => v);
  return html`<h1>Transactions</h1>
    <form class="filters" method="get" action="/dashboard/transactions" aria-label="Filter transactions">
      <label
        >Search
        <input
          type="search"
          name="keywords"
          value="${filters.keywords ?? ""}"
          placeholder="name, e-mail, last four, id"
      /></label>
      <label
        >State
        ${select("state", filters.state, [
          ["", "Any"],
          ["approved", "Approved"],
          ["declined", "Declined"],
          ["authorized", "Authorized (not captured)"],
          ["voided", "Voided"],
          ["refunded", "Refunded"],
          ["settled", "Settled"],
          ["unsettled", "Not settled"],
        ])}</label
      >
      <label
        >Type
        ${select("type", filters.type, [
          ["", "Any"],
          ["charge", "Charge"],
          ["pre_auth", "Pre-auth"],
          ["capture", "With a capture"],
          ["void", "With a void"],
          ["refund", "With a refund"],
        ])}</label
      >
      <label
        >Result
        ${select("success", filters.success, [
          ["", "Any"],
          ["true", "Succeeded"],
          ["false", "Failed"],
        ])}</label
      >
      <label
        >Method
        ${select("method", filters.method, [
          ["", "Any"],
          ["card", "Card"],
          ["bank", "Bank (ACH)"],
        ])}</label
      >
      <label>From <input type="date" name="startDate" value="${filters.startDate ?? ""}" /></label>
      <label>To <input type="date" name="endDate" value="${filters.endDate ?? ""}" /></label>
      <label>Customer id <input name="customer_id" value="${filters.customer_id ?? ""}" size="12" /></label>
      <label>Batch id <input name="batch_id" value="${filters.batch_id ?? ""}" size="12" /></label>
      <button type="submit">Filter</button> <a href="/dashboard/transactions">Clear</a>
    </form>
    ${
      page.total === 0
        ? filtered
          ? emptyState(html`No transactions match these filters. <a href="/dashboard/transactions">Clear them</a>.`)
          : emptyState("No transactions yet.", start)
        : transactionRows(page.data)
    }
    ${pager("/dashboard/transactions", page, { ...filters })}`;
}

export interface TransactionExtras {
  /** The dashboard page of the transaction's invoice; null when it has none. */
  invoicePath: string | null;
  /** The hosted pages of the transaction's invoice; null when it has none. */
  hosted: { invoice: string; pay: string } | null;
  /** Webhook deliveries of this transaction's events, already rendered. */
  deliveries: Renderable;
  /** E-mails sent about this transaction or its invoice (receipts), already rendered. */
  emails: Renderable;
  /** Faults (POST /_sandbox/faults) that fired on the request that made this transaction. */
  faults: readonly FiredFault[];
}

const RESULT_WORDS: Record<string, string> = {
  match: "match",
  no_match: "no match",
  unavailable: "unavailable",
  not_provided: "not provided",
};

/** The issuer's checks of a card authorization, as the page shows them; empty for banks and children. */
function checkFields(t: Transaction): [string, Renderable][] {
  if (t.avs_response === null && t.cvv_response === null) return [];
  const word = (result: string | null) => (result === null ? "" : (RESULT_WORDS[result] ?? result));
  return [
    [
      "AVS",
      html`<code>${t.avs_response ?? ""}</code> ${t.avs_message ?? ""}
        <span class="muted">(street ${word(t.avs_street_result)}, postal code ${word(t.avs_zip_result)})</span>`,
    ],
    ["CVV", html`<code>${t.cvv_response ?? ""}</code> ${word(t.cvv_result)}`],
  ];
}

/** The decline's code and whether a retry can succeed (docs/testing-failures.md). */
function declineField(t: Transaction): [string, Renderable][] {
  if (t.success || !t.decline_code) return [];
  const retryable = isDeclineCode(t.decline_code) && DECLINE_REASONS[t.decline_code].retryable;
  return [
    [
      "Decline reason",
      html`<code>${t.decline_code}</code>
        ${retryable ? badge("retryable", "warn") : html`<span class="muted">do not retry</span>`}`,
    ],
  ];
}

/** The faults that fired on the request that made the transaction. */
function faultsSection(faults: readonly FiredFault[]): SafeHtml | string {
  if (faults.length === 0) return "";
  return html`<section class="card" id="faults">
    <h2>Faults</h2>
    <p class="muted">Armed with POST /_sandbox/faults; they fired on the request that made this transaction.</p>
    <table>
      <thead>
        <tr>
          <th>Kind</th>
          <th>Request</th>
          <th>Fired</th>
        </tr>
      </thead>
      <tbody>
        ${faults.map(
          (fault) =>
            html`<tr>
              <td><code>${fault.kind}</code>${fault.latency_ms === null ? "" : ` (${fault.latency_ms} ms)`}</td>
              <td>${fault.method} ${fault.path}</td>
              <td>${when(fault.fired_at)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

/** The actions the transaction's state allows, each a form whose answer shows next to it. */
function transactionActions(t: Transaction, hosted: TransactionExtras["hosted"]): SafeHtml {
  const base = `/dashboard/transactions/${encodeURIComponent(t.id)}`;
  const c = t.payment_method.customer;
  const capturable = t.type === "pre_auth" && t.success && !t.is_captured && !t.is_voided;
  const remaining = Math.round((movedAmount(t) - t.total_refunded) * 100) / 100;
  const settleHint =
    t.success && !t.is_voided && !t.settled_at && (t.type === "charge" || t.is_captured)
      ? html`<p class="muted">
          Refunds open once the transaction settles (card batches settle at midnight UTC):
          <a href="/dashboard/clock">advance the clock</a>, or void it now.
        </p>`
      : "";
  return html`<section class="card actions" aria-labelledby="actions-title">
    <h2 id="actions-title">Actions</h2>
    ${
      capturable
        ? html`<form method="post" novalidate action="${base}/capture" id="capture-form">
            <label
              >Capture amount ($)
              <input
                name="total"
                inputmode="decimal"
                value="${t.total.toFixed(2)}"
                size="10"
                required
                data-label="capture amount"
                data-money
            /></label>
            <button type="submit" class="primary">Capture</button>
            <span class="result" role="status"></span>
          </form>`
        : ""
    }
    ${
      t.is_voidable
        ? html`<form
            method="post"
            novalidate
            action="${base}/void"
            id="void-form"
            data-confirm="Void ${money(t.total)}? A void is always in full and cannot be undone."
          >
            <button type="submit" class="danger">Void ${money(t.total)}</button>
            <span class="result" role="status"></span>
          </form>`
        : ""
    }
    ${
      t.is_refundable
        ? html`<form method="post" novalidate action="${base}/refund" id="refund-form">
            <label
              >Refund amount ($, at most ${money(remaining)})
              <input
                name="total"
                inputmode="decimal"
                value="${remaining.toFixed(2)}"
                size="10"
                required
                data-label="refund amount"
                data-money
            /></label>
            <button type="submit">Refund</button>
            <span class="result" role="status"></span>
          </form>`
        : settleHint
    }
    <form method="post" novalidate action="${base}/receipt-email" id="receipt-email-form">
      <label
        >Receipt e-mail to
        <input name="email" type="email" value="${c.email ?? ""}" size="24" data-label="receipt e-mail address"
      /></label>
      <button type="submit">Send receipt e-mail</button>
      <span class="result" role="status"></span>
    </form>
    <form method="post" novalidate action="${base}/receipt-sms" id="receipt-sms-form">
      <label
        >Receipt SMS to <input name="phone" type="tel" value="${c.phone ?? ""}" size="14" data-label="SMS number"
      /></label>
      <button type="submit">Send receipt SMS</button>
      <span class="result" role="status"></span>
    </form>
    ${
      hosted
        ? html`<p>
            <a href="${hosted.pay}" target="_blank" rel="noopener">Open the hosted pay page ↗</a> ·
            <a href="${hosted.invoice}" target="_blank" rel="noopener">hosted invoice ↗</a>
          </p>`
        : ""
    }
  </section>`;
}

export function transactionPage(t: Transaction, extras: TransactionExtras): Renderable {
  const pm = t.payment_method;
  const c = pm.customer;
  const captured = t.type === "pre_auth" && t.is_captured;
  return html`<h1>
      ${t.type === "pre_auth" ? "Pre-authorization" : "Charge"} ${money(movedAmount(t))} ${transactionStatus(t)}
    </h1>
    <div class="grid">
      <section class="card">
        <h2>Transaction</h2>
        ${fields([
          ["Id", copyable(t.id, "transaction id")],
          ["Type", t.type],
          [t.type === "pre_auth" ? "Authorized" : "Amount", money(t.total)],
          ...(captured ? [["Captured", money(capturedAmount(t))] as const] : []),
          ["Refunded", money(t.total_refunded)],
          ["Message", t.message],
          ...declineField(t),
          ...checkFields(t),
          ["Auth id", t.auth_id ? copyable(t.auth_id, "auth id") : ""],
          ["Created", when(t.created_at)],
          ["Settled", when(t.settled_at)],
          ["Batch", t.batch_id ? copyable(t.batch_id, "batch id") : ""],
          ["Refundable", t.is_refundable ? "yes" : "no"],
          ["Voidable", t.is_voidable ? "yes" : "no"],
          ["Receipt e-mailed", when(t.receipt_email_at)],
          ["Receipt texted", when(t.receipt_sms_at)],
          ["Meta", html`<code>${JSON.stringify(t.meta)}</code>`],
        ])}
      </section>
      ${transactionActions(t, extras.hosted)}
      <section class="card">
        <h2>Payment method</h2>
        ${fields([
          ["Id", copyable(pm.id, "payment method id")],
          ["Method", pm.method],
          ["Brand", pm.card_type],
          ["Last four", t.last_four],
          ["Expires", pm.card_exp],
          ["Bank", pm.bank_name],
          ["Account type", pm.bank_type],
          ["Name", pm.person_name],
        ])}
      </section>
      <section class="card">
        <h2>Customer</h2>
        ${fields([
          [
            "Name",
            html`<a href="/dashboard/customers/${encodeURIComponent(c.id)}"
              >${[c.firstname, c.lastname].filter(Boolean).join(" ") || c.id}</a
            >`,
          ],
          ["Id", copyable(c.id, "customer id")],
          ["E-mail", c.email],
          ["Phone", c.phone],
          ["Address", [c.address_1, c.address_city, c.address_state, c.address_zip].filter(Boolean).join(", ")],
        ])}
        ${
          t.invoice_id
            ? html`<h2>Invoice</h2>
                ${fields([
                  [
                    "Id",
                    extras.invoicePath
                      ? html`<a href="${extras.invoicePath}">${t.invoice_id}</a> ${idText(t.invoice_id, "invoice id")}`
                      : copyable(t.invoice_id, "invoice id"),
                  ],
                ])}`
            : ""
        }
      </section>
    </div>
    <h2>Refunds, voids and captures</h2>
    ${
      t.child_transactions.length === 0
        ? emptyState("None yet: the actions above add them.")
        : html`<table class="children">
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
              ${t.child_transactions.map(
                (child) =>
                  html`<tr data-type="${child.type}" data-id="${child.id}">
                    <td>${idText(child.id, `${child.type} id`)}</td>
                    <td>${when(child.created_at)}</td>
                    <td>${child.type}</td>
                    <td>${child.success ? badge("succeeded", "ok") : badge("failed", "bad")}</td>
                    <td class="num">${money(child.total)}</td>
                    <td>${child.message}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${faultsSection(extras.faults)}
    <h2>E-mails</h2>
    ${extras.emails}
    <h2>Webhook deliveries</h2>
    ${extras.deliveries}`;
}
