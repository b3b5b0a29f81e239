import { html, type Renderable } from "../../../lib/html";

/**
 * The "try it" page: a real payjs card form (frames served by this sandbox) and pay(). The frame
 * containers are bare: the frames draw the only border, styled like the page's other fields
 * through payjs's public `style` option (browser/try.ts), as docs/payjs.md tells integrators.
 */
export function tryItPage(token: string): Renderable {
  const year = String(new Date().getUTCFullYear() + 4);
  return html`<h1>Try a payment</h1>
    <p class="muted">
      This page is an integrator's page: it loads <code>&lt;script src="/payjs.js"&gt;</code>, calls
      <code>showCardForm()</code> and <code>pay()</code>. The card number and CVV live in frames; this page never sees
      them.
    </p>
    <div id="try-it" data-token="${token}" class="split">
      <form id="try-form" class="stack card">
        <div class="frame-field">
          <span id="card-number-label">Card number</span>
          <div id="card-number" role="group" aria-labelledby="card-number-label"></div>
        </div>
        <div class="frame-field">
          <span id="card-cvv-label">CVV</span>
          <div id="card-cvv" role="group" aria-labelledby="card-cvv-label"></div>
        </div>
        <div class="row">
          <label>Month <input name="month" value="12" size="3" required /></label>
          <label>Year <input name="year" value="${year}" size="5" required /></label>
          <label>Total <input name="total" value="10.00" size="8" required /></label>
        </div>
        <div class="row">
          <label>First name <input name="firstname" value="Ada" required /></label>
          <label>Last name <input name="lastname" value="Lovelace" required /></label>
        </div>
        <label>E-mail <input name="email" type="email" value="ada@example.com" /></label>
        <label>Phone <input name="phone" value="5555550100" /></label>
        <label>Address <input name="address_1" value="1 Analytical Way" /></label>
        <div class="row">
          <label>City <input name="address_city" value="Orlando" /></label>
          <label>State <input name="address_state" value="FL" size="3" /></label>
          <label>Zip <input name="address_zip" value="32822" size="7" /></label>
        </div>
        <div class="row">
          <button type="button" data-test-pan="4111111111111111" data-test-cvv="123" disabled>
            Fill approving Visa
          </button>
          <button type="button" data-test-pan="4012888888881881" data-test-cvv="123" disabled>
            Fill declining Visa
          </button>
        </div>
        <button id="try-pay" type="submit" class="primary" disabled>Pay</button>
        <div id="try-status" class="muted">Loading the card form…</div>
      </form>
      <div id="try-result" class="result"></div>
    </div>`;
}
