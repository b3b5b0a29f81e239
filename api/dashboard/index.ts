/**
 * The dashboard: server-rendered pages at / and /dashboard/*, a live-refresh event stream, and
 * the few actions it offers (pick a merchant, advance the clock, redeliver a webhook). Loopback
 * only unless --allow-remote; every page is built with the one escaping helper (web/html.ts)
 * and served with a CSP that allows only this origin's scripts and styles.
 */
import { Elysia, t } from "elysia";
import { TEST_BANK, TEST_CARDS } from "../../processor/test-data";
import { formatTimestamp } from "../../lib/time";
import { readSourceFile } from "../../web/embedded";
import { html, type Renderable } from "../../web/html";
import { layout, type LayoutContext, type NavItem } from "../../web/dashboard/layout";
import { DASHBOARD_CSS } from "../../web/dashboard/style";
import { clockPage, keysPage, overviewPage, testCardsPage } from "../../web/dashboard/pages/account";
import { customerPage, customersPage } from "../../web/dashboard/pages/customers";
import { transactionPage, transactionRows, transactionsPage } from "../../web/dashboard/pages/transactions";
import { tryItPage } from "../../web/dashboard/pages/try-it";
import {
  deliveriesTable,
  depositsPage,
  emailsPage,
  emailSummaryTable,
  invoicePage,
  invoicesPage,
  smsPage,
  webhooksPage,
} from "../../web/dashboard/pages/records";
import type { AppDeps } from "../deps";
import { ApiError, ValidationFailed } from "../errors";
import { ErrorBody } from "../models";
import { loopbackOnly } from "../sandbox/index";
import { DashboardService } from "./service";
import type { MerchantRow } from "../merchants/service";

/** The cookie the merchant picker sets. */
export const MERCHANT_COOKIE = "paysandbox_merchant";

/** Only this origin's scripts, styles, frames and requests; no inline script or style at all. */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

/** Client scripts, transpiled once from their TypeScript sources (read from disk or the binary). */
const scripts = new Map<string, string>();
function clientScript(name: "client" | "try"): string {
  let code = scripts.get(name);
  if (code === undefined) {
    const source = readSourceFile(`web/dashboard/${name}.ts`);
    code = new Bun.Transpiler({ loader: "ts", target: "browser" }).transformSync(source);
    scripts.set(name, code);
  }
  return code;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return undefined;
}

/** The origin a page is reached at, for frames and requests the CSP must allow (payjs frames). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}

/** The clock form's limit: a year per click (the API's /_sandbox/clock/advance allows more). */
const MAX_DASHBOARD_ADVANCE = 31_536_000;

const Action = t.Object({ redirect: t.String({ description: "where the dashboard goes next" }) });
const ID = t.Object({ id: t.String({ maxLength: 100 }) });

