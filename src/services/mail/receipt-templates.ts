/**
 * Receipt templates: one view model rendered as the HTML part, the plain-text part and the SMS
 * text, so the three always say the same thing. Everything integrator-supplied is escaped.
 */
import { formatMoney, isShowableCents } from "../../domain/money";
import { parseTotalCents } from "../../../packages/rules/validation";
import { html, safeHref, type SafeHtml } from "../../lib/html";

export interface ReceiptLineItem {
  item: string;
  details: string;
  quantity: string;
  price: string;
  amount: string;
}

export interface ReceiptCustomField {
  name: string;
  value: string;
}

/** Everything a receipt shows; built by ReceiptService.view (./receipts.ts) from the invoice or transaction. */
export interface ReceiptView {
  merchantName: string;
  /** "Payment received", "Payment failed", "Refund issued", ... */
  heading: string;
  success: boolean;
  /** The processor's decline message on a failed payment. */
  declineMessage: string | null;
  totalCents: number;
  /**
   * The part of totalCents that is the merchant's credit card surcharge (a refund's: the surcharge
   * it returns); 0 or absent for none.
   */
  surchargeCents?: number;
  /** "Visa", "Bank account", ... */
  methodLabel: string;
  lastFour: string;
  /** YYYY-MM-DD HH:MM:SS UTC */
  date: string;
  reference: string;
  memo: string;
  subtotal: string;
  tax: string;
  lineItems: ReceiptLineItem[];
  /** Only the fields the customer may see (advanced_customization on, visible not false). */
  customFields: ReceiptCustomField[];
  invoiceId: string | null;
  transactionId: string | null;
  /** The hosted invoice (url + id) on success; null when there is no invoice. */
  invoiceLink: string | null;
  /** The hosted payment page of the invoice on failure. */
  payLink: string | null;
  /** The merchant's receipt footer (receipt_footer); "" for none. */
  footer?: string;
}

const BRANDS: Record<string, string> = {
  visa: "Visa",
  mastercard: "Mastercard",
  amex: "American Express",
  discover: "Discover",
  jcb: "JCB",
  diners: "Diners Club",
};

export function methodLabel(method: string, cardType: string | null): string {
  if (method === "bank") return "Bank account (ACH)";
  return (cardType && BRANDS[cardType]) || "Card";
}

/** A meta amount (number or numeric string) as money; other text as given; "" when absent. */
export function moneyText(value: unknown): string {
  if (value === undefined || value === null || value === "") return "";
  if (typeof value === "number" || typeof value === "string") {
    const parsed = parseTotalCents(value);
    if ("cents" in parsed && isShowableCents(parsed.cents)) return formatMoney(parsed.cents);
    if (typeof value === "number" && value === 0) return formatMoney(0);
    return String(value);
  }
  return "";
}

const text = (value: unknown) => (typeof value === "string" || typeof value === "number" ? String(value) : "");

/** meta.lineItems as rows (items that are not objects are left out). */
export function lineItemsOf(meta: Record<string, unknown>): ReceiptLineItem[] {
  const items = Array.isArray(meta.lineItems) ? meta.lineItems : [];
  return items
    .filter((item): item is Record<string, unknown> => typeof item === "object" && item !== null)
    .map((item) => {
      const quantity = typeof item.quantity === "number" || typeof item.quantity === "string" ? item.quantity : "";
      const price = parseTotalCents(item.price);
      const qty = Number(quantity);
      // quantity × price from the merchant's meta may overflow (1e308 × 10): left blank, never "$∞.NaN".
      const product = "cents" in price && quantity !== "" ? price.cents * qty : NaN;
      const amount = isShowableCents(product) ? formatMoney(product) : "";
      return {
        item: text(item.item),
        details: text(item.details),
        quantity: text(quantity),
        price: moneyText(item.price),
        amount,
      };
    });
}

/**
 * meta.invoice_merchant_custom_fields the customer may see: none without the merchant's
 * advanced_customization; with it, every field whose `visible` is not false.
 */
export function visibleCustomFields(
  meta: Record<string, unknown>,
  advancedCustomization: boolean,
): ReceiptCustomField[] {
  if (!advancedCustomization || !Array.isArray(meta.invoice_merchant_custom_fields)) return [];
  return meta.invoice_merchant_custom_fields
    .filter((f): f is Record<string, unknown> => typeof f === "object" && f !== null && f.visible !== false)
    .map((f) => ({ name: text(f.name) || text(f.id), value: text(f.value) }));
}

export function subjectOf(view: ReceiptView): string {
  const amount = formatMoney(view.totalCents);
  return view.success
    ? `${view.heading}: ${amount} to ${view.merchantName}`
    : `${view.heading}: ${amount} to ${view.merchantName}, please try again`;
}

