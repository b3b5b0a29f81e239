/** Pages about the merchant itself: overview, keys, the sandbox clock, the test cards. */
import type { MerchantRow } from "../../../api/merchants/service";
import type { TestCard } from "../../../processor/test-data";
import { html, type Renderable } from "../../html";
import { actionButton, copyable, fields } from "../layout";

export function keysPage(merchant: MerchantRow, publicUrl: string): Renderable {
  const tokenize = `curl -s ${publicUrl}/webpayment/${merchant.web_payments_token}/tokenize -H 'Content-Type: application/json' \\
  -d '{"method":"card","card_number":"4111111111111111","card_cvv":"123","card_exp":"1230","person_name":"Ada Lovelace","phone":"5555550100","address_1":"1 Main St","address_city":"Orlando","address_state":"FL","address_zip":"32822","email":"ada@example.com"}'`;
  const charge = `curl -s ${publicUrl}/charge -H 'Authorization: Bearer ${merchant.api_key}' -H 'Content-Type: application/json' \\
  -d '{"payment_method_id":"<id from tokenize>","total":10.50}'`;
  return html`<h1>Keys</h1>
    <section class="card">
      ${fields([
        ["Merchant", `${merchant.name}${merchant.is_default ? " (default)" : ""}`],
        ["Merchant id", copyable(merchant.id)],
        ["Web payments token (public: browser and mobile)", copyable(merchant.web_payments_token)],
        ["API key (secret: Authorization: Bearer)", copyable(merchant.api_key)],
        ["Webhook signing secret", copyable(merchant.webhook_secret)],
      ])}
    </section>
    <h2>Script tag</h2>
    <section class="card">${copyable(`<script src="${publicUrl}/payjs.js"></script>`)}</section>
    <h2>Tokenize, then charge, with curl</h2>
    <pre>${tokenize}</pre>
    <p><button type="button" data-copy="${tokenize}">Copy tokenize</button></p>
    <pre>${charge}</pre>
    <p><button type="button" data-copy="${charge}">Copy charge</button></p>
    <h2>Settings</h2>
    <section class="card">
      ${fields([
        ["AVS zip required", merchant.avs_zip ? "yes" : "no"],
        ["AVS street required", merchant.avs_street ? "yes" : "no"],
        ["Advanced customization", merchant.advanced_customization ? "yes" : "no"],
        ["ACH settlement days", String(merchant.ach_settlement_days)],
      ])}
      <p class="muted">Change with <code>PUT /_sandbox/merchants/${merchant.id}/settings</code>.</p>
    </section>`;
}

export const CLOCK_STEPS: readonly (readonly [string, number])[] = [
  ["+1 hour", 3600],
  ["+1 day", 86400],
  ["+3 days", 3 * 86400],
  ["+7 days", 7 * 86400],
];

export function clockPage(now: string, offsetMs: number, realNow: string): Renderable {
  const hours = offsetMs / 3_600_000;
  return html`<h1>Sandbox clock</h1>
    <section class="card">
      ${fields([
        ["Sandbox now (UTC)", html`<strong id="clock-now">${now}</strong>`],
        ["Real now (UTC)", realNow],
        ["Ahead of real time", offsetMs === 0 ? "not advanced" : `${hours.toFixed(hours < 10 ? 2 : 1)} hours`],
      ])}
      <p class="muted">
        Advancing runs what the time crosses: card batches settle at midnight UTC and deposit the next day, ACH settles
        after the merchant's settlement days, webhook retries fall due.
      </p>
      <div class="row">
        ${CLOCK_STEPS.map(([label, seconds]) => actionButton("/dashboard/clock/advance", label, { seconds: String(seconds) }, true))}
        <form method="post" action="/dashboard/clock/advance" class="row">
          <input type="number" name="seconds" min="1" max="31536000" placeholder="seconds" required /><button
            type="submit"
          >
            Advance
          </button>
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
          <th>Outcome</th>
          <th>Description</th>
        </tr>
      </thead>
      <tbody>
        ${cards.map(
          (card) =>
            html`<tr>
              <td>${copyable(card.number)}</td>
              <td>${card.brand}</td>
              <td>${card.outcome}</td>
              <td>${card.description}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <h2>Test bank account (ACH)</h2>
    <section class="card">
      ${fields([
        ["Routing", copyable(bank.routing)],
        ["Approving account", copyable(bank.approvingAccount)],
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
          ["Approved volume", `$${(numbers.approvedCents / 100).toFixed(2)}`],
          ["Declined", String(numbers.declined)],
          ["Customers", String(numbers.customers)],
          ["Sandbox clock", html`<a href="/dashboard/clock">${now}</a>`],
        ])}
      </section>
      <section class="card">
        <h2>Start here</h2>
        ${fields([
          ["Script tag", copyable(`<script src="${publicUrl}/payjs.js"></script>`)],
          ["Web payments token", copyable(merchant.web_payments_token)],
          ["API key", copyable(merchant.api_key)],
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
