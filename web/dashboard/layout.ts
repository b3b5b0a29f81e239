/** The page frame every dashboard page shares, and the small pieces pages are built from. */
import { formatMoney } from "../../lib/money";
import { html, queryString, type Renderable, type SafeHtml } from "../html";

export interface NavItem {
  path: string;
  label: string;
}

export interface MerchantChoice {
  id: string;
  name: string;
  is_default: boolean;
}

export interface LayoutContext {
  /** The merchant the dashboard shows. */
  merchant: MerchantChoice;
  merchants: readonly MerchantChoice[];
  nav: readonly NavItem[];
  /** The path of the current page, to mark its nav entry. */
  current: string;
}

export interface PageOptions {
  title: string;
  body: Renderable;
  /** Pages with forms a refresh would disturb turn live refresh off. */
  live?: boolean;
  /** Extra scripts (same-origin paths) the page needs, e.g. /payjs.js. */
  scripts?: readonly string[];
}

export function layout(ctx: LayoutContext, page: PageOptions): SafeHtml {
  const isCurrent = (path: string) => (path === "/" ? ctx.current === "/" : ctx.current.startsWith(path));
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${page.title} · paysandbox</title>
        <link rel="stylesheet" href="/dashboard/assets/dashboard.css" />
        <link rel="icon" href="data:," />
        ${(page.scripts ?? []).map((src) => html`<script src="${src}" type="${src.startsWith("/dashboard/") ? "module" : "text/javascript"}"></script> `)}
        <script src="/dashboard/assets/dashboard.js" type="module"></script>
      </head>
      <body data-live="${page.live === false ? "off" : "on"}" data-merchant="${ctx.merchant.id}">
        <header class="top">
          <a class="brand" href="/">paysandbox</a>
          <nav>
            ${ctx.nav.map((item) => html`<a href="${item.path}" class="${isCurrent(item.path) ? "current" : ""}">${item.label}</a>`)}
          </nav>
          <form class="picker" method="post" action="/dashboard/merchant">
            <label class="muted" for="merchant-picker">Merchant</label>
            <select id="merchant-picker" name="merchant_id">
              ${ctx.merchants.map(
                (m) =>
                  html`<option value="${m.id}" ${m.id === ctx.merchant.id ? html` selected` : ""}>
                    ${m.name}${m.is_default ? " (default)" : ""} · ${m.id.slice(0, 8)}
                  </option>`,
              )}
            </select>
            <noscript><button type="submit">Switch</button></noscript>
          </form>
          <span class="live" id="live" title="The page refreshes when records change"
            >${page.live === false ? "" : "live"}</span
          >
        </header>
        <main id="main">${page.body}</main>
      </body>
    </html> `;
}

/** A money amount in dollars from a number of dollars (API records) or cents. */
export function money(value: number, unit: "dollars" | "cents" = "dollars"): string {
  return formatMoney(unit === "cents" ? value : Math.round(value * 100));
}

/** A status badge: tone ok/bad/warn/neutral. */
export function badge(text: string, tone: "ok" | "bad" | "warn" | "" = ""): SafeHtml {
  return html`<span class="badge ${tone}">${text}</span>`;
}

/** A value with a copy button next to it. */
export function copyable(value: string, label = "Copy"): SafeHtml {
  return html`<span class="secret"
    ><code>${value}</code><button type="button" data-copy="${value}">${label}</button></span
  >`;
}

/** A short id shown in tables, linking to the record's page. */
export function idLink(path: string, id: string): SafeHtml {
  return html`<a class="mono" href="${path}" title="${id}">${id.slice(0, 8)}</a>`;
}

export function emptyState(text: Renderable): SafeHtml {
  return html`<div class="empty">${text}</div>`;
}

/** Key/value rows. */
export function fields(rows: readonly (readonly [string, Renderable])[]): SafeHtml {
  return html`<dl class="fields">
    ${rows.map(
      ([k, v]) =>
        html`<dt>${k}</dt>
          <dd>${v === "" || v === null || v === undefined ? html`<span class="muted">—</span>` : v}</dd>`,
    )}
  </dl>`;
}

export interface Paging {
  current_page: number;
  last_page: number;
  total: number;
  from: number | null;
  to: number | null;
}

/** Previous/next links keeping the other filters. */
export function pager(path: string, page: Paging, params: Record<string, string | undefined>): SafeHtml {
  const link = (n: number) => `${path}${queryString({ ...params, page: n })}`;
  return html`<div class="pager">
    ${page.current_page > 1 ? html`<a href="${link(page.current_page - 1)}" rel="prev">← Previous</a>` : ""}
    <span>${page.total === 0 ? "No records" : `${page.from}–${page.to} of ${page.total}`}</span>
    ${page.current_page < page.last_page ? html`<a href="${link(page.current_page + 1)}" rel="next">Next →</a>` : ""}
  </div>`;
}

/** A small POST form with one button (actions: redeliver, advance the clock, ...). */
export function actionButton(
  action: string,
  label: string,
  hidden: Record<string, string> = {},
  primary = false,
): SafeHtml {
  return html`<form method="post" action="${action}" class="inline">
    ${Object.entries(hidden).map(
      ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
    )}<button type="submit" class="${primary ? "primary" : ""}">${label}</button>
  </form>`;
}
