/** Pages about the merchant itself: overview, keys, the sandbox clock, the test cards. */
import { settingsOf, type MerchantRow } from "../../../services/merchants";
import { LIMITS, type MerchantCustomField } from "../../../services/merchant-options";
import type { TestCard } from "../../../../packages/rules/test-data";
import { html, type Renderable } from "../../../lib/html";
import { SURCHARGE_RATE_LIMIT_BPS } from "../../../domain/surcharge";
import { actionButton, CLOCK_STEPS, command, copyable, fields, money, when } from "../layout";

export function keysPage(merchant: MerchantRow, publicUrl: string): Renderable {
  const tokenize = `pm=$(curl -s ${publicUrl}/webpayment/${merchant.web_payments_token}/tokenize -H 'Content-Type: application/json' \\
  -d '{"method":"card","card_number":"4111111111111111","card_cvv":"123","card_exp":"1230","person_name":"Ada Lovelace","phone":"5555550100","address_1":"1 Main St","address_city":"Orlando","address_state":"FL","address_zip":"32822","email":"ada@example.com"}' |
  node -p 'JSON.parse(fs.readFileSync(0)).id')`;
  const charge = `curl -s ${publicUrl}/charge -H 'Authorization: Bearer ${merchant.api_key}' -H 'Content-Type: application/json' \\
  -d '{"payment_method_id":"'"$pm"'","total":10.50}'`;
  return html`<h1>Keys</h1>
    <section class="card">
      ${fields([
        ["Merchant", `${merchant.name}${merchant.is_default ? " (default)" : ""}`],
        ["Merchant id", copyable(merchant.id, "merchant id")],
        [
          "Web payments token (public: browser and mobile)",
          copyable(merchant.web_payments_token, "web payments token"),
        ],
        ["API key (secret: Authorization: Bearer)", copyable(merchant.api_key, "API key")],
        ["Webhook signing secret", copyable(merchant.webhook_secret, "webhook signing secret")],
      ])}
    </section>
    <h2>Regenerate</h2>
    <section class="card">
      <p class="muted">
        The old value stops working at once: pages, apps and receivers still using it get 401s (or bad signatures) until
        they are given the new one.
        ${merchant.is_default ? "This is the default merchant: its configured API key and token come back at the next start." : ""}
      </p>
      <div class="row">
        ${actionButton("/dashboard/keys/regenerate", "Regenerate API key and token", { keys: "api_key,web_payments_token" }, { danger: true, confirm: "Regenerate the API key and the web payments token? The current ones stop working at once." })}
        ${actionButton("/dashboard/keys/regenerate", "Regenerate webhook signing secret", { keys: "webhook_secret" }, { danger: true, confirm: "Regenerate the webhook signing secret? Receivers checking the old one reject every delivery until updated." })}
      </div>
    </section>
    <h2>Script tag</h2>
    <section class="card">${copyable(`<script src="${publicUrl}/payjs.js"></script>`, "script tag")}</section>
    <h2>Tokenize, then charge, with curl</h2>
    ${command(tokenize, "tokenize command")} ${command(charge, "charge command")}
    <p><a href="/dashboard/settings">Settings →</a></p>`;
}

