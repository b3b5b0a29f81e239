/**
 * The dashboard: server-rendered pages at / and /dashboard/*, a live-refresh event stream, and
 * the few actions it offers (pick a merchant, advance the clock, redeliver a webhook). Loopback
 * only unless --allow-remote; every page is built with the one escaping helper (src/lib/html.ts)
 * and served with a CSP that allows only this origin's scripts and styles.
 */
import { Elysia, t } from "elysia";
import { TEST_BANK, TEST_CARDS } from "../../../packages/rules/test-data";
import { formatTimestamp } from "../../domain/time";
import { readSourceFile } from "../../lib/embedded";
import { html, type Renderable } from "../../lib/html";
import { emptyState, layout, type LayoutContext, type NavItem } from "./layout";
import { DASHBOARD_CSS } from "./style";
import { clockPage, keysPage, overviewPage, settingsPage, testCardsPage } from "./pages/account";
import { customerPage, customersPage } from "./pages/customers";
import { firstPaymentSteps, transactionPage, transactionRows, transactionsPage } from "./pages/transactions";
import { tryItPage } from "./pages/try-it";
import { depositsPage } from "./pages/deposits";
import { invoicePage, invoicesPage } from "./pages/invoices";
import { emailsPage, emailSummaryTable, smsPage } from "./pages/outbox";
import { deliveriesTable, deliveryPage, webhooksPage } from "./pages/webhooks";
import type { AppDeps } from "../deps";
import { ApiError, ValidationFailed } from "../../domain/errors";
import { ErrorBody } from "../../domain/schemas/records";
import { assertWithinClockLimit, loopbackOnly } from "../routes/sandbox";
import { DashboardService } from "../../services/dashboard";
import { REGENERABLE_KEYS, settingsOf, type MerchantRow, type RegenerableKey } from "../../services/merchants";
import { invoiceCustomFields } from "../../services/merchant-options";
import { ReceiptService } from "../../services/mail/receipts";
import { parseTotalCents } from "../../../packages/rules/validation";
import { TRANSACTION_STATES, type TransactionFilters, type TransactionState } from "../../services/transactions";
import { DELIVERY_STATUSES, type DeliveryStatus } from "../../domain/schemas/webhooks";
import { formatMoney } from "../../domain/money";
import { WebhookTargets } from "../../services/webhooks/targets";
import { DepositService } from "../../services/deposits";

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
    const source = readSourceFile(`src/http/dashboard/browser/${name}.ts`);
    code = new Bun.Transpiler({ loader: "ts", target: "browser" }).transformSync(source);
    scripts.set(name, code);
  }
  return code;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key !== name) continue;
    // A cookie this page did not set ("%", "%E0%A4%A") is ignored, not a 500 on every page.
    try {
      return decodeURIComponent(rest.join("="));
    } catch {
      return undefined;
    }
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

const Action = t.Object({
  redirect: t.Optional(t.String({ description: "where the dashboard goes next; absent: it re-renders the page" })),
  message: t.Optional(t.String({ description: "what happened, shown next to the action" })),
});
const ACTION_RESPONSES = { 200: Action, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody } as const;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A query value the page can use, else undefined: a bad filter value shows the list unfiltered, never an error page. */
const pick = <T extends string>(value: string | undefined, allowed: readonly T[]): T | undefined =>
  allowed.find((v) => v === value);
const dateOf = (value: string | undefined) => (value && DATE.test(value) ? value : undefined);
const text = (value: string | undefined) => value?.trim() || undefined;

/** A path back into the dashboard from a form's value; anything else goes to the fallback. */
function dashboardPath(back: string | undefined, fallback: string): string {
  return back && /^\/(dashboard\/[\w/?=&%.+-]*)?(\?[\w=&%.+-]*)?$/.test(back) ? back : fallback;
}
const ID = t.Object({ id: t.String({ maxLength: 100 }) });