export function renderText(view: ReceiptView): string {
  const lines = [view.merchantName, "", view.heading, ""];
  if (!view.success && view.declineMessage) lines.push(`Reason: ${view.declineMessage}`, "");
  if (view.surchargeCents) {
    lines.push(`Amount: ${formatMoney(view.totalCents - view.surchargeCents)}`);
    lines.push(`Credit card surcharge: ${formatMoney(view.surchargeCents)}`);
  }
  lines.push(`Total: ${formatMoney(view.totalCents)}`);
  lines.push(`Method: ${view.methodLabel}${view.lastFour ? ` ending in ${view.lastFour}` : ""}`);
  lines.push(`Date: ${view.date} UTC`);
  if (view.reference) lines.push(`Reference: ${view.reference}`);
  if (view.memo) lines.push(`Memo: ${view.memo}`);
  if (view.lineItems.length > 0) {
    lines.push("", "Items:");
    for (const li of view.lineItems) {
      const qty = li.quantity ? `${li.quantity} x ` : "";
      const details = li.details ? ` (${li.details})` : "";
      lines.push(
        `- ${qty}${li.item}${details}${li.price ? ` @ ${li.price}` : ""}${li.amount ? ` = ${li.amount}` : ""}`,
      );
    }
  }
  if (view.subtotal) lines.push("", `Subtotal: ${view.subtotal}`);
  if (view.tax) lines.push(`Tax: ${view.tax}`);
  if (view.customFields.length > 0) {
    lines.push("");
    for (const f of view.customFields) lines.push(`${f.name}: ${f.value}`);
  }
  if (view.invoiceId) lines.push("", `Invoice: ${view.invoiceId}`);
  if (view.transactionId) lines.push(`Transaction: ${view.transactionId}`);
  if (view.payLink) lines.push("", `Pay this invoice: ${view.payLink}`);
  if (view.invoiceLink) lines.push("", `View your invoice: ${view.invoiceLink}`);
  if (view.footer) lines.push("", view.footer);
  lines.push("", "Sent by paysandbox: a local sandbox; no real money moved.");
  return lines.join("\n");
}

const row = (label: string, value: string) =>
  value
    ? html`<tr>
        <th align="left" style="padding:4px 12px 4px 0">${label}</th>
        <td>${value}</td>
      </tr>`
    : html``;

export function renderHtml(view: ReceiptView): string {
  const fallback = "about:blank";
  const button = (href: string, label: string) =>
    html`<p>
        <a
          href="${safeHref(href, fallback)}"
          style="display:inline-block;padding:10px 16px;background:#1a56db;color:#fff;text-decoration:none;border-radius:4px"
          >${label}</a
        >
      </p>
      <p style="font-size:12px;color:#555">${href}</p>`;
  const items: SafeHtml = view.lineItems.length
    ? html`<h3>Items</h3>
        <table class="line-items" cellpadding="4" style="border-collapse:collapse;width:100%">
          <thead>
            <tr>
              <th align="left">Item</th>
              <th align="left">Details</th>
              <th align="right">Qty</th>
              <th align="right">Price</th>
              <th align="right">Amount</th>
            </tr>
          </thead>
          <tbody>
            ${view.lineItems.map(
              (li) =>
                html`<tr>
                  <td>${li.item}</td>
                  <td>${li.details}</td>
                  <td align="right">${li.quantity}</td>
                  <td align="right">${li.price}</td>
                  <td align="right">${li.amount}</td>
                </tr>`,
            )}
          </tbody>
        </table>`
    : html``;
  const custom = view.customFields.length
    ? html`<table class="custom-fields" cellpadding="0">
        ${view.customFields.map((f) => row(f.name, f.value))}
      </table>`
    : html``;
  return html`<!doctype html>
    <html>
      <head>
        <meta charset="utf-8" />
        <title>${subjectOf(view)}</title>
      </head>
      <body style="font-family:system-ui,sans-serif;color:#111;max-width:600px;margin:0 auto;padding:16px">
        <h1 style="font-size:20px">${view.merchantName}</h1>
        <h2 style="font-size:18px;color:${view.success ? "#0a7a2f" : "#b42318"}">${view.heading}</h2>
        ${!view.success && view.declineMessage ? html`<p class="decline">${view.declineMessage}</p>` : ""}
        <table cellpadding="0">
          ${view.surchargeCents ? row("Amount", formatMoney(view.totalCents - view.surchargeCents)) : ""}
          ${view.surchargeCents ? row("Credit card surcharge", formatMoney(view.surchargeCents)) : ""}
          ${row("Total", formatMoney(view.totalCents))}
          ${row("Method", `${view.methodLabel}${view.lastFour ? ` ending in ${view.lastFour}` : ""}`)}
          ${row("Date", `${view.date} UTC`)} ${row("Reference", view.reference)} ${row("Memo", view.memo)}
        </table>
        ${items}
        ${
          view.subtotal || view.tax
            ? html`<table cellpadding="0">
                ${row("Subtotal", view.subtotal)} ${row("Tax", view.tax)}
              </table>`
            : ""
        }
        ${custom} ${view.payLink ? button(view.payLink, "Pay this invoice") : ""}
        ${view.invoiceLink ? button(view.invoiceLink, "View your invoice") : ""}
        <p style="font-size:12px;color:#555">
          ${view.invoiceId ? `Invoice ${view.invoiceId}` : ""}${view.transactionId ? ` · Transaction ${view.transactionId}` : ""}
        </p>
        ${view.footer ? html`<p class="receipt-footer" style="white-space:pre-line">${view.footer}</p>` : ""}
        <p style="font-size:12px;color:#555">Sent by paysandbox: a local sandbox; no real money moved.</p>
      </body>
    </html>`.value;
}

/** The SMS receipt: one short line. */
export function renderSms(view: ReceiptView): string {
  const method = `${view.methodLabel}${view.lastFour ? ` ending in ${view.lastFour}` : ""}`;
  const link = view.payLink ?? view.invoiceLink;
  return `${view.merchantName}: ${view.heading.toLowerCase()}, ${formatMoney(view.totalCents)} (${method}) on ${view.date} UTC.${
    view.reference ? ` Ref ${view.reference}.` : ""
  }${view.success ? "" : ` ${view.declineMessage ?? ""}`}${link ? ` ${link}` : ""}`.replace(/\s+/g, " ");
}