/** The merchant settings that change behaviour, as forms (validation messages show under each field). */
export function settingsPage(merchant: MerchantRow): Renderable {
  const settings = settingsOf(merchant);
  const check = (name: string, on: boolean, label: string, hint: string, idPrefix = "") =>
    html`<label class="check"
        ><input type="checkbox" name="${name}" ${on ? html`checked` : ""} aria-describedby="${idPrefix}${name}-hint" />
        ${label}</label
      ><span class="muted" id="${idPrefix}${name}-hint">${hint}</span>`;
  const customFieldForm = (field: MerchantCustomField | null, index: number) => {
    const formId = field ? `custom-field-${index}` : "custom-field-new";
    const prefix = `${formId}-`;
    return html`<form
      method="post"
      action="/dashboard/settings/custom-fields"
      class="stack custom-field"
      id="${formId}"
      novalidate
    >
      ${field ? html`<input type="hidden" name="original_id" value="${field.id}" />` : ""}
      <div class="grid">
        <label
          >Id (unique; invoices name the field by it)
          <input
            name="id"
            value="${field?.id ?? ""}"
            maxlength="${String(LIMITS.idLength)}"
            required
            autocomplete="off"
        /></label>
        <label
          >Name (the label customers see)
          <input name="name" value="${field?.name ?? ""}" maxlength="${String(LIMITS.nameLength)}" required
        /></label>
        <label
          >Placeholder (hint text)
          <input name="placeholder" value="${field?.placeholder ?? ""}" maxlength="${String(LIMITS.placeholderLength)}"
        /></label>
      </div>
      ${check("required", field?.required ?? false, "Required", "POST /invoice without a value for it is refused (422).", prefix)}
      ${check("visible", field?.visible ?? true, "Visible to customers", "Off: shown on merchant-facing pages only (this dashboard).", prefix)}
      <div class="row">
        <button type="submit" class="${field ? "" : "primary"}">
          ${field ? `Save field ${field.id}` : "Add custom field"}
        </button>
      </div>
      <span class="result" role="status"></span>
    </form>`;
  };
  return html`<h1>Settings</h1>
    <section class="card">
      <form method="post" action="/dashboard/settings" class="stack" id="settings-form" novalidate>
        ${check("avs_zip", settings.avs_zip, "AVS: require and check the billing zip", "pay() and tokenize refuse a missing address_zip.")}
        ${check("avs_street", settings.avs_street, "AVS: require and check the street address", "pay() and tokenize refuse a missing address_1.")}
        ${check(
          "advanced_customization",
          settings.advanced_customization,
          "Advanced Customization",
          "Custom fields (below, and each invoice's meta.invoice_merchant_custom_fields) show on hosted invoices and e-mails, except invisible ones; required ones are enforced on POST /invoice.",
        )}
        <label
          >ACH settlement days (0–10)
          <input
            name="ach_settlement_days"
            type="number"
            min="0"
            max="10"
            step="1"
            value="${String(settings.ach_settlement_days)}"
            required
        /></label>
        <div class="row"><button type="submit" class="primary">Save settings</button></div>
        <span class="result" role="status"></span>
      </form>
    </section>
    <h2>Custom fields (Advanced Customization)</h2>
    <section class="card stack" id="custom-fields">
      <p class="muted">
        ${
          settings.advanced_customization
            ? "In effect: invoices give a value with meta.invoice_merchant_custom_fields: [{id, value}]."
            : "Not in effect until Advanced Customization is on (above)."
        }
        At most ${String(LIMITS.customFields)} fields; the type is always text.
      </p>
      ${
        settings.custom_fields.length === 0
          ? html`<p>No custom fields yet. Add one below.</p>`
          : settings.custom_fields.map(
              (field, index) =>
                html`<div class="custom-field-row">
                  <h3>${field.name} <code>${field.id}</code></h3>
                  ${customFieldForm(field, index)}
                  <form
                    method="post"
                    novalidate
                    action="/dashboard/settings/custom-fields/delete"
                    class="inline"
                    id="custom-field-${String(index)}-delete"
                    data-confirm="Remove the custom field ${field.id}? Invoices keep their values, but pages stop showing it with this label."
                  >
                    <input type="hidden" name="id" value="${field.id}" /><button type="submit" class="danger">
                      Remove field ${field.id}</button
                    ><span class="result" role="status"></span>
                  </form>
                </div>`,
            )
      }
      <h3>Add a custom field</h3>
      ${customFieldForm(null, -1)}
    </section>
    <h2>Surcharging</h2>
    <section class="card">
      <form method="post" action="/dashboard/settings/surcharge" class="stack" id="surcharge-form" novalidate>
        ${check(
          "is_surcharge_enabled",
          settings.is_surcharge_enabled,
          "Surcharge credit card payments",
          "Charges, invoice payments and pay() with a credit card add the rate on top of the total; debit and prepaid cards and bank payments never pay it (GET /surcharge/review says why).",
        )}
        <label
          >Surcharge rate in percent (above 0, at most ${(SURCHARGE_RATE_LIMIT_BPS / 100).toFixed(0)}: the card brands'
          limit; empty: none)
          <input
            name="cnp_credit_surcharge_rate"
            inputmode="decimal"
            value="${settings.cnp_credit_surcharge_rate === null ? "" : String(settings.cnp_credit_surcharge_rate)}"
            autocomplete="off"
        /></label>
        <div class="row"><button type="submit" class="primary">Save surcharging</button></div>
        <span class="result" role="status"></span>
      </form>
    </section>
    <h2>Receipts</h2>
    <section class="card">
      <form method="post" action="/dashboard/settings/receipts" class="stack" id="receipt-form" novalidate>
        <label
          >Reply-to address (empty: none)
          <input name="receipt_reply_to" type="email" value="${settings.receipt_reply_to}" autocomplete="off"
        /></label>
        <label
          >Copy every receipt to (up to ${String(LIMITS.cc)} addresses, separated by commas)
          <input name="receipt_cc" value="${settings.receipt_cc.join(", ")}" autocomplete="off"
        /></label>
        <label
          >Footer (a closing message on every receipt e-mail, up to ${String(LIMITS.footerLength)} characters)
          <textarea name="receipt_footer" rows="3">${settings.receipt_footer}</textarea>
        </label>
        ${check(
          "receipt_send_declined",
          settings.receipt_send_declined,
          "E-mail a receipt for declined payments too",
          "Off: a declined pay() sends nothing; approved ones still get their receipt.",
        )}
        <div class="row"><button type="submit" class="primary">Save receipt options</button></div>
        <span class="result" role="status"></span>
      </form>
    </section>
    <p class="muted">
      The same as <code>PUT /_sandbox/merchants/${merchant.id}/settings</code> (and <code>GET /self</code>'s
      <code>settings</code>). Keys are on the <a href="/dashboard/keys">Keys</a> page.
    </p>`;
}

