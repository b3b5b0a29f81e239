/**
 * The hosted page of a payment link (/hosted/link/{id}, the link's tinyurl): what the link sells,
 * and a form with the sandbox's card frames. The page tokenizes with payjs.js (the card goes from
 * the number frame to the sandbox, never through this page), then pays through the link
 * (POST /webpayment/{token}/payment-link/{id}/pay), which makes the invoice and its charge (and,
 * for a recurring link, the payer's schedule). A tokenizeOnly link's page saves the payment
 * method instead (…/save): no amount, nothing charged.
 */
import { html, SafeHtml } from "../../lib/html";
import { formatMoney } from "../../domain/money";
import type { ReceiptLineItem } from "../../services/mail/receipt-templates";
import { layout, lineItemsTable, pair, scriptJson } from "./layout";

export interface LinkPageView {
  merchantName: string;
  linkId: string;
  name: string;
  memo: string;
  lineItems: ReceiptLineItem[];
  subtotal: string;
  tax: string;
  amountCents: number;
  editable: boolean;
  /** The link saves a payment method and charges nothing (link_meta.tokenizeOnly). */
  tokenizeOnly: boolean;
  /** A recurring link's rule in words ("every month"); null for a link paid once. */
  recurrence: string | null;
  buttonText: string;
  allowCard: boolean;
  allowBank: boolean;
  successRedirect: string;
  publicUrl: string;
  token: string;
  avsZip: boolean;
  avsStreet: boolean;
}

/** The page of a link that cannot be paid now (switched off, expired or used up). */
export function renderLinkClosedPage(merchantName: string, name: string, message: string): string {
  const body = html`<h1>${merchantName}</h1>
    <h2>${name}</h2>
    <p id="link-closed" class="error">${message}</p>`;
  return layout(`${name} — ${merchantName}`, body);
}

const input = (id: string, label: string, attrs = html``) =>
  html`<div><label for="${id}">${label}</label><input id="${id}" name="${id}" ${attrs} /></div>`;

export function renderLinkPage(view: LinkPageView): string {
  const amount = formatMoney(view.amountCents);
  const body = html`<h1>${view.merchantName}</h1>
    <h2 id="link-name">${view.name}</h2>
    ${view.memo ? html`<p id="link-memo">${view.memo}</p>` : ""} ${lineItemsTable(view.lineItems)}
    <table class="summary">
      ${pair("Subtotal", view.subtotal)}${pair("Tax", view.tax)}
    </table>
    ${
      view.tokenizeOnly
        ? html`<p id="link-purpose">
            Your payment method is saved with ${view.merchantName} for later payments. Nothing is charged now.
          </p>`
        : view.editable
          ? html`<label for="total">Amount (USD)</label><input id="total" name="total" inputmode="decimal" />`
          : html`<p>Total: <strong id="link-amount">${amount}</strong></p>`
    }
    ${
      view.recurrence
        ? html`<p id="link-recurrence">
            Billed ${view.recurrence}: this payment method is charged now and again on each date after.
          </p>`
        : ""
    }
    <form id="pay-form" novalidate>
      <fieldset ${view.allowCard && view.allowBank ? "" : html`hidden`}>
        <legend>Pay with</legend>
        <label
          ><input type="radio" name="method" value="card" ${view.allowCard ? html`checked` : ""} style="width:auto" />
          Card</label
        >
        <label
          ><input type="radio" name="method" value="bank" ${view.allowCard ? "" : html`checked`} style="width:auto" />
          Bank account (ACH)</label
        >
      </fieldset>
      <div class="row">
        ${input("firstname", "First name", html`autocomplete="given-name"`)}
        ${input("lastname", "Last name", html`autocomplete="family-name"`)}
      </div>
      <div class="row">
        ${input("email", view.tokenizeOnly ? "E-mail" : "E-mail for the receipt", html`type="email" autocomplete="email"`)}
        ${input("phone", "Phone", html`autocomplete="tel"`)}
      </div>
      <div id="card-fields" ${view.allowCard ? "" : html`hidden`}>
        <label>Card number</label>
        <div id="card-number" class="frame"></div>
        <div class="row">
          <div>
            <label>CVV</label>
            <div id="card-cvv" class="frame"></div>
          </div>
          ${input("month", "Month (MM)", html`inputmode="numeric" maxlength="2" placeholder="12"`)}
          ${input("year", "Year (YYYY)", html`inputmode="numeric" maxlength="4" placeholder="2030"`)}
        </div>
      </div>
      <div id="bank-fields" ${view.allowCard ? html`hidden` : ""}>
        <div class="row">
          ${input("bank_routing", "Routing number", html`inputmode="numeric" maxlength="9"`)}
          ${input("bank_account", "Account number", html`inputmode="numeric"`)}
        </div>
        <div class="row">
          <div>
            <label for="bank_type">Account type</label
            ><select id="bank_type" name="bank_type">
              <option value="checking">Checking</option>
              <option value="savings">Savings</option>
            </select>
          </div>
          <div>
            <label for="bank_holder_type">Holder</label
            ><select id="bank_holder_type" name="bank_holder_type">
              <option value="personal">Personal</option>
              <option value="business">Business</option>
            </select>
          </div>
        </div>
      </div>
      ${input("address_1", `Street address${view.avsStreet ? " (required)" : ""}`, html`autocomplete="address-line1"`)}
      <div class="row">
        ${input("address_city", "City", html`autocomplete="address-level2"`)}
        ${input("address_state", "State (2 letters)", html`maxlength="2" autocomplete="address-level1"`)}
        ${input("address_zip", `ZIP${view.avsZip ? " (required)" : ""}`, html`autocomplete="postal-code"`)}
      </div>
      <button id="pay-button" type="submit" disabled>
        ${view.buttonText || (view.tokenizeOnly ? "Save" : view.editable ? "Pay" : `Pay ${amount}`)}
      </button>
      <p id="pay-result" role="status" aria-live="polite"></p>
    </form>
    <p class="muted">Card data goes from the secure fields straight to the sandbox; this page never sees it.</p>`;
  const config = {
    token: view.token,
    linkId: view.linkId,
    payUrl: `${view.publicUrl}/webpayment/${encodeURIComponent(view.token)}/payment-link/${view.linkId}/pay`,
    saveUrl: `${view.publicUrl}/webpayment/${encodeURIComponent(view.token)}/payment-link/${view.linkId}/save`,
    tokenizeOnly: view.tokenizeOnly,
    total: view.editable || view.tokenizeOnly ? null : (view.amountCents / 100).toFixed(2),
    allowCard: view.allowCard,
    successRedirect: view.successRedirect,
    hostedInvoiceUrl: `${view.publicUrl}/hosted/invoice/`,
  };
  const script = html`<script src="${view.publicUrl}/payjs.js"></script>
    <script type="module">
      ${new SafeHtml(PAGE_SCRIPT.replace("__CONFIG__", () => scriptJson(config).value))};
    </script>`;
  return layout(`${view.name} — ${view.merchantName}`, body, script);
}