export function dashboardRoutes(deps: AppDeps) {
  const service = new DashboardService(deps.db, deps.services);

  const nav = (): NavItem[] => [
    { path: "/", label: "Overview" },
    { path: "/dashboard/transactions", label: "Transactions" },
    { path: "/dashboard/invoices", label: "Invoices" },
    { path: "/dashboard/customers", label: "Customers" },
    { path: "/dashboard/emails", label: "E-mails" },
    { path: "/dashboard/sms", label: "SMS" },
    { path: "/dashboard/webhooks", label: "Webhooks" },
    { path: "/dashboard/deposits", label: "Deposits" },
    { path: "/dashboard/clock", label: "Clock" },
    { path: "/dashboard/keys", label: "Keys" },
    { path: "/dashboard/test-cards", label: "Test cards" },
    { path: "/dashboard/try", label: "Try it" },
  ];

  const context = (merchant: MerchantRow, current: string): LayoutContext => ({
    merchant: { id: merchant.id, name: merchant.name, is_default: merchant.is_default === 1 },
    merchants: service.merchants().map((m) => ({ id: m.id, name: m.name, is_default: m.is_default === 1 })),
    nav: nav(),
    current,
  });

  const respond = (
    merchant: MerchantRow,
    path: string,
    page: { title: string; body: Renderable; live?: boolean; scripts?: string[] },
    options: { status?: number; csp?: string } = {},
  ) =>
    new Response(layout(context(merchant, path), page).value, {
      status: options.status ?? 200,
      headers: { ...PAGE_HEADERS, "content-security-policy": options.csp ?? DASHBOARD_CSP },
    });

  const notFoundPage = (merchant: MerchantRow, path: string, what: string) =>
    respond(
      merchant,
      path,
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

  const pickedMerchant = (cookie: string | undefined) => service.merchant(cookieValue(cookie, MERCHANT_COOKIE));

  return (
    new Elysia({ tags: ["Dashboard"], detail: { hide: true } })
      .use(loopbackOnly(deps))
      // Actions accept only same-origin JSON: the app's pipeline refuses the rest (api/guard.ts checkCrossSite).
      .derive({ as: "scoped" }, ({ headers }) => ({ merchant: pickedMerchant(headers.cookie) }))
      .get(
        "/dashboard/assets/dashboard.css",
        () =>
          new Response(DASHBOARD_CSS, {
            headers: { "content-type": "text/css; charset=utf-8", "cache-control": "no-cache" },
          }),
      )
      .get(
        "/dashboard/assets/dashboard.js",
        () =>
          new Response(clientScript("client"), {
            headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" },
          }),
      )
      .get(
        "/dashboard/assets/try.js",
        () =>
          new Response(clientScript("try"), {
            headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" },
          }),
      )
      .get("/", ({ merchant }) => {
        const recent = service.transactions(merchant.id, { page: 1 });
        const stats = deps.db
          .query<{ n: number; approved: number | null; declined: number }, [string]>(
            `SELECT COUNT(*) AS n, SUM(CASE WHEN success = 1 AND is_voided = 0 THEN total_cents END) AS approved,
                    SUM(CASE WHEN success = 0 THEN 1 ELSE 0 END) AS declined
             FROM transactions WHERE merchant_id = ? AND parent_id IS NULL`,
          )
          .get(merchant.id)!;
        const customers = service.customers(merchant.id, 1).total;
        return respond(merchant, "/", {
          title: "Overview",
          body: overviewPage(
            merchant,
            { transactions: stats.n, approvedCents: stats.approved ?? 0, declined: stats.declined ?? 0, customers },
            deps.clock.timestamp(merchant.id),
            recent.total
              ? transactionRows(recent.data.slice(0, 10))
              : html`<div class="empty">No transactions yet.</div>`,
            deps.publicUrl,
          ),
        });
      })
      .get(
        "/dashboard/transactions",
        ({ merchant, query }) => {
          const filters = {
            q: query.q,
            batch: query.batch,
            status: query.status,
            method: query.method,
            from: query.from,
            to: query.to,
          };
          const page = service.transactions(merchant.id, { ...filters, page: query.page });
          return respond(merchant, "/dashboard/transactions", {
            title: "Transactions",
            body: transactionsPage(page, filters),
          });
        },
        {
          query: t.Object({
            q: t.Optional(t.String({ maxLength: 200 })),
            batch: t.Optional(t.String({ maxLength: 100 })),
            status: t.Optional(t.String()),
            method: t.Optional(t.String()),
            from: t.Optional(t.String()),
            to: t.Optional(t.String()),
            page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })),
          }),
        },
      )
      .get(
        "/dashboard/transactions/:id",
        ({ merchant, params }) => {
          const transaction = service.transaction(merchant.id, params.id);
          const path = "/dashboard/transactions";
          if (!transaction) return notFoundPage(merchant, path, "Transaction");
          const deliveries = service.deliveries(merchant.id, 1, { recordId: transaction.id }).data;
          const emails = service.emails(merchant.id, 1, undefined, {
            transactionId: transaction.id,
            invoiceId: transaction.invoice_id || undefined,
          }).data;
          return respond(merchant, path, {
            title: `Transaction ${transaction.id.slice(0, 8)}`,
            body: transactionPage(transaction, {
              invoicePath: transaction.invoice_id
                ? `/dashboard/invoices/${encodeURIComponent(transaction.invoice_id)}`
                : null,
              deliveries: deliveriesTable(deliveries, `/dashboard/transactions/${encodeURIComponent(transaction.id)}`),
              emails: emailSummaryTable(emails),
            }),
          });
        },
        { params: ID },
      )
      .get(
        "/dashboard/customers",
        ({ merchant, query }) =>
          respond(merchant, "/dashboard/customers", {
            title: "Customers",
            body: customersPage(service.customers(merchant.id, query.page ?? 1, query.q), query.q ?? ""),
          }),
        {
          query: t.Object({
            q: t.Optional(t.String({ maxLength: 200 })),
            page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })),
          }),
        },
      )
      .get(
        "/dashboard/customers/:id",
        ({ merchant, params }) => {
          const found = service.customer(merchant.id, params.id);
          const path = "/dashboard/customers";
          if (!found) return notFoundPage(merchant, path, "Customer");
          const transactions = service.transactions(merchant.id, { customerId: params.id, page: 1 });
          return respond(merchant, path, {
            title: found.customer.firstname || "Customer",
            body: customerPage(found.customer, found.paymentMethods, transactions),
          });
        },
        { params: ID },
      )
      .get(
        "/dashboard/invoices",
        ({ merchant, query }) =>
          respond(merchant, "/dashboard/invoices", {
            title: "Invoices",
            body: invoicesPage(service.invoices(merchant.id, query.page ?? 1, query.status), query.status ?? ""),
          }),
        {
          query: t.Object({
            status: t.Optional(t.String({ maxLength: 30 })),
            page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })),
          }),
        },
      )
      .get(
        "/dashboard/invoices/:id",
        ({ merchant, params }) => {
          const invoice = service.invoice(merchant.id, params.id);
          const path = "/dashboard/invoices";
          if (!invoice) return notFoundPage(merchant, path, "Invoice");
          const emails = emailSummaryTable(service.emails(merchant.id, 1, undefined, { invoiceId: invoice.id }).data);
          return respond(merchant, path, {
            title: `Invoice ${invoice.id.slice(0, 8)}`,
            body: invoicePage(invoice, emails),
          });
        },
        { params: ID },
      )
      .get(
        "/dashboard/emails",
        ({ merchant, query }) => {
          const page = service.emails(merchant.id, query.page ?? 1, query.to);
          const current = page.data[0] ?? null;
          return respond(merchant, "/dashboard/emails", {
            title: "E-mail outbox",
            body: emailsPage(page, current, query.to ?? ""),
          });
        },
        {
          query: t.Object({
            to: t.Optional(t.String({ maxLength: 200 })),
            page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })),
          }),
        },
      )
      .get(
        "/dashboard/emails/:id",
        ({ merchant, params }) => {
          const email = service.email(merchant.id, params.id);
          const path = "/dashboard/emails";
          if (!email) return notFoundPage(merchant, path, "E-mail");
          const page = service.emails(merchant.id, 1);
          return respond(merchant, path, { title: email.subject, body: emailsPage(page, email, "") });
        },
        { params: ID },
      )
      .get(
        "/dashboard/emails/:id/body.html",
        ({ merchant, params }) => {
          const email = service.email(merchant.id, params.id);
          if (!email) throw new ApiError("not_found", "E-mail not found.");
          // Shown in a sandboxed frame of the dashboard: no script, no requests, only its own inline styles and data images.
          // Links open in a new tab (the frame may open popups, never run script or reach the dashboard).
          return new Response(`<base target="_blank">${email.html}`, {
            headers: {
              ...PAGE_HEADERS,
              "x-frame-options": "SAMEORIGIN",
              "content-security-policy":
                "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'; sandbox allow-popups allow-popups-to-escape-sandbox",
            },
          });
        },
        { params: ID },
      )
      .get(
        "/dashboard/sms",
        ({ merchant, query }) =>
          respond(merchant, "/dashboard/sms", {
            title: "SMS outbox",
            body: smsPage(service.sms(merchant.id, query.page ?? 1)),
          }),
        { query: t.Object({ page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })) }) },
      )
      .get(
        "/dashboard/webhooks",
        ({ merchant, query }) =>
          respond(merchant, "/dashboard/webhooks", {
            title: "Webhooks",
            body: webhooksPage(
              service.webhooks(merchant.id),
              service.deliveries(merchant.id, query.page ?? 1, { status: query.status }),
              query.status ?? "",
            ),
          }),
        {
          query: t.Object({
            status: t.Optional(t.String({ maxLength: 30 })),
            page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })),
          }),
        },
      )
      .post(
        "/dashboard/webhooks/redeliver",
        ({ merchant, body }) => {
          service.redeliver(merchant.id, body.delivery_id);
          // Back only to a dashboard page: the form's value never sends the browser elsewhere.
          return {
            redirect: body.back && /^\/dashboard\/[\w/?=&%.-]*$/.test(body.back) ? body.back : "/dashboard/webhooks",
          };
        },
        {
          body: t.Object({ delivery_id: t.String({ maxLength: 100 }), back: t.Optional(t.String({ maxLength: 500 })) }),
          response: { 200: Action, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody },
        },
      )
      .get(
        "/dashboard/deposits",
        ({ merchant, query }) =>
          respond(merchant, "/dashboard/deposits", {
            title: "Deposits",
            body: depositsPage(service.deposits(merchant.id, query.page ?? 1)),
          }),
        { query: t.Object({ page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })) }) },
      )
      .get("/dashboard/keys", ({ merchant }) =>
        respond(merchant, "/dashboard/keys", { title: "Keys", body: keysPage(merchant, deps.publicUrl) }),
      )
      .get("/dashboard/test-cards", ({ merchant }) =>
        respond(merchant, "/dashboard/test-cards", { title: "Test cards", body: testCardsPage(TEST_CARDS, TEST_BANK) }),
      )
      .get("/dashboard/clock", ({ merchant }) =>
        respond(merchant, "/dashboard/clock", {
          title: "Clock",
          body: clockPage(
            deps.clock.timestamp(merchant.id),
            deps.clock.offsetMs(merchant.id),
            formatTimestamp(deps.clock.realDate()),
          ),
        }),
      )
      .post(
        "/dashboard/clock/advance",
        ({ merchant, body }) => {
          const seconds = Number(body.seconds);
          if (seconds > MAX_DASHBOARD_ADVANCE) {
            throw new ValidationFailed({
              seconds: [`Advance at most ${MAX_DASHBOARD_ADVANCE} seconds (a year) at a time.`],
            });
          }
          deps.clock.advance(merchant.id, seconds * 1000);
          return { redirect: "/dashboard/clock" };
        },
        {
          body: t.Object({
            seconds: t.Union([
              t.Integer({ minimum: 1, maximum: MAX_DASHBOARD_ADVANCE }),
              t.String({ pattern: "^[1-9][0-9]{0,7}$" }),
            ]),
          }),
          response: { 200: Action, 403: ErrorBody, 422: ErrorBody },
        },
      )
      .get("/dashboard/try", ({ merchant, request }) => {
        // payjs frames come from the sandbox's public URL, which may differ from the address this page was opened at.
        const origins = [...new Set([originOf(request.url), originOf(deps.publicUrl)])].filter(Boolean).join(" ");
        const csp = DASHBOARD_CSP.replace("frame-src 'self'", `frame-src 'self' ${origins}`)
          .replace("connect-src 'self'", `connect-src 'self' ${origins}`)
          .replace("script-src 'self'", `script-src 'self' ${origins}`);
        return respond(
          merchant,
          "/dashboard/try",
          {
            title: "Try it",
            body: tryItPage(merchant.web_payments_token),
            live: false,
            scripts: ["/payjs.js", "/dashboard/assets/try.js"],
          },
          { csp },
        );
      })
      .post(
        "/dashboard/merchant",
        ({ body, set }) => {
          const merchant = service.merchant(body.merchant_id);
          if (merchant.id !== body.merchant_id) throw new ApiError("not_found", "There is no such merchant.");
          set.headers["set-cookie"] =
            `${MERCHANT_COOKIE}=${encodeURIComponent(merchant.id)}; Path=/; SameSite=Strict; HttpOnly; Max-Age=31536000`;
          return { redirect: "/" };
        },
        {
          body: t.Object({ merchant_id: t.String({ maxLength: 100 }) }),
          response: { 200: Action, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody },
        },
      )
      .get("/dashboard/events", ({ merchant, request, server }) => {
        // Bun closes idle connections after 10 s; this stream stays open while the page does.
        server?.timeout(request, 0);
        return new Response(changeStream(deps, service, merchant.id, request.signal), {
          headers: { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" },
        });
      })
  );
}