export function clockPage(now: string, offsetMs: number, realNow: string): Renderable {
  const hours = offsetMs / 3_600_000;
  return html`<h1>Sandbox clock</h1>
    <section class="card">
      ${fields([
        ["Sandbox now", html`<strong id="clock-now">${when(now)}</strong>`],
        ["Real now", when(realNow)],
        ["Ahead of real time", offsetMs === 0 ? "not advanced" : `${hours.toFixed(hours < 10 ? 2 : 1)} hours`],
      ])}
      <p class="muted">
        Advancing runs what the time crosses: card batches settle at midnight UTC and deposit the next day, ACH settles
        after the merchant's settlement days, webhook retries fall due. Every page's header can advance it too.
      </p>
      <div class="row">
        ${CLOCK_STEPS.map(([label, seconds]) => actionButton("/dashboard/clock/advance", label, { seconds: String(seconds), back: "/dashboard/clock" }, { primary: true }))}
        <form method="post" novalidate action="/dashboard/clock/advance" class="row" id="clock-seconds">
          <input type="hidden" name="back" value="/dashboard/clock" />
          <label for="advance-seconds">Seconds</label>
          <input id="advance-seconds" type="number" name="seconds" min="1" max="31536000" required /><button
            type="submit"
          >
            Advance
          </button>
          <span class="result" role="status"></span>
        </form>
      </div>
    </section>`;
}

export function testCardsPage(
  cards: readonly TestCard[],
  bank: { routing: string; approvingAccount: string; description: string },
): Renderable {
  return html`<h1>Test cards</h1>
    <p class="muted">
      Any CVV of the right length and any future expiry. Every other number is refused at tokenize, so real card data
      never lands in the sandbox.
    </p>
    <table class="test-cards">
      <thead>
        <tr>
          <th>Number</th>
          <th>Brand</th>
          <th>Funding</th>
          <th>Outcome</th>
          <th>Description</th>
        </tr>
      </thead>
      <tbody>
        ${cards.map(
          (card) =>
            html`<tr>
              <td>${copyable(card.number, `card number ${card.number}`)}</td>
              <td>${card.brand}</td>
              <td>${card.funding}</td>
              <td>${card.outcome}</td>
              <td>${card.description}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <h2>Test bank account (ACH)</h2>
    <section class="card">
      ${fields([
        ["Routing", copyable(bank.routing, "routing number")],
        ["Approving account", copyable(bank.approvingAccount, "account number")],
        ["Rule", bank.description],
      ])}
    </section>`;
}

export interface OverviewNumbers {
  transactions: number;
  approvedCents: number;
  declined: number;
  customers: number;
}

export function overviewPage(
  merchant: MerchantRow,
  numbers: OverviewNumbers,
  now: string,
  recent: Renderable,
  publicUrl: string,
): Renderable {
  return html`<h1>${merchant.name}</h1>
    <div class="grid">
      <section class="card">
        <h2>Activity</h2>
        ${fields([
          ["Transactions", String(numbers.transactions)],
          ["Approved volume", money(numbers.approvedCents, "cents")],
          ["Declined", String(numbers.declined)],
          ["Customers", String(numbers.customers)],
          ["Sandbox clock", html`<a href="/dashboard/clock">${when(now)}</a>`],
        ])}
      </section>
      <section class="card">
        <h2>Start here</h2>
        ${fields([
          ["Script tag", copyable(`<script src="${publicUrl}/payjs.js"></script>`, "script tag")],
          ["Web payments token", copyable(merchant.web_payments_token, "web payments token")],
          ["API key", copyable(merchant.api_key, "API key")],
        ])}
        <p>
          <a href="/dashboard/try">Try a payment with payjs →</a> · <a href="/dashboard/test-cards">Test cards</a> ·
          <a href="/openapi">API reference</a>
        </p>
      </section>
    </div>
    <h2>Latest transactions</h2>
    ${recent}`;
}
