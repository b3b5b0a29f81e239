/** The page frame every dashboard page shares, and the small pieces pages are built from. */
import { formatMoney } from "../../domain/money";
import { html, queryString, type Renderable, type SafeHtml } from "../../lib/html";

export interface NavItem {
  path: string;
  label: string;
}

export interface MerchantChoice {
  id: string;
  name: string;
  is_default: boolean;
}

export interface PageOptions {
  title: string;
  body: Renderable;
  /** Pages with forms a refresh would disturb turn live refresh off. */
  live?: boolean;
  /** Extra scripts (same-origin paths) the page needs, e.g. /payjs.js. */
  scripts?: readonly string[];
}

export interface LayoutContext {
  /** The merchant the dashboard shows. */
  merchant: MerchantChoice;
  merchants: readonly MerchantChoice[];
  nav: readonly NavItem[];
  /** The path of the current page, to mark its nav entry. */
  current: string;
  /** The page's own path and query: where the header's clock control comes back to. */
  here: string;
  /** The merchant's sandbox now, a record timestamp. */
  now: string;
  /** The database's change counter when the page was rendered: the live stream catches up from it. */
  version: number;
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
      <body
        data-live="${page.live === false ? "off" : "on"}"
        data-merchant="${ctx.merchant.id}"
        data-version="${String(ctx.version)}"
      >
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <div class="bar">
            <a class="brand" href="/">paysandbox</a>
            <nav aria-label="Dashboard">
              ${ctx.nav.map((item) => html`<a href="${item.path}" ${isCurrent(item.path) ? html`class="current" aria-current="page"` : ""}>${item.label}</a>`)}
            </nav>
          </div>
          <div class="tools">
            <form class="picker" method="post" action="/dashboard/merchant">
              <label for="merchant-picker">Merchant</label>
              <select id="merchant-picker" name="merchant_id">
                ${ctx.merchants.map(
                  (m) =>
                    html`<option value="${m.id}" ${m.id === ctx.merchant.id ? html` selected` : ""}>
                      ${m.name}${m.is_default ? " (default)" : ""} · ${shortId(m.id)}
                    </option>`,
                )}
              </select>
              <noscript><button type="submit">Switch</button></noscript>
            </form>
            <form class="clock-control" method="post" action="/dashboard/clock/advance">
              <span>Sandbox time <a href="/dashboard/clock" id="header-clock">${when(ctx.now)}</a></span>
              <input type="hidden" name="back" value="${ctx.here}" />
              <label for="header-clock-step">Advance by</label>
              <select id="header-clock-step" name="seconds">
                ${CLOCK_STEPS.map(([label, seconds]) => html`<option value="${String(seconds)}">${label}</option>`)}
              </select>
              <button type="submit">Advance</button>
              <span class="result" role="status"></span>
            </form>
            <span class="live" id="live" title="The page refreshes when records change"
              >${page.live === false ? "" : "live"}</span
            >
          </div>
        </header>
        <main id="main" tabindex="-1">${page.body}</main>
      </body>
    </html> `;
}

/** The clock steps offered in the header of every page and on the clock page. */
export const CLOCK_STEPS: readonly (readonly [string, number])[] = [
  ["+1 hour", 3600],
  ["+1 day", 86400],
  ["+3 days", 3 * 86400],
  ["+7 days", 7 * 86400],
];

/**
 * The one way a record timestamp is shown: "2026-11-23 13:19:39 UTC" in a <time> element
 * (machine-readable ISO in datetime); empty for null.
 */
export function when(timestamp: string | null | undefined): SafeHtml {
  if (!timestamp) return html``;
  const iso = timestamp.length === 10 ? timestamp : `${timestamp.replace(" ", "T")}Z`;
  return html`<time datetime="${iso}">${timestamp} UTC</time>`;
}

/** The one way money is shown ("$1,234.50"), from a number of dollars (API records) or cents. */
export function money(value: number, unit: "dollars" | "cents" = "dollars"): string {
  return formatMoney(unit === "cents" ? value : Math.round(value * 100));
}

/** A status badge: tone ok/bad/warn/neutral. */
export function badge(text: string, tone: "ok" | "bad" | "warn" | "" = ""): SafeHtml {
  return html`<span class="badge ${tone}">${text}</span>`;
}

/** A copy button for a value; `what` names it for screen readers ("Copy API key"). */
export function copyButton(value: string, what: string, label = "Copy"): SafeHtml {
  return html`<button type="button" class="copy" data-copy="${value}" aria-label="Copy ${what}" title="Copy ${what}">
    ${label}
  </button>`;
}

/** A value (key, token, id) shown whole with a copy button next to it. */
export function copyable(value: string, what = "value"): SafeHtml {
  return html`<span class="secret"><code>${value}</code>${copyButton(value, what)}</span>`;
}

/**
 * The part of an id that tells it from its neighbours: its last 8 characters, after an ellipsis.
 * Transaction ids are UUIDv7, whose first 12 hex digits are the time they were made, so ids made
 * the same minute share their head (`01a215ef…` on every row); the tail is random.
 */
export function shortId(id: string): string {
  return id.length <= 12 ? id : `…${id.slice(-8)}`;
}

/** A short id shown in tables, linking to the record's page, with a copy button for the whole id. */
export function idLink(path: string, id: string, what = "id"): SafeHtml {
  return html`<span class="id"
    ><a class="mono" href="${path}" title="${id}">${shortId(id)}</a>${copyButton(id, `${what} ${id}`)}</span
  >`;
}

/** A short id without a page of its own, with a copy button for the whole id. */
export function idText(id: string, what = "id"): SafeHtml {
  return html`<span class="id"><code title="${id}">${shortId(id)}</code>${copyButton(id, `${what} ${id}`)}</span>`;
}

/** What a list shows when it has nothing: what to do next (a curl, a script tag, a link). */
export function emptyState(text: Renderable, next?: Renderable): SafeHtml {
  return html`<div class="empty">
    <p>${text}</p>
    ${next ? html`<div class="next">${next}</div>` : ""}
  </div>`;
}

/** A shell command shown in a block with a copy button. */
export function command(text: string, what: string): SafeHtml {
  return html`<div class="command">
    <pre tabindex="0">${text}</pre>
    ${copyButton(text, what)}
  </div>`;
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
  return html`<nav class="pager" aria-label="Pages">
    ${page.current_page > 1 ? html`<a href="${link(page.current_page - 1)}" rel="prev">← Previous</a>` : ""}
    <span>${page.total === 0 ? "No records" : `${page.from}–${page.to} of ${page.total}`}</span>
    ${page.current_page < page.last_page ? html`<a href="${link(page.current_page + 1)}" rel="next">Next →</a>` : ""}
  </nav>`;
}

/**
 * A small POST form with one button (redeliver, void, delete, ...). The dashboard script sends
 * it as same-origin JSON and shows the answer (or the error) in the form's result slot.
 */
export function actionButton(
  action: string,
  label: string,
  hidden: Record<string, string> = {},
  options: { primary?: boolean; confirm?: string; danger?: boolean } = {},
): SafeHtml {
  const tone = options.primary ? "primary" : options.danger ? "danger" : "";
  return html`<form
    method="post"
    novalidate
    action="${action}"
    class="inline"
    ${options.confirm ? html`data-confirm="${options.confirm}"` : ""}
  >
    ${Object.entries(hidden).map(
      ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
    )}<button type="submit" class="${tone}">${label}</button><span class="result" role="status"></span>
  </form>`;
}
