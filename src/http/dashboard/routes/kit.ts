/**
 * What every dashboard route shares: the merchant the picker's cookie names, the page around each
 * body (layout, headers, CSP), the not-found page, the filters a list page reads from its query, and
 * the answer of a form action.
 */
import { t } from "elysia";
import { parse as parseCookies, serialize as serializeCookie } from "cookie";
import { html, type Renderable } from "../../../lib/html";
import { layout, type LayoutContext, type NavItem } from "../layout";
import type { AppDeps } from "../../deps";
import { ErrorBody } from "../../../domain/schemas/records";
import { loopbackOnly } from "../../routes/sandbox";
import { DASHBOARD_PER_PAGE, type DashboardService } from "../../../services/dashboard";
import { pageRequest, type Listing, type PageRequest } from "../../../domain/pagination";
import { pageOf, type Page } from "../../page";
import type { MerchantRow } from "../../../services/merchants";

/** The cookie the merchant picker sets. */
export const MERCHANT_COOKIE = "paysandbox_merchant";

/** Its attributes: every path, never sent cross-site, out of scripts' reach, kept a year. */
export const MERCHANT_COOKIE_OPTIONS = {
  path: "/",
  sameSite: "strict",
  httpOnly: true,
  maxAge: 31_536_000,
} as const;

/**
 * The Set-Cookie value that picks `merchantId`. Read and written with the `cookie` package (the one
 * Elysia's own cookie jar uses) rather than through Elysia's `cookie` context: one hook anywhere
 * that takes `cookie` makes Elysia build a cookie jar for every request of the app, /charge too.
 */
export function merchantCookie(merchantId: string): string {
  return serializeCookie(MERCHANT_COOKIE, merchantId, MERCHANT_COOKIE_OPTIONS);
}

/** Only this origin's scripts, styles, frames and requests; no inline script or style at all. */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

const NAV: readonly NavItem[] = [
  { path: "/", label: "Overview" },
  { path: "/dashboard/transactions", label: "Transactions" },
  { path: "/dashboard/invoices", label: "Invoices" },
  { path: "/dashboard/schedules", label: "Schedules" },
  { path: "/dashboard/customers", label: "Customers" },
  { path: "/dashboard/items", label: "Items" },
  { path: "/dashboard/payment-links", label: "Links" },
  { path: "/dashboard/emails", label: "E-mails" },
  { path: "/dashboard/sms", label: "SMS" },
  { path: "/dashboard/webhooks", label: "Webhooks" },
  { path: "/dashboard/deposits", label: "Deposits" },
  { path: "/dashboard/files", label: "Files" },
  { path: "/dashboard/clock", label: "Clock" },
  { path: "/dashboard/keys", label: "Keys" },
  { path: "/dashboard/settings", label: "Settings" },
  { path: "/dashboard/test-cards", label: "Test cards" },
  { path: "/dashboard/try", label: "Try it" },
];

export const Action = t.Object({
  redirect: t.Optional(t.String({ description: "where the dashboard goes next; absent: it re-renders the page" })),
  message: t.Optional(t.String({ description: "what happened, shown next to the action" })),
});
export const ACTION_RESPONSES = {
  200: Action,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  422: ErrorBody,
} as const;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A query value the page can use, else undefined: a bad filter value shows the list unfiltered, never an error page. */
export const pick = <T extends string>(value: string | undefined, allowed: readonly T[]): T | undefined =>
  allowed.find((v) => v === value);
export const dateOf = (value: string | undefined) => (value && DATE.test(value) ? value : undefined);
export const text = (value: string | undefined) => value?.trim() || undefined;

/** A path back into the dashboard from a form's value; anything else goes to the fallback. */
export function dashboardPath(back: string | undefined, fallback: string): string {
  return back && /^\/(dashboard\/[\w/?=&%.+-]*)?(\?[\w=&%.+-]*)?$/.test(back) ? back : fallback;
}
export const ID = t.Object({ id: t.String({ maxLength: 100 }) });

