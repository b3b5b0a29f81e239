/**
 * The hosted payment page of an invoice (/hosted/pay/{id}), which pays with payjs.js itself, and
 * the page shown instead once nothing is due. Server-rendered; the page script gets its values
 * JSON-encoded.
 */
import { html, SafeHtml } from "../../lib/html";
import { formatMoney } from "../../domain/money";
import type { ReceiptCustomField, ReceiptLineItem } from "../../services/mail/receipt-templates";
import { customFieldsTable, layout, lineItemsTable, pair, scriptJson } from "./layout";

export interface PayPageView {
  merchantName: string;
  invoiceId: string;
  status: string;
  totalCents: number;
  balanceDueCents: number;
  lastAttemptMessage: string;
  reference: string;
  memo: string;
  lineItems: ReceiptLineItem[];
  customFields: ReceiptCustomField[];
  publicUrl: string;
  token: string;
  customerId: string;
  firstname: string;
  lastname: string;
  email: string;
  addressZip: string;
  address1: string;
  avsZip: boolean;
  avsStreet: boolean;
  /** The invoice URL (url + id) the integrator chose. */
  invoiceUrl: string;
  /** Our hosted invoice page. */
  hostedInvoiceUrl: string;
}

/** The page for an invoice that can no longer be paid (paid, refunded, voided or deleted). */
export function renderNothingDuePage(view: PayPageView): string {
  const body = html`<h1>${view.merchantName}</h1>
    <p id="pay-closed">
      This invoice is
      <span class="status status-${view.status}" id="invoice-status">${view.status}</span
      >${view.status === "PAID" ? ": it has been paid. Thank you!" : ": nothing is due."}
    </p>
    <p><a class="button" href="${view.hostedInvoiceUrl}">View the invoice</a></p>`;
  return layout(`Invoice from ${view.merchantName}`, body);
}

export function renderPayPage(view: PayPageView): string {
  const body = html`<h1>${view.merchantName}</h1>
    <p>
      Invoice <code>${view.invoiceId}</code>
      <span class="status status-${view.status}" id="invoice-status">${view.status}</span>
    </p>
    ${view.lastAttemptMessage ? html`<p class="error" id="last-attempt">The last payment attempt failed: ${view.lastAttemptMessage}</p>` : ""}
    <table class="summary">
      ${pair("Reference", view.reference)}${pair("Memo", view.memo)}
    </table>
    ${lineItemsTable(view.lineItems)} ${customFieldsTable(view.customFields)}
    <p>Amount due: <strong id="amount-due">${formatMoney(view.balanceDueCents)}</strong></p>
    <form id="pay-form" novalidate>
      <fieldset>
        <legend>Pay with</legend>
        <label><input type="radio" name="method" value="card" checked style="width:auto" /> Card</label>
        <label><input type="radio" name="method" value="bank" style="width:auto" /> Bank account (ACH)</label>
      </fieldset>
      <div class="row">
        <div>
          <label for="firstname">First name</label
          ><input id="firstname" name="firstname" value="${view.firstname}" autocomplete="given-name" />
        </div>
        <div>
          <label for="lastname">Last name</label
          ><input id="lastname" name="lastname" value="${view.lastname}" autocomplete="family-name" />
        </div>
      </div>
      <label for="email">E-mail for the receipt</label
      ><input id="email" name="email" type="email" value="${view.email}" autocomplete="email" />
      <div id="card-fields">
        <label>Card number</label>
        <div id="card-number" class="frame"></div>
        <div class="row">
          <div>
            <label>CVV</label>
            <div id="card-cvv" class="frame"></div>
          </div>
          <div>
            <label for="month">Month (MM)</label
            ><input id="month" name="month" inputmode="numeric" maxlength="2" placeholder="12" />
          </div>
          <div>
            <label for="year">Year (YYYY)</label
            ><input id="year" name="year" inputmode="numeric" maxlength="4" placeholder="2030" />
          </div>
        </div>
      </div>
      <div id="bank-fields" hidden>
        <label for="person_name">Account holder</label
        ><input id="person_name" name="person_name" value="${`${view.firstname} ${view.lastname}`.trim()}" />
        <div class="row">
          <div>
            <label for="bank_routing">Routing number</label
            ><input id="bank_routing" name="bank_routing" inputmode="numeric" maxlength="9" />
          </div>
          <div>
            <label for="bank_account">Account number</label
            ><input id="bank_account" name="bank_account" inputmode="numeric" />
          </div>
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
      <div class="row">
        <div>
          <label for="address_1">Street address${view.avsStreet ? " (required)" : ""}</label
          ><input id="address_1" name="address_1" value="${view.address1}" autocomplete="address-line1" />
        </div>
        <div>
          <label for="address_zip">ZIP${view.avsZip ? " (required)" : ""}</label
          ><input id="address_zip" name="address_zip" value="${view.addressZip}" autocomplete="postal-code" />
        </div>
      </div>
      <button id="pay-button" type="submit" disabled>Pay ${formatMoney(view.balanceDueCents)}</button>
      <p id="pay-result" role="status" aria-live="polite"></p>
    </form>
    <p class="muted">Card data goes from the secure fields straight to the sandbox; this page never sees it.</p>`;
  const config = {
    token: view.token,
    invoiceId: view.invoiceId,
    customerId: view.customerId,
    total: (view.balanceDueCents / 100).toFixed(2),
    hostedInvoiceUrl: view.hostedInvoiceUrl,
  };
  const script = html`<script src="${view.publicUrl}/payjs.js"></script>
    <script type="module">
      ${new SafeHtml(PAGE_SCRIPT.replace("__CONFIG__", () => scriptJson(config).value))};
    </script>`;
  return layout(`Pay ${view.merchantName}`, body, script);
}

