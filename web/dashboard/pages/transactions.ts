import type { Page } from "../../../lib/pagination";
import type { Transaction } from "../../../api/transactions/service";
import { html, type Renderable, type SafeHtml } from "../../html";
import { badge, emptyState, fields, idLink, money, pager } from "../layout";

/** The one word (and tone) a person reads for a transaction's state. */
export function transactionStatus(t: Transaction): SafeHtml {
  if (!t.success) return badge("declined", "bad");
  if (t.is_voided) return badge("voided", "warn");
  if (t.total_refunded > 0) return badge(t.total_refunded >= t.total ? "refunded" : "partially refunded", "warn");
  if (t.pre_auth && !t.is_captured) return badge("authorized", "");
  return t.settled_at ? badge("settled", "ok") : badge("approved", "ok");
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

export interface TransactionFilterValues {
  q?: string;
  batch?: string;
  status?: string;
  method?: string;
  from?: string;
  to?: string;
}

function select(name: string, value: string | undefined, options: readonly [string, string][]): SafeHtml {
  return html`<select name="${name}">
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
            <td>${idLink(`/dashboard/transactions/${encodeURIComponent(t.id)}`, t.id)}</td>
            <td>${t.created_at}</td>
            <td>${t.type}</td>
            <td>${transactionStatus(t)}</td>
            ${showCustomer ? html`<td><a href="/dashboard/customers/${encodeURIComponent(t.customer_id)}">${customerName(t)}</a></td>` : ""}
            <td>${paymentMethodLabel(t)}</td>
            <td class="num">${money(t.total)}</td>
            <td class="num">${t.total_refunded ? money(t.total_refunded) : ""}</td>
            <td>${t.message}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export function transactionsPage(page: Page<Transaction>, filters: TransactionFilterValues): Renderable {
  return html`<h1>Transactions</h1>
    <form class="filters" method="get" action="/dashboard/transactions">
      <label
        >Search <input type="search" name="q" value="${filters.q ?? ""}" placeholder="name, e-mail, last four, id"
      /></label>
      ${filters.batch ? html`<input type="hidden" name="batch" value="${filters.batch}" /><span class="badge">batch ${filters.batch.slice(0, 8)}</span>` : ""}
      <label
        >Status
        ${select("status", filters.status, [
          ["", "Any"],
          ["approved", "Approved"],
          ["declined", "Declined"],
          ["voided", "Voided"],
          ["refunded", "Refunded"],
          ["settled", "Settled"],
          ["unsettled", "Not settled"],
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
      <label>From <input type="date" name="from" value="${filters.from ?? ""}" /></label>
      <label>To <input type="date" name="to" value="${filters.to ?? ""}" /></label>
      <button type="submit">Filter</button> <a href="/dashboard/transactions">Clear</a>
    </form>
    ${
      page.total === 0
        ? emptyState(
            filters.status || filters.method || filters.from || filters.to || filters.q || filters.batch
              ? "No transactions match these filters."
              : html`No transactions yet — take a payment on the <a href="/dashboard/try">try it</a> page, or with curl
                  (see <a href="/dashboard/keys">Keys</a>).`,
          )
        : transactionRows(page.data)
    }
    ${pager("/dashboard/transactions", page, { ...filters })}`;
}

export interface TransactionExtras {
  /** The dashboard page of the transaction's invoice; null when it has none. */
  invoicePath: string | null;
  /** Webhook deliveries of this transaction's events, already rendered. */
  deliveries: Renderable;
  /** E-mails sent about this transaction or its invoice (receipts), already rendered. */
  emails: Renderable;
}

export function transactionPage(t: Transaction, extras: TransactionExtras): Renderable {
  const pm = t.payment_method;
  const c = pm.customer;
  return html`<h1>
      ${t.type === "pre_auth" ? "Pre-authorization" : "Charge"} ${money(t.total)} ${transactionStatus(t)}
    </h1>
    <div class="grid">
      <section class="card">
        <h2>Transaction</h2>
        ${fields([
          ["Id", html`<code>${t.id}</code>`],
          ["Type", t.type],
          ["Amount", money(t.total)],
          ["Refunded", money(t.total_refunded)],
          ["Message", t.message],
          ["Auth id", t.auth_id],
          ["Created", t.created_at],
          ["Settled", t.settled_at],
          ["Batch", t.batch_id],
          ["Refundable", t.is_refundable ? "yes" : "no"],
          ["Voidable", t.is_voidable ? "yes" : "no"],
          ["Receipt e-mailed", t.receipt_email_at],
          ["Meta", html`<code>${JSON.stringify(t.meta)}</code>`],
        ])}
      </section>
      <section class="card">
        <h2>Payment method</h2>
        ${fields([
          ["Id", html`<code>${pm.id}</code>`],
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
          ["E-mail", c.email],
          ["Phone", c.phone],
          ["Address", [c.address_1, c.address_city, c.address_state, c.address_zip].filter(Boolean).join(", ")],
        ])}
        ${
          t.invoice_id
            ? html`<h2>Invoice</h2>
                ${fields([["Id", extras.invoicePath ? html`<a href="${extras.invoicePath}">${t.invoice_id}</a>` : html`<code>${t.invoice_id}</code>`]])}`
            : ""
        }
      </section>
    </div>
    <h2>Refunds, voids and captures</h2>
    ${
      t.child_transactions.length === 0
        ? emptyState("None.")
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
                  html`<tr data-type="${child.type}">
                    <td><code>${child.id.slice(0, 8)}</code></td>
                    <td>${child.created_at}</td>
                    <td>${child.type}</td>
                    <td>${child.success ? badge("succeeded", "ok") : badge("failed", "bad")}</td>
                    <td class="num">${money(child.total)}</td>
                    <td>${child.message}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    <h2>E-mails</h2>
    ${extras.emails}
    <h2>Webhook deliveries</h2>
    ${extras.deliveries}`;
}
