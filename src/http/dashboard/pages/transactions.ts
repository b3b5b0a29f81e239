/**
 * The dashboard's transactions: the list with its filters, the rows other pages reuse, the first
 * payment's steps, and the words and amounts a person reads for a transaction. One transaction's
 * page is ./transaction-detail.ts.
 */
import type { Page } from "../../page";
import type { Transaction } from "../../../services/transactions";
import { html, type Renderable, type SafeHtml } from "../../../lib/html";
import { badge, command, copyable, emptyState, idLink, money, pager, when } from "../layout";

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
          ["credit", "Credit"],
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
