/**
 * One transaction's dashboard page: its fields and amounts, the issuer's checks, the decline and
 * whether a retry can succeed, the faults that fired on its request, and the actions its state
 * allows. The list of transactions is ./transactions.ts.
 */
import type { Transaction } from "../../../services/transactions";
import type { FiredFault } from "../../../services/faults";
import type { AdjustmentRow } from "../../../services/adjustments";
import { adjustmentsTable } from "./adjustments";
import { DECLINE_REASONS, isDeclineCode } from "../../../../packages/rules/declines";
import { html, type Renderable, type SafeHtml } from "../../../lib/html";
import { badge, copyable, emptyState, fields, idText, money, when } from "../layout";
import { capturedAmount, movedAmount, transactionStatus } from "./transactions";

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
  /** The deposit adjustments concerning it (an ACH return and its fee, a dispute), oldest first. */
  adjustments: readonly AdjustmentRow[];
  /** Its dispute, already rendered ("" for none). */
  dispute: Renderable;
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
          ...(t.surcharge > 0
            ? [
                [
                  "Surcharge",
                  html`<span class="surcharge">${money(t.surcharge)} (credit card, in the amount)</span>`,
                ] as const,
              ]
            : []),
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
          ["Funding", pm.bin_type],
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
                  ...(t.schedule_id
                    ? ([
                        [
                          "Schedule",
                          html`<a href="/dashboard/schedules/${encodeURIComponent(t.schedule_id)}">${t.schedule_id}</a>
                            ${idText(t.schedule_id, "schedule id")}`,
                        ],
                      ] as [string, Renderable][])
                    : []),
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
                <th class="num">Surcharge</th>
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
                    <td class="num">${child.surcharge > 0 ? money(child.surcharge) : ""}</td>
                    <td>${child.message}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${
      extras.adjustments.length
        ? html`<h2>Returns and adjustments</h2>
            ${adjustmentsTable(extras.adjustments, false, "")}`
        : ""
    }
    ${extras.dispute} ${faultsSection(extras.faults)}
    <h2>E-mails</h2>
    ${extras.emails}
    <h2>Webhook deliveries</h2>
    ${extras.deliveries}`;
}
