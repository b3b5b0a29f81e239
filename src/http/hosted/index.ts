import { Elysia, t } from "elysia";
import type { AppDeps } from "../deps";
import { SETTLED_STATUSES, type InvoiceRow } from "../../services/invoices";
import { hostedPayUrl } from "../../services/mail/receipts";
import { parseJson } from "../../lib/json";
import { formatMoney } from "../../domain/money";
import { html } from "../../lib/html";
import { lineItemsOf, methodLabel, moneyText } from "../../services/mail/receipt-templates";
import { invoiceCustomFields } from "../../services/merchant-options";
import { settingsOf } from "../../services/merchants";
import { renderInvoicePage, type InvoicePageView } from "./invoice-page";
import { renderNothingDuePage, renderPayPage, type PayPageView } from "./pay-page";
import { renderLinkClosedPage, renderLinkPage } from "./link-page";
import { LINK_MESSAGES, recurrenceText } from "../../services/catalog/link-rules";

const HTML_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};

const PAGE_RESPONSES = {
  200: t.String({ contentMediaType: "text/html", description: "An HTML page" }),
  404: t.String({ contentMediaType: "text/html", description: "An HTML page: no such invoice" }),
};

const text = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v) : "");

/** sha256 CSP sources for each inline <script> (no src) of a page we rendered. */
function inlineScriptHashes(body: string): string[] {
  const hashes: string[] = [];
  for (const match of body.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/gi)) {
    hashes.push(`'sha256-${new Bun.CryptoHasher("sha256").update(match[1]!).digest("base64")}'`);
  }
  return hashes;
}

/**
 * The hosted pages' policy: script only from the sandbox (payjs.js) and the page's own inline
 * script by hash, frames and requests only to the sandbox (payjs card frames, pay()), and no
 * framing by any site (the Pay button must not be clickjacked). Styles may be inline: the pages
 * carry their stylesheet and a few style attributes, and a style cannot run script.
 */
