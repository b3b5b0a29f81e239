/** The catalog pages: items and payment links, each a list and a detail page. */
import type { Item } from "../../../services/catalog/items";
import type { PaymentLink } from "../../../services/catalog/payment-links";
import { linkRecurrence } from "../../../services/catalog/link-rules";
import type { Page } from "../../page";
import { html, type Renderable } from "../../../lib/html";
import { badge, copyable, emptyState, fields, idLink, money, pager, when } from "../layout";

const itemPath = (id: string) => `/dashboard/items/${encodeURIComponent(id)}`;
const linkPath = (id: string) => `/dashboard/payment-links/${encodeURIComponent(id)}`;

function stockBadge(item: Item): Renderable {
  if (item.is_service) return badge("service");
  if (item.in_stock === 0) return badge("out of stock", "bad");
  if (item.low_stock_alert !== null && item.in_stock <= item.low_stock_alert)
    return badge(`${item.in_stock} (low)`, "warn");
  return html`${item.in_stock}`;
}

export function itemsPage(page: Page<Item>, name: string): Renderable {
  return html`<h1>Catalog items</h1>
    <form class="filters" method="get" action="/dashboard/items">
      <label>Search <input type="search" name="name" value="${name}" placeholder="item name" /></label>
      <button type="submit">Search</button>
    </form>
    ${
      page.total === 0
        ? emptyState(
            name
              ? html`No items match. <a href="/dashboard/items">Show all</a>.`
              : html`No catalog items yet: <code>POST /item</code> with <code>{"item": "…", "price": …}</code> makes
                  one.`,
          )
        : html`<table class="items">
            <thead>
              <tr>
                <th>Id</th>
                <th>Item</th>
                <th>Code</th>
                <th class="num">Price</th>
                <th class="num">In stock</th>
                <th>State</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              ${page.data.map(
                (item) =>
                  html`<tr data-id="${item.id}">
                    <td>${idLink(itemPath(item.id), item.id, "item id")}</td>
                    <td class="name">${item.item}</td>
                    <td>${item.code}</td>
                    <td class="num">${money(item.is_discount ? -item.price : item.price)}</td>
                    <td class="num stock">${stockBadge(item)}</td>
                    <td>${item.is_active ? badge("active", "ok") : badge("inactive", "warn")}</td>
                    <td>${when(item.created_at)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${pager("/dashboard/items", page, { name: name || undefined })}`;
}

export function itemPage(item: Item): Renderable {
  return html`<h1 class="name">${item.item}</h1>
    <section class="card">
      ${fields([
        ["Id", copyable(item.id, "item id")],
        ["Code", item.code],
        ["Category", item.category],
        ["Details", item.details],
        ["Price", money(item.price)],
        ["In stock", stockBadge(item)],
        ["Low stock alert", item.low_stock_alert === null ? "" : String(item.low_stock_alert)],
        [
          "Flags",
          [
            item.is_active ? "active" : "inactive",
            item.is_taxable ? "taxable" : "",
            item.is_service ? "service" : "",
            item.is_discount ? "discount" : "",
          ]
            .filter(Boolean)
            .join(", "),
        ],
        ["Meta", Object.keys(item.meta).length ? JSON.stringify(item.meta) : ""],
        ["Created", when(item.created_at)],
        ["Updated", when(item.updated_at)],
        ["Deleted", when(item.deleted_at)],
      ])}
    </section>`;
}

function linkState(link: PaymentLink): Renderable {
  return link.is_active ? badge("payable", "ok") : badge(link.inactive_reason ?? "inactive", "warn");
}

export function paymentLinksPage(page: Page<PaymentLink>): Renderable {
  return html`<h1>Payment links</h1>
    ${
      page.total === 0
        ? emptyState(
            html`No payment links yet: <code>POST /query/payment-links</code> with
              <code>{"common_name": "…", "amount": …}</code> makes one, with its own payment page.`,
          )
        : html`<table class="payment-links">
            <thead>
              <tr>
                <th>Id</th>
                <th>Name</th>
                <th class="num">Amount</th>
                <th>State</th>
                <th class="num">Uses</th>
                <th class="num">Sales</th>
                <th>Expires</th>
                <th>Page</th>
              </tr>
            </thead>
            <tbody>
              ${page.data.map(
                (link) =>
                  html`<tr data-id="${link.id}">
                    <td>${idLink(linkPath(link.id), link.id, "payment link id")}</td>
                    <td class="name">${link.common_name}</td>
                    <td class="num">${link.amount ? money(link.amount) : "customer enters"}</td>
                    <td class="state">${linkState(link)}</td>
                    <td class="num uses">${link.uses}${link.max_uses === null ? "" : ` / ${link.max_uses}`}</td>
                    <td class="num">${money(link.total_sales)}</td>
                    <td>${when(link.expires_at)}</td>
                    <td><a href="${link.tinyurl}">open</a></td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${pager("/dashboard/payment-links", page, {})}`;
}

/** What paying the link does: a one-off payment, a recurring one (its schedule), or a saved payment method. */
function linkKind(link: PaymentLink): string {
  const meta = link.link_meta;
  if (meta.tokenizeOnly === true) return "saves the payer's payment method (tokenizeOnly), charges nothing";
  // Whether it recurs, not whether its rule still has an occurrence: checked from the epoch.
  const rule = linkRecurrence(meta, new Date(0), {});
  return rule ? `recurring (${rule}): each payment starts an invoice schedule for the payer` : "one payment";
}

export function paymentLinkPage(link: PaymentLink): Renderable {
  return html`<h1 class="name">${link.common_name}</h1>
    <section class="card">
      ${fields([
        ["Id", copyable(link.id, "payment link id")],
        ["Page", html`<a href="${link.tinyurl}">${link.tinyurl}</a>`],
        [
          "Amount",
          link.link_meta.tokenizeOnly === true
            ? "none: nothing is charged"
            : link.amount
              ? money(link.amount)
              : "the customer enters it",
        ],
        ["Kind", linkKind(link)],
        ["State", linkState(link)],
        ["Uses", `${link.uses}${link.max_uses === null ? " (no limit)" : ` of ${link.max_uses}`}`],
        ["Total sales", money(link.total_sales)],
        ["Transactions", String(link.total_transactions)],
        ["Expires", when(link.expires_at)],
        ["Link meta", JSON.stringify(link.link_meta)],
        ["Created", when(link.created_at)],
        ["Updated", when(link.updated_at)],
      ])}
    </section>
    <p>
      <a href="/dashboard/invoices">Invoices</a> paid through this link carry
      <code>meta.payment_link_id = ${link.id}</code>.
    </p>`;
}