/** The open live-refresh streams of each app, so a shutdown can end them. */
const openStreams = new WeakMap<AppDeps, Set<() => void>>();

/**
 * Ends every open live-refresh stream (server.ts calls it on SIGINT/SIGTERM: an open dashboard tab
 * would otherwise keep the server's graceful stop waiting forever).
 */
export function closeLiveStreams(deps: AppDeps): void {
  for (const close of [...(openStreams.get(deps) ?? [])]) close();
}

/**
 * Server-sent events: `change` whenever a record of the merchant changes (deps.events) or any row
 * is written (e-mails, SMS, webhook attempts — polled once a second), and a comment every 8 s (under Bun's 10 s idle timeout).
 */
export function changeStream(
  deps: AppDeps,
  service: DashboardService,
  merchantId: string,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cleanup = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      const send = (text: string) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          cleanup();
        }
      };
      send("retry: 2000\n\n");
      let last = service.changeCounter();
      const off = deps.events.on((event) => {
        if (event.merchantId === merchantId) send(`event: change\ndata: ${JSON.stringify({ name: event.name })}\n\n`);
      });
      const poll = setInterval(() => {
        const now = service.changeCounter();
        if (now !== last) {
          last = now;
          send(`event: change\ndata: {"name":"write"}\n\n`);
        }
      }, 1000);
      const heartbeat = setInterval(() => send(": keep-alive\n\n"), 8_000);
      let streams = openStreams.get(deps);
      if (!streams) openStreams.set(deps, (streams = new Set()));
      const close = () => cleanup();
      streams.add(close);
      cleanup = () => {
        if (closed) return;
        closed = true;
        streams.delete(close);
        off();
        clearInterval(poll);
        clearInterval(heartbeat);
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      signal.addEventListener("abort", cleanup, { once: true });
    },
    cancel() {
      cleanup();
    },
  });
}