export function hostedCsp(body: string, origins: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${origins} ${inlineScriptHashes(body).join(" ")}`.trimEnd(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `frame-src 'self' ${origins}`,
    `connect-src 'self' ${origins}`,
    "form-action 'self'",
    "base-uri 'none'",
    "object-src 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

function page(status: number, body: string, origins = ""): Response {
  return new Response(body, {
    status,
    headers: { ...HTML_HEADERS, "x-frame-options": "DENY", "content-security-policy": hostedCsp(body, origins) },
  });
}

function notFoundPage(what = "Invoice", hint = "Check the link in your receipt."): Response {
  return page(
    404,
    html`<!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <link rel="icon" href="data:," />
          <title>${what} not found</title>
        </head>
        <body>
          <h1>${what} not found</h1>
          <p>${hint}</p>
        </body>
      </html>`.value,
  );
}

/**
 * The customer-facing pages of an invoice: no credentials, the invoice id in the link is the
 * capability (as with a real hosted invoice). Custom fields show only with the merchant's
 * advanced_customization, and only those not marked `visible: false`.
 */
export function hostedRoutes(deps: AppDeps) {
  const { invoices, merchants, paymentLinks } = deps.services;

  const context = async (row: InvoiceRow) => {
    const merchant = (await merchants.find(row.merchant_id))!;
    const record = await invoices.toRecord(deps.db, row);
    const meta = parseJson<Record<string, unknown>>(row.meta, {});
    return {
      merchant,
      record,
      meta,
      // The merchant's Advanced Customization fields with this invoice's values; customer-visible ones only.
      customFields: invoiceCustomFields(
        meta,
        merchant.advanced_customization === 1,
        settingsOf(merchant).custom_fields,
      ).filter((f) => f.visible),
      lineItems: lineItemsOf(meta),
    };
  };

  const isOpen = (row: InvoiceRow) => row.status !== "DELETED" && !SETTLED_STATUSES.includes(row.status);
  const base = () => deps.publicUrl.replace(/\/+$/, "");
  // payjs.js and its frames come from the public URL, which may differ from the address the page was opened at.
  const sandboxOrigin = () => {
    try {
      return new URL(deps.publicUrl).origin;
    } catch {
      return "";
    }
  };

  return new Elysia({ prefix: "/hosted", tags: ["Hosted pages"] })
    .get(
      "/invoice/:id",
      async ({ params }) => {
        const row = await invoices.findHostedRow(params.id);
        if (!row) return notFoundPage();
        await invoices.markViewed(row.merchant_id, row.id);
        const { merchant, record, meta, customFields, lineItems } = await context(row);
        const c = record.customer;
        const view: InvoicePageView = {
          merchantName: merchant.name,
          invoiceId: row.id,
          status: record.status,
          totalCents: row.total_cents,
          totalPaidCents: row.total_paid_cents,
          balanceDueCents: Math.round(record.balance_due * 100),
          invoiceDate: record.invoice_date_at,
          paidAt: record.paid_at,
          dueAt: record.due_at,
          customer: {
            name: `${c.firstname} ${c.lastname}`.trim(),
            company: c.company,
            email: c.email,
            address: [
              c.address_1,
              c.address_2,
              [c.address_city, c.address_state, c.address_zip].filter(Boolean).join(" "),
              c.address_country,
            ].filter(Boolean),
          },
          reference: text(meta.reference),
          memo: text(meta.memo),
          subtotal: moneyText(meta.subtotal),
          tax: moneyText(meta.tax),
          lineItems,
          customFields,
          // Each payment, followed by its captures, voids and refunds.
          transactions: record.child_transactions
            .flatMap((t) => [t, ...t.child_transactions])
            .map((t) => ({
              id: t.id,
              type: t.type,
              success: t.success,
              total: formatMoney(Math.round(t.total * 100) * (t.type === "refund" || t.type === "void" ? -1 : 1)),
              method: methodLabel(t.method, t.payment_method.card_type),
              lastFour: t.last_four,
              date: t.created_at,
              message: t.message,
            })),
          payUrl: isOpen(row) ? hostedPayUrl(base(), row.id) : null,
        };
        return page(200, renderInvoicePage(view), sandboxOrigin());
      },
      {
        params: t.Object({ id: t.String() }),
        response: PAGE_RESPONSES,
        detail: { summary: "The hosted invoice page (HTML): merchant, customer, items, totals, payments" },
      },
    )
    .get(
      "/pay/:id",
      async ({ params }) => {
        const row = await invoices.findHostedRow(params.id);
        if (!row) return notFoundPage();
        await invoices.markViewed(row.merchant_id, row.id);
        const { merchant, record, meta, customFields, lineItems } = await context(row);
        const customer = record.customer;
        const view: PayPageView = {
          merchantName: merchant.name,
          invoiceId: row.id,
          status: record.status,
          totalCents: row.total_cents,
          balanceDueCents: Math.round(record.balance_due * 100),
          lastAttemptMessage: record.payment_attempt_failed ? record.payment_attempt_message : "",
          reference: text(meta.reference),
          memo: text(meta.memo),
          lineItems,
          customFields,
          publicUrl: base(),
          token: merchant.web_payments_token,
          customerId: row.customer_id,
          firstname: customer.firstname,
          lastname: customer.lastname,
          email: row.email ?? customer.email,
          addressZip: customer.address_zip,
          address1: customer.address_1,
          avsZip: merchant.avs_zip === 1,
          avsStreet: merchant.avs_street === 1,
          invoiceUrl: `${row.url}${row.id}`,
          hostedInvoiceUrl: `${base()}/hosted/invoice/${row.id}`,
        };
        return page(200, isOpen(row) ? renderPayPage(view) : renderNothingDuePage(view), sandboxOrigin());
      },
      {
        params: t.Object({ id: t.String() }),
        response: PAGE_RESPONSES,
        detail: {
          summary: "The hosted payment page (HTML) of an open or ATTEMPTED invoice; pays it with payjs.js",
        },
      },
    )
    .get(
      "/link/:id",
      async ({ params }) => {
        const found = await paymentLinks.findHosted(params.id);
        if (!found) return notFoundPage("Payment link", "This payment link does not exist or was deleted.");
        const { row, record } = found;
        const merchant = (await merchants.find(row.merchant_id))!;
        if (record.inactive_reason)
          return page(
            200,
            renderLinkClosedPage(merchant.name, row.common_name, LINK_MESSAGES.notPayable(record.inactive_reason)),
          );
        const meta = record.link_meta;
        return page(
          200,
          renderLinkPage({
            merchantName: merchant.name,
            linkId: row.id,
            name: row.common_name,
            memo: text(meta.memo),
            lineItems: lineItemsOf(meta),
            subtotal: Array.isArray(meta.lineItems) && meta.lineItems.length > 0 ? moneyText(meta.subtotal) : "",
            tax: moneyText(meta.tax),
            amountCents: Number(row.amount_cents),
            editable: meta.isTotalEditable === true,
            tokenizeOnly: meta.tokenizeOnly === true,
            recurrence: recurrenceText(meta, deps.clock.now(row.merchant_id)),
            buttonText: text(meta.buttonText),
            allowCard: meta.areCreditCardsPaymentsAllowed !== false,
            allowBank: meta.areBankPaymentsAllowed !== false || meta.areCreditCardsPaymentsAllowed === false,
            successRedirect: /^https?:\/\//.test(text(meta.successRedirect)) ? text(meta.successRedirect) : "",
            publicUrl: base(),
            token: merchant.web_payments_token,
            avsZip: merchant.avs_zip === 1,
            avsStreet: merchant.avs_street === 1,
          }),
          sandboxOrigin(),
        );
      },
      {
        params: t.Object({ id: t.String() }),
        response: PAGE_RESPONSES,
        detail: {
          summary: "A payment link's hosted page (HTML, its tinyurl): pays it with payjs.js and the card frames",
        },
      },
    );
}