export function dashboardRoutes(deps: AppDeps) {
  const service = new DashboardService(
    deps.db,
    deps.services,
    deps.mailer,
    new DepositService(deps.db, deps.services.transactions),
  );
  // The dispatcher's own rule decides whose answers the delivery view may show (docs/security.md).
  const targets = new WebhookTargets(deps.config);
  const receipts = new ReceiptService(deps);
  const { transactions, webhooks, merchants } = deps.services;

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
    { path: "/dashboard/settings", label: "Settings" },
    { path: "/dashboard/test-cards", label: "Test cards" },
    { path: "/dashboard/try", label: "Try it" },
  ];

  const context = async (merchant: MerchantRow, current: string, request: Request): Promise<LayoutContext> => {
    const url = new URL(request.url);
    return {
      merchant: { id: merchant.id, name: merchant.name, is_default: merchant.is_default === 1 },
      merchants: (await service.merchants()).map((m) => ({ id: m.id, name: m.name, is_default: m.is_default === 1 })),
      nav: nav(),
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

  /** A money operation as POST /transaction/{id}/… runs it: the transaction service, in one immediate transaction. */
  const operate = async (merchantId: string, id: string, action: "capture" | "void" | "refund", total?: string) => {
    let cents: number | undefined;
    if (total !== undefined && total.trim() !== "") {
      const parsed = parseTotalCents(total.trim());
      if ("error" in parsed) throw new ValidationFailed({ total: [parsed.error] });
      cents = parsed.cents;
    }
    return transactions.operate(merchantId, id, action, cents);
  };

  const pickedMerchant = (cookie: string | undefined) => service.merchant(cookieValue(cookie, MERCHANT_COOKIE));
  const AmountBody = t.Object({ total: t.Optional(t.String({ maxLength: 30 })) });

  return (
    new Elysia({ tags: ["Dashboard"], detail: { hide: true } })
      .use(loopbackOnly(deps))
      // Actions accept only same-origin JSON: the app's pipeline refuses the rest (src/http/guard.ts checkCrossSite).
      .derive({ as: "scoped" }, async ({ headers }) => ({ merchant: await pickedMerchant(headers.cookie) }))
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
      .get("/", async ({ merchant, request }) => {
        const recent = await service.transactions(merchant.id, {}, 1);
        const stats = await service.transactionTotals(merchant.id);
        const customers = (await service.customers(merchant.id, 1)).total;
        return respond(merchant, "/", request, {
          title: "Overview",
          body: overviewPage(
            merchant,
            { transactions: stats.n, approvedCents: stats.approvedCents, declined: stats.declined, customers },
            deps.clock.timestamp(merchant.id),
            recent.total
              ? transactionRows(recent.data.slice(0, 10))
              : emptyState(
                  "No transactions yet.",
                  firstPaymentSteps(deps.publicUrl, merchant.web_payments_token, merchant.api_key),
                ),
            deps.publicUrl,
          ),
        });
      })
      .get(
        "/dashboard/transactions",
        async ({ merchant, query, request }) => {
          const filters = {
            keywords: text(query.keywords),
            startDate: dateOf(query.startDate),
            endDate: dateOf(query.endDate),
            type: pick(query.type, ["charge", "pre_auth", "capture", "void", "refund"] as const),
            success: pick(query.success, ["true", "false"] as const),
            method: pick(query.method, ["card", "bank"] as const),
            customer_id: text(query.customer_id),
            batch_id: text(query.batch_id),
            state: pick(query.state, Object.keys(TRANSACTION_STATES) as TransactionState[]),
          };
          const page = await service.transactions(
            merchant.id,
            {
              keywords: filters.keywords,
              startDate: filters.startDate,
              endDate: filters.endDate,
              type: filters.type,
              success: filters.success === undefined ? undefined : filters.success === "true",
              method: filters.method,
              customerId: filters.customer_id,
              batchId: filters.batch_id,
              state: filters.state,
            },
            query.page ?? 1,
          );
          return respond(merchant, "/dashboard/transactions", request, {
            title: "Transactions",
            body: transactionsPage(
              page,
              filters,
              firstPaymentSteps(deps.publicUrl, merchant.web_payments_token, merchant.api_key),
            ),
          });
        },
        {
          query: t.Object({
            keywords: t.Optional(t.String({ maxLength: 200 })),
            startDate: t.Optional(t.String({ maxLength: 30 })),
            endDate: t.Optional(t.String({ maxLength: 30 })),
            type: t.Optional(t.String({ maxLength: 30 })),
            success: t.Optional(t.String({ maxLength: 10 })),
            method: t.Optional(t.String({ maxLength: 10 })),
            customer_id: t.Optional(t.String({ maxLength: 100 })),
            batch_id: t.Optional(t.String({ maxLength: 100 })),
            state: t.Optional(t.String({ maxLength: 30 })),
            page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })),
          }),
        },
      )
      .get(
        "/dashboard/transactions/:id",
        async ({ merchant, params, request }) => {
          const transaction = await service.transaction(merchant.id, params.id);
          const path = "/dashboard/transactions";
          if (!transaction) return notFoundPage(merchant, path, request, "Transaction");
          const deliveries = (await service.deliveries(merchant.id, 1, { recordId: transaction.id })).data;
          const emails = (
            await service.emails(merchant.id, 1, undefined, {
              transactionId: transaction.id,
              invoiceId: transaction.invoice_id || undefined,
            })
          ).data;
          const invoiceId = transaction.invoice_id ? encodeURIComponent(transaction.invoice_id) : null;
          return respond(merchant, path, request, {
            title: `Transaction ${transaction.id.slice(0, 8)}`,
            body: transactionPage(transaction, {
              invoicePath: invoiceId ? `/dashboard/invoices/${invoiceId}` : null,
              hosted: invoiceId ? { invoice: `/hosted/invoice/${invoiceId}`, pay: `/hosted/pay/${invoiceId}` } : null,
              deliveries: deliveriesTable(deliveries, `/dashboard/transactions/${encodeURIComponent(transaction.id)}`),
              emails: emailSummaryTable(emails),
            }),
          });
        },
        { params: ID },
      )
      .post(
        "/dashboard/transactions/:id/capture",
        async ({ merchant, params, body }) => {
          const record = await operate(merchant.id, params.id, "capture", body.total);
          const captured = record.child_transactions.find((c) => c.type === "capture");
          return { message: `Captured ${formatMoney(Math.round((captured?.total ?? 0) * 100))}.` };
        },
        { params: ID, body: AmountBody, response: ACTION_RESPONSES },
      )
      .post(
        "/dashboard/transactions/:id/void",
        async ({ merchant, params }) => {
          const record = await operate(merchant.id, params.id, "void");
          return { message: `Voided ${formatMoney(Math.round(record.total * 100))}.` };
        },
        { params: ID, body: t.Object({}), response: ACTION_RESPONSES },
      )
      .post(
        "/dashboard/transactions/:id/refund",
        async ({ merchant, params, body }) => {
          const record = await operate(merchant.id, params.id, "refund", body.total);
          const last = record.child_transactions.filter((c) => c.type === "refund").at(-1);
          return { message: `Refunded ${formatMoney(Math.round((last?.total ?? 0) * 100))}.` };
        },
        { params: ID, body: AmountBody, response: ACTION_RESPONSES },
      )
      .post(
        "/dashboard/transactions/:id/receipt-email",
        async ({ merchant, params, body }) => {
          await receipts.emailTransaction(merchant.id, params.id, body.email);
          const sent = (await service.emails(merchant.id, 1, undefined, { transactionId: params.id })).data[0];
          return { message: `Receipt e-mailed${sent ? ` to ${sent.to_address}` : ""}.` };
        },
        { params: ID, body: t.Object({ email: t.Optional(t.String({ maxLength: 254 })) }), response: ACTION_RESPONSES },
      )
      .post(
        "/dashboard/transactions/:id/receipt-sms",
        async ({ merchant, params, body }) => {
          const record = await receipts.smsTransaction(merchant.id, params.id, body.phone);
          const to = body.phone?.trim() || record.payment_method.customer.phone;
          return { message: `Receipt texted to ${to}.` };
        },
        { params: ID, body: t.Object({ phone: t.Optional(t.String({ maxLength: 40 })) }), response: ACTION_RESPONSES },
      )
      .get(
        "/dashboard/customers",
        async ({ merchant, query, request }) =>
          respond(merchant, "/dashboard/customers", request, {
            title: "Customers",
            body: customersPage(
              await service.customers(merchant.id, query.page ?? 1, text(query.keywords)),
              text(query.keywords) ?? "",
            ),
          }),
        {
          query: t.Object({
            keywords: t.Optional(t.String({ maxLength: 200 })),
            page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })),
          }),
        },
      )
      .get(
        "/dashboard/customers/:id",
        async ({ merchant, params, request }) => {
          const found = await service.customer(merchant.id, params.id);
          const path = "/dashboard/customers";
          if (!found) return notFoundPage(merchant, path, request, "Customer");
          const list = await service.transactions(merchant.id, { customerId: params.id }, 1);
          return respond(merchant, path, request, {
            title: found.customer.firstname || "Customer",
            body: customerPage(found.customer, found.paymentMethods, list),
          });
        },
        { params: ID },
      )
      .get(
        "/dashboard/invoices",
        async ({ merchant, query, request }) => {
          const filters = {
            status: text(query.status)?.toUpperCase(),
            customer_id: text(query.customer_id),
            startDate: dateOf(query.startDate),
            endDate: dateOf(query.endDate),
          };
          const page = await service.invoices(merchant.id, query.page ?? 1, {
            status: filters.status,
            customerId: filters.customer_id,
            startDate: filters.startDate,
            endDate: filters.endDate,
          });
          return respond(merchant, "/dashboard/invoices", request, {
            title: "Invoices",
            body: invoicesPage(page, filters),
          });
        },
        {
          query: t.Object({
            status: t.Optional(t.String({ maxLength: 30 })),
            customer_id: t.Optional(t.String({ maxLength: 100 })),
            startDate: t.Optional(t.String({ maxLength: 30 })),
            endDate: t.Optional(t.String({ maxLength: 30 })),
            page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })),
          }),
        },
      )
      .get(
        "/dashboard/invoices/:id",
        async ({ merchant, params, request }) => {
          const invoice = await service.invoice(merchant.id, params.id);
          const path = "/dashboard/invoices";
          if (!invoice) return notFoundPage(merchant, path, request, "Invoice");
          const emails = emailSummaryTable(
            (await service.emails(merchant.id, 1, undefined, { invoiceId: invoice.id })).data,
          );
          return respond(merchant, path, request, {
            title: `Invoice ${invoice.id.slice(0, 8)}`,
            // Every custom field, invisible ones too: this page is the merchant's.
            body: invoicePage(
              invoice,
              emails,
              invoiceCustomFields(
                invoice.meta,
                merchant.advanced_customization === 1,
                settingsOf(merchant).custom_fields,
              ),
            ),
          });
        },
        { params: ID },
      )
      .get(
        "/dashboard/emails",
        async ({ merchant, query, request }) => {
          const page = await service.emails(merchant.id, query.page ?? 1, text(query.to));
          const current = page.data[0] ?? null;
          return respond(merchant, "/dashboard/emails", request, {
            title: "E-mail outbox",
            body: emailsPage(page, current, text(query.to) ?? "", hints(merchant)),
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
        async ({ merchant, params, request }) => {
          const email = await service.email(merchant.id, params.id);
          const path = "/dashboard/emails";
          if (!email) return notFoundPage(merchant, path, request, "E-mail");
          const page = await service.emails(merchant.id, 1);
          return respond(merchant, path, request, {
            title: email.subject,
            body: emailsPage(page, email, "", hints(merchant)),
          });
        },
        { params: ID },
      )
      .get(
        "/dashboard/emails/:id/body.html",
        async ({ merchant, params }) => {
          const email = await service.email(merchant.id, params.id);
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
        async ({ merchant, query, request }) =>
          respond(merchant, "/dashboard/sms", request, {
            title: "SMS outbox",
            body: smsPage(
              await service.sms(merchant.id, query.page ?? 1, text(query.to)),
              text(query.to) ?? "",
              hints(merchant),
            ),
          }),
        {
          query: t.Object({
            to: t.Optional(t.String({ maxLength: 40 })),
            page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })),
          }),
        },
      )
      .get(
        "/dashboard/webhooks",
        async ({ merchant, query, request }) => {
          const filters = {
            status: pick(query.status, DELIVERY_STATUSES),
            event: text(query.event),
            webhook_id: text(query.webhook_id),
            record_id: text(query.record_id),
          };
          const deliveries = await service.deliveries(merchant.id, query.page ?? 1, {
            status: filters.status,
            event: filters.event,
            webhookId: filters.webhook_id,
            recordId: filters.record_id,
          });
          return respond(merchant, "/dashboard/webhooks", request, {
            title: "Webhooks",
            body: webhooksPage(await service.webhooks(merchant.id), deliveries, filters, hints(merchant)),
          });
        },
        {
          query: t.Object({
            status: t.Optional(t.String({ maxLength: 30 })),
            event: t.Optional(t.String({ maxLength: 60 })),
            webhook_id: t.Optional(t.String({ maxLength: 100 })),
            record_id: t.Optional(t.String({ maxLength: 100 })),
            page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })),
          }),
        },
      )
      .get(
        "/dashboard/webhooks/deliveries/:id",
        async ({ merchant, params, request }) => {
          const path = "/dashboard/webhooks";
          const delivery = await service.delivery(merchant.id, params.id);
          if (!delivery) return notFoundPage(merchant, path, request, "Delivery");
          return respond(merchant, path, request, {
            title: `Delivery ${delivery.id.slice(0, 8)}`,
            body: deliveryPage(delivery, {
              showBodies: targets.showsBody(delivery.target_url),
            }),
          });
        },
        { params: ID },
      )
      .post(
        "/dashboard/webhooks",
        async ({ merchant, body }) => {
          const hook = await webhooks.create(merchant.id, body);
          return { message: `Added: ${hook.target_url} receives ${hook.event === "*" ? "every event" : hook.event}.` };
        },
        {
          body: t.Object({ target_url: t.String({ maxLength: 4096 }), event: t.String({ maxLength: 60 }) }),
          response: ACTION_RESPONSES,
        },
      )
      .post(
        "/dashboard/webhooks/:id/update",
        async ({ merchant, params, body }) => {
          const disabled = body.disabled === undefined ? undefined : body.disabled === true || body.disabled === "true";
          const hook = await webhooks.update(merchant.id, params.id, {
            target_url: body.target_url,
            event: body.event,
            disabled,
          });
          return {
            message:
              disabled === undefined ? "Saved." : hook.disabled_at ? "Disabled: it receives nothing new." : "Enabled.",
          };
        },
        {
          params: ID,
          body: t.Object({
            target_url: t.Optional(t.String({ maxLength: 4096 })),
            event: t.Optional(t.String({ maxLength: 60 })),
            disabled: t.Optional(t.Union([t.Boolean(), t.Literal("true"), t.Literal("false")])),
          }),
          response: ACTION_RESPONSES,
        },
      )
      .post(
        "/dashboard/webhooks/:id/delete",
        async ({ merchant, params }) => {
          const hook = await webhooks.delete(merchant.id, params.id);
          return { message: `Deleted the webhook to ${hook.target_url}.`, redirect: "/dashboard/webhooks" };
        },
        { params: ID, body: t.Object({}), response: ACTION_RESPONSES },
      )
      .post(
        "/dashboard/webhooks/:id/test",
        async ({ merchant, params }) => {
          const delivery = await webhooks.sendTest(merchant.id, params.id);
          return { message: "Test event queued.", redirect: `/dashboard/webhooks/deliveries/${delivery.id}` };
        },
        { params: ID, body: t.Object({}), response: ACTION_RESPONSES },
      )
      .post(
        "/dashboard/webhooks/redeliver",
        async ({ merchant, body }) => {
          await service.redeliver(merchant.id, body.delivery_id);
          // Back only to a dashboard page: the form's value never sends the browser elsewhere.
          return { redirect: dashboardPath(body.back, "/dashboard/webhooks") };
        },
        {
          body: t.Object({ delivery_id: t.String({ maxLength: 100 }), back: t.Optional(t.String({ maxLength: 500 })) }),
          response: ACTION_RESPONSES,
        },
      )
      .get(
        "/dashboard/deposits",
        async ({ merchant, query, request }) =>
          respond(merchant, "/dashboard/deposits", request, {
            title: "Deposits",
            body: depositsPage(await service.deposits(merchant.id, query.page ?? 1)),
          }),
        { query: t.Object({ page: t.Optional(t.Integer({ minimum: 1, maximum: 100000 })) }) },
      )
      .get("/dashboard/keys", ({ merchant, request }) =>
        respond(merchant, "/dashboard/keys", request, { title: "Keys", body: keysPage(merchant, deps.publicUrl) }),
      )
      .post(
        "/dashboard/keys/regenerate",
        async ({ merchant, body }) => {
          const keys = body.keys.split(",").map((k) => k.trim());
          const unknown = keys.filter((k) => !(REGENERABLE_KEYS as readonly string[]).includes(k));
          if (unknown.length || keys.length === 0) {
            throw new ValidationFailed({
              keys: [`Expected some of ${REGENERABLE_KEYS.join(", ")}, got ${body.keys}.`],
            });
          }
          // Through the merchants service, which every key lookup goes through: the old keys stop working at once.
          await merchants.regenerateKeys(merchant.id, keys as RegenerableKey[]);
          return { message: "Regenerated: the new values are shown above." };
        },
        { body: t.Object({ keys: t.String({ maxLength: 200 }) }), response: ACTION_RESPONSES },
      )
      .get("/dashboard/settings", ({ merchant, request }) =>
        respond(merchant, "/dashboard/settings", request, { title: "Settings", body: settingsPage(merchant) }),
      )
      .post(
        "/dashboard/settings",
        async ({ merchant, body }) => {
          const days = Number(body.ach_settlement_days);
          // The form's text becomes the API's types; the merchants service checks every value (as for PUT /_sandbox/merchants/{id}/settings).
          await merchants.updateSettings(merchant.id, {
            avs_zip: body.avs_zip,
            avs_street: body.avs_street,
            advanced_customization: body.advanced_customization,
            ach_settlement_days: days,
          });
          return { message: "Settings saved." };
        },
        {
          body: t.Object({
            avs_zip: t.Boolean(),
            avs_street: t.Boolean(),
            advanced_customization: t.Boolean(),
            ach_settlement_days: t.Optional(t.Union([t.Integer(), t.String({ maxLength: 10 })])),
          }),
          response: ACTION_RESPONSES,
        },
      )
      .post(
        "/dashboard/settings/receipts",
        async ({ merchant, body }) => {
          await merchants.updateSettings(merchant.id, {
            receipt_reply_to: body.receipt_reply_to ?? "",
            // One text field: addresses separated by commas (the service splits and checks each).
            receipt_cc: body.receipt_cc ?? "",
            receipt_footer: body.receipt_footer ?? "",
            receipt_send_declined: body.receipt_send_declined,
          });
          return { message: "Receipt options saved." };
        },
        {
          body: t.Object({
            receipt_reply_to: t.Optional(t.String({ maxLength: 300 })),
            receipt_cc: t.Optional(t.String({ maxLength: 2000 })),
            receipt_footer: t.Optional(t.String({ maxLength: 2000 })),
            receipt_send_declined: t.Boolean(),
          }),
          response: ACTION_RESPONSES,
        },
      )
      .post(
        "/dashboard/settings/custom-fields",
        async ({ merchant, body }) => {
          await merchants.saveCustomField(
            merchant.id,
            {
              id: body.id ?? "",
              name: body.name ?? "",
              placeholder: body.placeholder ?? "",
              required: body.required,
              visible: body.visible,
            },
            body.original_id,
          );
          return { message: body.original_id === undefined ? "Custom field added." : "Custom field saved." };
        },
        {
          body: t.Object({
            original_id: t.Optional(t.String({ maxLength: 200 })),
            id: t.Optional(t.String({ maxLength: 200 })),
            name: t.Optional(t.String({ maxLength: 500 })),
            placeholder: t.Optional(t.String({ maxLength: 500 })),
            required: t.Boolean(),
            visible: t.Boolean(),
          }),
          response: ACTION_RESPONSES,
        },
      )
      .post(
        "/dashboard/settings/custom-fields/delete",
        async ({ merchant, body }) => {
          await merchants.removeCustomField(merchant.id, body.id);
          return { message: `Custom field ${body.id} removed.` };
        },
        { body: t.Object({ id: t.String({ maxLength: 200 }) }), response: ACTION_RESPONSES },
      )
      .get("/dashboard/test-cards", ({ merchant, request }) =>
        respond(merchant, "/dashboard/test-cards", request, {
          title: "Test cards",
          body: testCardsPage(TEST_CARDS, TEST_BANK),
        }),
      )
      .get("/dashboard/clock", ({ merchant, request }) =>
        respond(merchant, "/dashboard/clock", request, {
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
        async ({ merchant, body }) => {
          const seconds = Number(body.seconds);
          if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_DASHBOARD_ADVANCE) {
            throw new ValidationFailed({
              seconds: [`Advance by 1 to ${MAX_DASHBOARD_ADVANCE} seconds (a year) at a time.`],
            });
          }
          assertWithinClockLimit(deps, merchant.id, seconds);
          await deps.clock.advance(merchant.id, seconds * 1000);
          return { redirect: dashboardPath(body.back, "/dashboard/clock") };
        },
        {
          body: t.Object({
            seconds: t.Union([
              t.Integer({ minimum: 1, maximum: MAX_DASHBOARD_ADVANCE }),
              t.String({ pattern: "^[0-9]{1,9}$" }),
            ]),
            back: t.Optional(t.String({ maxLength: 500 })),
          }),
          response: ACTION_RESPONSES,
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
          request,
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
        async ({ body, set }) => {
          const merchant = await service.merchant(body.merchant_id);
          if (merchant.id !== body.merchant_id) throw new ApiError("not_found", "There is no such merchant.");
          set.headers["set-cookie"] =
            `${MERCHANT_COOKIE}=${encodeURIComponent(merchant.id)}; Path=/; SameSite=Strict; HttpOnly; Max-Age=31536000`;
          return { redirect: "/" };
        },
        {
          body: t.Object({ merchant_id: t.String({ maxLength: 100 }) }),
          response: ACTION_RESPONSES,
        },
      )
      .get(
        "/dashboard/events",
        ({ merchant, request, server, query }) => {
          // Bun closes idle connections after 10 s; this stream stays open while the page does.
          server?.timeout(request, 0);
          const since = /^\d{1,15}$/.test(query.since ?? "") ? Number(query.since) : undefined;
          return new Response(changeStream(deps, service, merchant.id, request.signal, since), {
            headers: { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" },
          });
        },
        { query: t.Object({ since: t.Optional(t.String({ maxLength: 20 })) }) },
      )
  );
}

/** The open live-refresh streams of each app, so a shutdown can end them. */
const openStreams = new WeakMap<AppDeps, Set<() => void>>();

/**
 * Ends every open live-refresh stream (src/entry/server.ts calls it on SIGINT/SIGTERM: an open dashboard tab
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
  since?: number,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cleanup = () => {};
  return new ReadableStream<Uint8Array>({
    async start(controller) {
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
      let last = await service.changeMark(merchantId);
      // The page was rendered at `since`: what was written between its render and this stream is announced at once.
      if (since !== undefined && since !== last) send(`event: change\ndata: {"name":"write"}\n\n`);
      const off = deps.events.on((_ex, event) => {
        if (event.merchantId === merchantId) send(`event: change\ndata: ${JSON.stringify({ name: event.name })}\n\n`);
      });
      let polling = false;
      const poll = setInterval(() => {
        if (polling) return;
        polling = true;
        service
          .changeMark(merchantId)
          .then((now) => {
            if (now !== last) {
              last = now;
              send(`event: change\ndata: {"name":"write"}\n\n`);
            }
          })
          .catch(() => {})
          .finally(() => (polling = false));
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
