#!/usr/bin/env bun
/**
 * The mobile flow end to end against a running sandbox:
 *   1. the app tokenizes the test card with the mobile SDK and the PUBLIC web payments token;
 *   2. the app's backend charges the payment method id with POST /charge and the SECRET API key.
 *
 *   npm start                          # in another terminal
 *   npx bun examples/mobile-charge.ts
 *
 * Env (defaults match a fresh `npm start`):
 *   PAYSANDBOX_URL                  http://localhost:7290
 *   PAYSANDBOX_WEB_PAYMENTS_TOKEN   sandbox_web_payments_token
 *   PAYSANDBOX_API_KEY              sandbox_api_key
 * Exit code 0 when the charge is approved; 1 with the reason on stderr otherwise.
 */
import { CreditCard, DEFAULT_BASE_URL, PaymentApi, PaymentConfiguration } from "paysandbox-mobile";

const baseUrl = (process.env.PAYSANDBOX_URL || DEFAULT_BASE_URL).replace(/\/+$/, "");
const webPaymentsToken = process.env.PAYSANDBOX_WEB_PAYMENTS_TOKEN || "sandbox_web_payments_token";
const apiKey = process.env.PAYSANDBOX_API_KEY || "sandbox_api_key";

function fail(message: string): never {
  process.stderr.write(`mobile-charge: ${message}\n`);
  process.exit(1);
}

// ---- In the app: only the public token ever ships inside it. ----
PaymentConfiguration.shared.webPaymentsToken = webPaymentsToken;
PaymentConfiguration.shared.baseUrl = baseUrl;
const api = new PaymentApi();

const tokenized = await api.tokenize(CreditCard.testCreditCard());
if (!tokenized.ok) {
  const { code, message, fields } = tokenized.error;
  fail(`tokenize failed (${code}): ${message}${fields ? ` ${JSON.stringify(fields)}` : ""}`);
}
const paymentMethod = tokenized.paymentMethod;
console.log(
  `Tokenized ${paymentMethod.card_type} •••• ${paymentMethod.card_last_four} → payment method ${paymentMethod.id}`,
);

// ---- On the backend: it receives the payment method id from the app and charges it. ----
let response: Response;
try {
  response = await fetch(`${baseUrl}/charge`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      accept: "application/json",
      "content-type": "application/json",
      // One key per order: a retried request can never charge twice.
      "idempotency-key": `mobile-charge-${paymentMethod.id}`,
    },
    body: JSON.stringify({
      payment_method_id: paymentMethod.id,
      total: 10.5,
      pre_auth: false,
      meta: { tax: 0.5, subtotal: 10 },
    }),
  });
} catch (error) {
  fail(`could not reach ${baseUrl}/charge: ${(error as Error).message}`);
}
const transaction = (await response.json().catch(() => null)) as Record<string, any> | null;
if (response.status !== 200 || !transaction) {
  fail(`charge failed (${response.status} ${transaction?.code ?? ""}): ${transaction?.message ?? "no JSON body"}`);
}
console.log(
  `Charged $${transaction.total.toFixed(2)} → transaction ${transaction.id} (success: ${transaction.success})`,
);
console.log(JSON.stringify(transaction, null, 2));
