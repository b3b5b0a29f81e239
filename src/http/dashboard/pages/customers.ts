import type { Customer } from "../../../services/customers";
import type { PaymentMethod } from "../../../services/payment-methods";
import type { Transaction } from "../../../services/transactions";
import type { Page } from "../../page";
import { html, type Renderable } from "../../../lib/html";
import { copyable, emptyState, fields, idLink, idText, pager, when } from "../layout";
import { transactionRows } from "./transactions";

export function customerName(c: Customer): string {
  return [c.firstname, c.lastname].filter(Boolean).join(" ") || c.company || c.email || "(no name)";
}

export function customersPage(page: Page<Customer>, keywords: string): Renderable {
  return html`<h1>Customers</h1>
    <form class="filters" method="get" action="/dashboard/customers">
      <label
        >Search <input type="search" name="keywords" value="${keywords}" placeholder="name, e-mail, company, phone"
      /></label>
      <button type="submit">Search</button>
    </form>
    ${
      page.total === 0
        ? keywords
          ? emptyState(html`No customers match. <a href="/dashboard/customers">Show all</a>.`)
          : emptyState(
              html`No customers yet: tokenizing a card creates one (payjs's <code>tokenize()</code> or
                <code>pay()</code>, or the curl on the <a href="/dashboard/keys">Keys</a> page).`,
            )
        : html`<table class="customers">
            <thead>
              <tr>
                <th>Id</th>
                <th>Name</th>
                <th>E-mail</th>
                <th>Phone</th>
                <th>Company</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              ${page.data.map(
                (c) =>
                  html`<tr data-id="${c.id}">
                    <td>${idLink(`/dashboard/customers/${encodeURIComponent(c.id)}`, c.id, "customer id")}</td>
                    <td class="name">${customerName(c)}</td>
                    <td>${c.email}</td>
                    <td>${c.phone}</td>
                    <td>${c.company}</td>
                    <td>${when(c.created_at)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${pager("/dashboard/customers", page, { keywords })}`;
}

export function customerPage(
  c: Customer,
  methods: readonly PaymentMethod[],
  transactions: Page<Transaction>,
): Renderable {
  return html`<h1 class="name">${customerName(c)}</h1>
    <div class="grid">
      <section class="card">
        ${fields([
          ["Id", copyable(c.id, "customer id")],
          ["First name", c.firstname],
          ["Last name", c.lastname],
          ["Company", c.company],
          ["E-mail", c.email],
          ["Phone", c.phone],
          [
            "Address",
            [c.address_1, c.address_2, c.address_city, c.address_state, c.address_zip, c.address_country]
              .filter(Boolean)
              .join(", "),
          ],
          ["Reference", c.reference],
          ["Notes", c.notes],
          ["Created", when(c.created_at)],
          ["Deleted", when(c.deleted_at)],
        ])}
      </section>
      <section class="card">
        <h2>Payment methods</h2>
        ${
          methods.length === 0
            ? html`<p class="muted">None.</p>`
            : html`<table>
                <thead>
                  <tr>
                    <th>Method</th>
                    <th>Details</th>
                    <th>Created</th>
                  </tr>
                </thead>
                <tbody>
                  ${methods.map(
                    (pm) =>
                      html`<tr>
                        <td>${pm.method}</td>
                        <td>
                          ${pm.method === "card" ? `${pm.card_type} ••••${pm.card_last_four} exp ${pm.card_exp}` : `${pm.bank_name ?? "Bank"} ${pm.bank_type}`}
                          ${idText(pm.id, "payment method id")}
                        </td>
                        <td>${when(pm.created_at)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
      </section>
    </div>
    <h2>Transactions</h2>
    ${
      transactions.total === 0
        ? emptyState(html`No transactions. <a href="/dashboard/try">Take a payment</a> for this customer's card.`)
        : html`${transactionRows(transactions.data, false)}
            <p>
              <a href="/dashboard/transactions?customer_id=${encodeURIComponent(c.id)}"
                >All of this customer's transactions →</a
              >
            </p>`
    }`;
}