/** Page `number` of a dashboard list: 50 rows a page, whatever per_page the query says. */
export const dashboardPage = (number = 1): PageRequest => pageRequest({ page: number, per_page: DASHBOARD_PER_PAGE });

/** Page `number` of a dashboard list, read by `list`, in the envelope its pager shows. */
export async function dashboardList<T>(
  number: number | undefined,
  request: Request,
  list: (page: PageRequest) => Promise<Listing<T>>,
): Promise<Page<T>> {
  const page = dashboardPage(number);
  return pageOf(await list(page), page, request.url);
}

/** The pieces every dashboard plugin is built with, made once per app. */
export interface DashboardKit {
  deps: AppDeps;
  service: DashboardService;
  /** A dashboard page: the body in the layout, with the page headers and the CSP (or the one given). */
  respond(
    merchant: MerchantRow,
    path: string,
    request: Request,
    page: { title: string; body: Renderable; live?: boolean; scripts?: string[] },
    options?: { status?: number; csp?: string },
  ): Promise<Response>;
  /** The 404 page for a record the merchant does not have. */
  notFoundPage(merchant: MerchantRow, path: string, request: Request, what: string): Promise<Response>;
  /** What an empty outbox or webhook list shows how to fill: the public URL and the merchant's API key. */
  hints(merchant: MerchantRow): { publicUrl: string; apiKey: string };
}

export function dashboardKit(deps: AppDeps): DashboardKit {
  const service = deps.services.dashboard;

  const context = async (merchant: MerchantRow, current: string, request: Request): Promise<LayoutContext> => {
    const url = new URL(request.url);
    return {
      merchant: { id: merchant.id, name: merchant.name, is_default: merchant.is_default === 1 },
      merchants: (await service.merchants()).map((m) => ({ id: m.id, name: m.name, is_default: m.is_default === 1 })),
      nav: NAV,
      current,
      here: dashboardPath(url.pathname + url.search, "/"),
      now: deps.clock.timestamp(merchant.id),
      version: await service.changeMark(merchant.id),
    };
  };

  const respond = async (
    merchant: MerchantRow,
    path: string,
    request: Request,
    page: { title: string; body: Renderable; live?: boolean; scripts?: string[] },
    options: { status?: number; csp?: string } = {},
  ) =>
    new Response(layout(await context(merchant, path, request), page).value, {
      status: options.status ?? 200,
      headers: { ...PAGE_HEADERS, "content-security-policy": options.csp ?? DASHBOARD_CSP },
    });

  const notFoundPage = (merchant: MerchantRow, path: string, request: Request, what: string) =>
    respond(
      merchant,
      path,
      request,
      {
        title: `${what} not found`,
        body: html`<h1>${what} not found</h1>
          <p class="muted">
            There is no such ${what.toLowerCase()} for the merchant ${merchant.name}. Pick another merchant above, or go
            back to the <a href="/">overview</a>.
          </p>`,
      },
      { status: 404 },
    );

  const hints = (merchant: MerchantRow) => ({ publicUrl: deps.publicUrl, apiKey: merchant.api_key });

  return { deps, service, respond, notFoundPage, hints };
}

/**
 * What every dashboard plugin starts with: loopback clients only unless --allow-remote-sandbox, and
 * `merchant`, the one the picker's cookie names (else the default merchant).
 */
export function dashboardPlugin(kit: DashboardKit) {
  return loopbackOnly(kit.deps).derive({ as: "scoped" }, async ({ headers }) => {
    // A value this page did not set ("%", "%E0%A4%A", JSON) names no merchant: the default one answers.
    const picked = headers.cookie ? parseCookies(headers.cookie)[MERCHANT_COOKIE] : undefined;
    return { merchant: await kit.service.merchant(picked || undefined) };
  });
}