/**
 * The payment page's script: PayJs with the card frames, and pay() with `invoice_id` so the
 * library pays THIS invoice (the public invoice route reuses an open invoice given its id).
 */
const PAGE_SCRIPT = `
const CONFIG = __CONFIG__;
const form = document.getElementById("pay-form");
const button = document.getElementById("pay-button");
const result = document.getElementById("pay-result");
const show = (state, text) => { result.dataset.state = state; result.className = state === "error" ? "error" : state === "paid" ? "ok" : ""; result.textContent = text; };
const method = () => form.querySelector("input[name=method]:checked").value;
const value = (id) => document.getElementById(id).value.trim();
const card = new PayJs(CONFIG.token, {
  number: { id: "card-number", placeholder: "4111 1111 1111 1111", format: "prettyFormat" },
  cvv: { id: "card-cvv", placeholder: "123" },
});
const bank = new PayJs(CONFIG.token, {});
let cardReady = false;
card.showCardForm().then(
  () => { cardReady = true; button.disabled = false; show("ready", ""); },
  (error) => { show("error", "The card form could not load: " + error.message); },
);
form.querySelectorAll("input[name=method]").forEach((radio) =>
  radio.addEventListener("change", () => {
    const isCard = method() === "card";
    document.getElementById("card-fields").hidden = !isCard;
    document.getElementById("bank-fields").hidden = isCard;
    button.disabled = isCard && !cardReady;
  }),
);
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const isCard = method() === "card";
  const details = {
    method: isCard ? "card" : "bank",
    invoice_id: CONFIG.invoiceId,
    customer_id: CONFIG.customerId,
    total: CONFIG.total,
    firstname: value("firstname"),
    lastname: value("lastname"),
    email: value("email") || undefined,
    address_zip: value("address_zip") || undefined,
    address_1: value("address_1") || undefined,
    send_receipt: true,
  };
  if (isCard) Object.assign(details, { month: value("month"), year: value("year") });
  else Object.assign(details, {
    person_name: value("person_name"), bank_routing: value("bank_routing"), bank_account: value("bank_account"),
    bank_type: value("bank_type"), bank_holder_type: value("bank_holder_type"),
  });
  button.disabled = true;
  show("paying", "Paying…");
  try {
    const invoice = await (isCard ? card : bank).pay(details);
    if (invoice.id !== CONFIG.invoiceId) {
      show("error", "payjs.js paid a new invoice instead of this one (it must send invoice_id).");
      return;
    }
    show("paid", "Paid. Thank you! Opening your invoice…");
    setTimeout(() => location.assign(CONFIG.hostedInvoiceUrl), 300);
  } catch (error) {
    const fields = error && error.fields ? Object.values(error.fields).flat().join(" ") : "";
    show("error", (error && error.message ? error.message : String(error)) + (fields && fields !== error.message ? " " + fields : ""));
    button.disabled = false;
  }
});
`;