/**
 * The page's script: PayJs with the card frames for tokenize(), then the link's pay route with the
 * payment method. One Idempotency-Key per attempt, so a retried request is answered, not repeated.
 */
const PAGE_SCRIPT = `
const CONFIG = __CONFIG__;
const form = document.getElementById("pay-form");
const button = document.getElementById("pay-button");
const result = document.getElementById("pay-result");
const show = (state, text) => { result.dataset.state = state; result.className = state === "error" ? "error" : state === "paid" || state === "saved" ? "ok" : ""; result.textContent = text; };
const method = () => form.querySelector("input[name=method]:checked").value;
const value = (id) => { const el = document.getElementById(id); return el ? el.value.trim() : ""; };
const card = new PayJs(CONFIG.token, CONFIG.allowCard ? {
  number: { id: "card-number", placeholder: "4111 1111 1111 1111", format: "prettyFormat" },
  cvv: { id: "card-cvv", placeholder: "123" },
} : {});
const bank = new PayJs(CONFIG.token, {});
let cardReady = false;
if (CONFIG.allowCard) {
  card.showCardForm().then(
    () => { cardReady = true; button.disabled = false; show("ready", ""); },
    (error) => { show("error", "The card form could not load: " + error.message); },
  );
} else {
  button.disabled = false;
}
form.querySelectorAll("input[name=method]").forEach((radio) =>
  radio.addEventListener("change", () => {
    const isCard = method() === "card";
    document.getElementById("card-fields").hidden = !isCard;
    document.getElementById("bank-fields").hidden = isCard;
    button.disabled = isCard && !cardReady;
  }),
);
const messageOf = (error) => {
  const fields = error && error.fields ? Object.values(error.fields).flat().join(" ") : "";
  const message = error && error.message ? error.message : String(error);
  return message + (fields && fields !== message ? " " + fields : "");
};
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const isCard = method() === "card";
  const total = CONFIG.total ?? value("total");
  const customer = {
    firstname: value("firstname"), lastname: value("lastname"), email: value("email") || undefined,
    phone: value("phone"), address_1: value("address_1"), address_city: value("address_city"),
    address_state: value("address_state"), address_zip: value("address_zip") || undefined,
  };
  const details = { method: isCard ? "card" : "bank", ...customer, total: total || undefined };
  if (isCard) Object.assign(details, { month: value("month"), year: value("year") });
  else Object.assign(details, {
    person_name: (customer.firstname + " " + customer.lastname).trim(), bank_routing: value("bank_routing"),
    bank_account: value("bank_account"), bank_type: value("bank_type"), bank_holder_type: value("bank_holder_type"),
  });
  button.disabled = true;
  show("paying", CONFIG.tokenizeOnly ? "Saving…" : "Paying…");
  try {
    const paymentMethod = await (isCard ? card : bank).tokenize(details);
    if (CONFIG.tokenizeOnly) {
      const saved = await fetch(CONFIG.saveUrl, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
        body: JSON.stringify({ payment_method_id: paymentMethod.id }),
      });
      const answer = await saved.json();
      if (saved.status !== 200) {
        show("error", messageOf(answer));
        button.disabled = false;
        return;
      }
      result.dataset.paymentMethod = answer.id;
      show("saved", "Saved. Thank you!");
      if (CONFIG.successRedirect) setTimeout(() => location.assign(CONFIG.successRedirect), 300);
      return;
    }
    const response = await fetch(CONFIG.payUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
      body: JSON.stringify({
        payment_method_id: paymentMethod.id, total: total || undefined, firstname: customer.firstname,
        lastname: customer.lastname, email: customer.email, address_zip: customer.address_zip,
        address_1: customer.address_1 || undefined,
      }),
    });
    const answer = await response.json();
    if (response.status !== 200) {
      show("error", response.status === 402 ? "Declined: " + answer.message : messageOf(answer));
      button.disabled = false;
      return;
    }
    result.dataset.invoice = answer.id;
    show("paid", "Paid. Thank you!");
    setTimeout(() => location.assign(CONFIG.successRedirect || CONFIG.hostedInvoiceUrl + answer.id), 300);
  } catch (error) {
    show("error", messageOf(error));
    button.disabled = false;
  }
});
`;
