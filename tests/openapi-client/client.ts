/**
 * An integrator's checkout written against the generated types only (generated/schema.ts, made by
 * openapi-typescript from the sandbox's /openapi/json): tokenize a card with the public web
 * payments token, then charge it with the secret API key.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/schema";

export type Transaction = components["schemas"]["Transaction"];
export type PaymentMethod = components["schemas"]["PaymentMethod"];

export interface Sandbox {
  baseUrl: string;
  webPaymentsToken: string;
  apiKey: string;
}

export async function tokenizeAndCharge(
  sandbox: Sandbox,
  order: { total: number; reference: string },
): Promise<{ paymentMethod: PaymentMethod; transaction: Transaction }> {
  const browser = createClient<paths>({ baseUrl: sandbox.baseUrl });
  const tokenized = await browser.POST("/webpayment/{token}/tokenize", {
    params: { path: { token: sandbox.webPaymentsToken } },
    body: { method: "card", card_number: "4111111111111111", card_exp: "1230", person_name: "Ada Lovelace" },
  });
  if (tokenized.error) throw new Error(`tokenize: ${tokenized.error.code}: ${tokenized.error.message}`);

  const backend = createClient<paths>({
    baseUrl: sandbox.baseUrl,
    headers: { Authorization: `Bearer ${sandbox.apiKey}` },
  });
  const charged = await backend.POST("/charge", {
    params: { header: { "idempotency-key": `order-${order.reference}` } },
    body: { payment_method_id: tokenized.data.id, total: order.total, meta: { reference: order.reference } },
  });
  if (charged.error) throw new Error(`charge: ${charged.error.code}: ${charged.error.message}`);
  return { paymentMethod: tokenized.data, transaction: charged.data };
}
