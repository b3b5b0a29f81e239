/**
 * What the hosted pages share: the page frame and its style, and the tables of an invoice's line
 * items, custom fields and label/value rows. Every value is escaped by the `html` tag, and values
 * handed to a page script are JSON-encoded so they cannot close the script element.
 */
import { html, SafeHtml } from "../../lib/html";
import type { ReceiptCustomField, ReceiptLineItem } from "../../services/mail/receipt-templates";

const STYLE = `
body{font-family:system-ui,sans-serif;color:#111;background:#f6f7f9;margin:0}
main{max-width:720px;margin:24px auto;background:#fff;padding:24px 32px;border-radius:8px;box-shadow:0 1px 3px #0002}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}
table{border-collapse:collapse;width:100%}th,td{padding:6px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
td.num,th.num{text-align:right}
.status{display:inline-block;padding:2px 10px;border-radius:12px;font-weight:600;font-size:13px;background:#eee}
.status-PAID{background:#d1fadf;color:#05603a}.status-ATTEMPTED{background:#fee4e2;color:#912018}
.status-REFUNDED,.status-PARTIALLY_REFUNDED,.status-VOIDED{background:#fef0c7;color:#93370d}
.muted{color:#666;font-size:13px}.error{color:#b42318}.ok{color:#05603a}
label{display:block;margin:10px 0 4px;font-size:14px}input,select{font:inherit;padding:6px 8px;width:100%;box-sizing:border-box}
.row{display:flex;gap:12px}.row>div{flex:1}
.frame{height:42px}
button{font:inherit;padding:10px 18px;margin-top:16px;background:#1a56db;color:#fff;border:0;border-radius:4px;cursor:pointer}
button:disabled{background:#9ab}
a.button{display:inline-block;padding:10px 18px;background:#1a56db;color:#fff;text-decoration:none;border-radius:4px}
`;

export function layout(title: string, body: SafeHtml, script: SafeHtml = html``): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <link rel="icon" href="data:," />
        <title>${title}</title>
        <style>
          ${new SafeHtml(STYLE)}
        </style>
        ${script}
      </head>
      <body>
        <main>${body}</main>
      </body>
    </html>`.value;
}

/** JSON for an inline script: no "</script>", no line separators that end a JS string. */
export function scriptJson(value: unknown): SafeHtml {
  return new SafeHtml(
    JSON.stringify(value)
      .replace(/</g, "\\u003c")
      .replace(/>/g, "\\u003e")
      .replace(/&/g, "\\u0026")
      .replace(/\u2028/g, "\\u2028")
      .replace(/\u2029/g, "\\u2029"),
  );
}

export function lineItemsTable(items: ReceiptLineItem[]): SafeHtml {
  if (items.length === 0) return html``;
  return html`<h2>Items</h2>
    <table class="line-items">
      <thead>
        <tr>
          <th>Item</th>
          <th>Details</th>
          <th class="num">Qty</th>
          <th class="num">Price</th>
          <th class="num">Amount</th>
        </tr>
      </thead>
      <tbody>
        ${items.map(
          (li) =>
            html`<tr>
              <td>${li.item}</td>
              <td>${li.details}</td>
              <td class="num">${li.quantity}</td>
              <td class="num">${li.price}</td>
              <td class="num">${li.amount}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

export function customFieldsTable(fields: ReceiptCustomField[]): SafeHtml {
  if (fields.length === 0) return html``;
  return html`<table class="custom-fields">
    ${fields.map(
      (f) =>
        html`<tr>
          <th>${f.name}</th>
          <td>${f.value}</td>
        </tr>`,
    )}
  </table>`;
}

export const pair = (label: string, value: string | null, className = "") =>
  value
    ? html`<tr>
        <th>${label}</th>
        <td class="${className}">${value}</td>
      </tr>`
    : html``;
