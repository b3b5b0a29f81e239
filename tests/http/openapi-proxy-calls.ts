/**
 * The calls tests/http/openapi-proxy.test.ts sends through Prism: a realistic session touching
 * every documented operation with a valid request, and requests that break a rule the server
 * enforces (each must be refused by the document as well as by the server).
 */
import { BANK, CARD, type TestContext } from "../support/app";
import type { Proxied } from "../support/prism";

export interface Call {
  method: string;
  path: string;
  /** The documented operation, "METHOD /path/{}" (set by validCalls). */
  operation?: string;
  body?: unknown;
  /** A body sent as it is (JSON that is not an object). */
  raw?: string;
  form?: Record<string, string | Blob>;
  /** An API key, or false for none (default: the merchant's key). */
  auth?: string | false;
  headers?: Record<string, string>;
  /** A rule-breaking call: the member whose rule it breaks (Prism's refusal must name it). */
  breaks?: string;
  /** 4xx statuses this valid call may answer (a documented answer, not a fault). */
  expect?: number[];
}

type Send = (call: Call) => Promise<Proxied>;

/** "/invoice/{id}" with its values filled: the template names the operation. */
function at(template: string, ...values: string[]): { path: string; template: string } {
  let i = 0;
  return { path: template.replace(/\{[^}]+\}/g, () => encodeURIComponent(values[i++] ?? "")), template };
}

const NOTE = new Blob(["Shipped on 3 May."], { type: "text/plain" });

/** Calls every documented operation once at least, in an order where each finds what it needs. */
export async function validCalls(ctx: TestContext, send: Send): Promise<void> {
  const op = async (
    method: string,
    target: string | { path: string; template: string },
    extra: Omit<Call, "method" | "path" | "operation"> = {},
  ) => {
    const { path, template } = typeof target === "string" ? { path: target, template: target } : target;
    const operation = `${method} ${template.replace(/\?.*$/, "").replace(/\{[^}]+\}/g, "{}")}`;
    const answer = await send({ method, path, operation, ...extra });
    return answer.body;
  };
  const token = ctx.token;
  const today = new Date().toISOString().slice(0, 10);
  const range = `startDate=2020-01-01&endDate=${today}`;

  await op("GET", "/self");
  await op("GET", at("/payjs/config/{token}", token), { auth: false });
  await op("GET", "/ephemeral");
  await op("GET", "/team/apikey");
  await op("PUT", "/team/options", { body: { receipt_footer: "Thanks", ach_settlement_days: 1 } });
  await op("PUT", "/team/option/advanced_customizations", {
    body: { id: "po", name: "PO number", placeholder: "PO-1", required: false, visible: true, type: "text" },
  });

  const card = await op("POST", at("/webpayment/{token}/tokenize", token), { body: CARD, auth: false });
  const bank = await op("POST", at("/webpayment/{token}/tokenize", token), { body: BANK, auth: false });
  const customer = await op("POST", "/customer", { body: { firstname: "Grace", email: "grace@example.com" } });
  await op("GET", "/customer?per_page=5&keywords=Grace");
  await op("GET", at("/customer/{id}", customer.id));
  await op("PUT", at("/customer/{id}", customer.id), { body: { notes: "prefers e-mail", phone: "5555550100" } });
  await op("GET", at("/customer/{id}/payment-method", customer.id));
  const pm = await op("POST", "/payment-method", { body: { ...CARD, customer_id: customer.id } });
  // With a customer_id, tokenize ignores the customer fields: the document must not refuse them.
  await op("POST", at("/webpayment/{token}/tokenize", token), {
    body: { ...CARD, customer_id: customer.id, email: "not-an-address", phone: "555" },
    auth: false,
  });
  await op("GET", `/payment-method?customer_id=${customer.id}&method=card`);
  await op("GET", at("/payment-method/{id}", pm.id));
  await op("PUT", at("/payment-method/{id}", pm.id), { body: { nickname: "Work card", card_exp: "1131" } });

  const sale = await op("POST", "/charge", {
    body: { payment_method_id: card.id, total: 12.5, meta: { reference: "A-1", tax: 0.5 } },
    headers: { "Idempotency-Key": crypto.randomUUID() },
  });
  await op("GET", "/transaction?per_page=5&type=charge");
  await op("GET", at("/transaction/{id}", sale.id));
  await op("PUT", at("/transaction/{id}", sale.id), { body: { meta: { memo: "counter sale" } } });
  await op("GET", at("/transaction/{id}/related", sale.id));
  await op("GET", at("/transaction/{id}/funding", sale.id));
  await op("PUT", at("/transaction/{id}/receipt/email", sale.id), { body: { email: "grace@example.com" } });
  await op("POST", at("/transaction/{id}/receipt-email", sale.id));
  await op("PUT", at("/transaction/{id}/receipt-sms", sale.id), { body: { phone: "5555550100" } });
  await op("POST", at("/transaction/{id}/receipt-sms", sale.id), { body: { phone: "5555550100" } });
  const held = await op("POST", "/charge", { body: { payment_method_id: card.id, total: 8, pre_auth: true } });
  await op("POST", at("/transaction/{id}/capture", held.id));
  const voided = await op("POST", "/charge", { body: { payment_method_id: card.id, total: 3, pre_auth: true } });
  await op("POST", at("/transaction/{id}/void", voided.id));
  const other = await op("POST", "/charge", { body: { payment_method_id: card.id, total: 4 } });
  await op("POST", at("/transaction/{id}/void-or-refund", other.id), { body: {} });
  await op("POST", "/charge", { body: { payment_method_id: bank.id, total: 20 } });
  // Totals that a bare `multipleOf: 0.01` misjudges in binary floating point (19.99 / 0.01 ≠ 1999).
  await op("POST", "/charge", { body: { payment_method_id: card.id, total: 19.99 } });
  await op("POST", "/charge", { body: { payment_method_id: card.id, total: "0.07" } });
  await op("POST", "/credit", { body: { payment_method_id: card.id, total: 5 } });
  await op("GET", `/surcharge/review?payment_method_id=${card.id}&total=10`);

  const invoice = await op("POST", "/invoice", {
    body: { customer_id: customer.id, total: 20, meta: { lineItems: [{ item: "Tea", quantity: 2, price: 10 }] } },
  });
  await op("GET", "/invoice?per_page=5");
  await op("GET", at("/invoice/{id}", invoice.id));
  await op("PUT", at("/invoice/{id}", invoice.id), { body: { total: 25, meta: { memo: "two teas" } } });
  await op("PUT", at("/invoice/{id}/send/email", invoice.id));
  await op("PUT", at("/invoice/{id}/send/sms", invoice.id), { body: { phone: "5555550100" } });
  await op("GET", at("/hosted/invoice/{id}", invoice.id), { auth: false });
  await op("GET", at("/hosted/pay/{id}", invoice.id), { auth: false });
  await op("POST", at("/invoice/{id}/pay", invoice.id), { body: { payment_method_id: card.id } });
  const cash = await op("POST", "/invoice", { body: { customer_id: customer.id, total: 7 } });
  await op("POST", at("/invoice/{id}/pay/{method}", cash.id, "cash"));
  const open = await op("POST", "/invoice", { body: { customer_id: customer.id, total: 9 } });
  await op("POST", at("/webpayment/{token}/invoice/{id}/pay", token, open.id), {
    body: { payment_method_id: card.id },
    auth: false,
  });
  await op("POST", at("/webpayment/{token}/invoice", token), {
    body: { payment_method_id: card.id, total: 6, customer_id: customer.id, firstname: "Ada", lastname: "Lovelace" },
    auth: false,
  });
  // Without a customer_id, the payer's contact is required (and the short phone of a customer is not checked above).
  await op("POST", at("/webpayment/{token}/invoice", token), {
    body: { payment_method_id: card.id, total: 1.13, ...PAYER },
    auth: false,
  });
  const doomed = await op("POST", "/invoice", { body: { customer_id: customer.id, total: 1 } });
  await op("DELETE", at("/invoice/{id}", doomed.id));

  const schedule = await op("POST", "/invoice/schedule", {
    body: { rule: "FREQ=MONTHLY;DTSTART=20300103T140000Z", total: 19.5, customer_id: customer.id },
  });
  await op("GET", "/invoice/schedule?per_page=5");
  await op("GET", at("/invoice/schedule/{id}", schedule.id));
  await op("PUT", at("/invoice/schedule/{id}", schedule.id), { body: { total: 21 } });
  await op("DELETE", at("/invoice/schedule/{id}", schedule.id));

  const item = await op("POST", "/item", { body: { item: "Tea", code: "TEA-1", price: 3.5, in_stock: 10 } });
  await op("GET", "/item?per_page=5");
  await op("GET", "/item/code");
  await op("GET", at("/item/{id}", item.id));
  await op("PUT", at("/item/{id}", item.id), { body: { price: 4 } });
  await op("PUT", at("/item/{id}/increment", item.id), { body: { quantity: 2 } });
  await op("PUT", at("/item/{id}/decrement", item.id), { body: { quantity: 1 } });
  await op("DELETE", at("/item/{id}", item.id));

  const link = (await op("POST", "/query/payment-links", { body: { common_name: "Donation", amount: 15 } })).body;
  await op("GET", "/query/payment-links?per_page=5");
  await op("GET", at("/query/payment-links/{id}", link.id));
  await op("GET", at("/query/payment-links/{id}/is-active", link.id));
  await op("PUT", at("/query/payment-links/{id}", link.id), { body: { common_name: "Gift" } });
  await op("PUT", at("/query/payment-links/{id}/update-stats", link.id), { body: { total: 1 } });
  await op("GET", at("/hosted/link/{id}", link.id), { auth: false });
  await op("POST", at("/webpayment/{token}/payment-link/{id}/pay", token, link.id), {
    body: { payment_method_id: card.id, firstname: "Ada", lastname: "Lovelace" },
    auth: false,
  });
  await op("DELETE", at("/query/payment-links/{id}", link.id));
  const saving = (
    await op("POST", "/query/payment-links", {
      body: { common_name: "Card on file", link_meta: { tokenizeOnly: true } },
    })
  ).body;
  await op("POST", at("/webpayment/{token}/payment-link/{id}/save", token, saving.id), {
    body: { payment_method_id: card.id },
    auth: false,
  });

  const file = await op("POST", "/file", { form: { name: "receipt", tag: "receipts", file: NOTE } });
  await op("GET", "/file?per_page=5");
  await op("GET", at("/file/{id}", file.id));
  await op("PUT", at("/file/{id}", file.id), { body: { name: "receipt-1" } });

  const hook = await op("POST", "/webhook", {
    body: { target_url: "http://127.0.0.1:9/hooks", event: "*", meta: { webhook_retry_count: 1 } },
  });
  // The real service's way: target_url and event as query parameters, no body.
  const queried = await op("POST", {
    path: `/webhook?target_url=${encodeURIComponent("http://127.0.0.1:9/query-hooks")}&event=create_item`,
    template: "/webhook",
  });
  await op("DELETE", at("/webhook/{id}", queried.id));
  await op("GET", "/webhook?per_page=5");
  await op("GET", at("/webhook/{id}", hook.id));
  await op("PUT", at("/webhook/{id}", hook.id), { body: { event: "create_transaction" } });
  await op("POST", at("/webhook/{id}/test", hook.id));
  await op("GET", at("/webhook/{id}/deliveries", hook.id));

  // A card the sandbox disputes (CREDIT_NOT_PROCESSED) ten days after it settles.
  const amex = await op("POST", at("/webpayment/{token}/tokenize", token), {
    body: { ...CARD, card_number: "378200000000257", card_cvv: "1234" },
    auth: false,
  });
  await op("POST", "/charge", { body: { payment_method_id: amex.id, total: 64.2 } });
  await op("POST", "/_sandbox/clock/advance", { body: { seconds: 14 * 86_400 } });
  await op("GET", "/_sandbox/clock");
  await op("POST", at("/transaction/{id}/refund", sale.id), { body: { total: 2 } });
  await op("GET", `/query/deposit?${range}`);
  await op("GET", `/query/depositDetail?${range}`);
  for (const report of [
    "/query/statement/v3/ach-rejects",
    "/query/statement/v3/adjustments",
    "/query/statement/v3/surcharges",
    "/query/statement/v3/daily-sales",
    "/query/statement/v3/volumes/card-processing",
    "/query/statement/v3/volumes/card-type",
  ]) {
    await op("GET", { path: `${report}?${range}`, template: report });
  }
  await op("GET", "/query/statistics/teamSummary");
  await op("GET", { path: `/query/statement/v3/disputes?${range}`, template: "/query/statement/v3/disputes" });
  const dispute = (await op("GET", "/underwriting/disputes")).data[0];
  const evidence = { dispute_id: dispute.id, name: "Customer letter", file: NOTE };
  await op("POST", "/file/dispute", { form: evidence });
  const extra = await op("POST", "/file/dispute", { form: { ...evidence, name: "Extra" } });
  await op("DELETE", at("/file/dispute/{id}", extra.id));
  await op("POST", at("/underwriting/dispute/{id}/submit", dispute.id));
  await op("POST", "/_sandbox/disputes", { body: { transaction_id: sale.id } });

  const emails = await op("GET", "/_sandbox/emails?per_page=5");
  await op("GET", at("/_sandbox/emails/{id}", emails.data[0].id));
  await op("GET", "/_sandbox/sms?per_page=5");
  const deliveries = await op("GET", "/_sandbox/webhook-deliveries?per_page=5");
  await op("GET", at("/_sandbox/webhook-deliveries/{id}", deliveries.data[0].id));
  await op("POST", at("/_sandbox/webhook-deliveries/{id}/redeliver", deliveries.data[0].id));
  await op("DELETE", at("/webhook/{id}", hook.id));
  const spare = await op("POST", "/customer", { body: { firstname: "Spare" } });
  const sparePm = await op("POST", "/payment-method", { body: { ...CARD, customer_id: spare.id } });
  await op("DELETE", at("/payment-method/{id}", sparePm.id));
  await op("DELETE", at("/customer/{id}", spare.id));

  const merchant = await op("POST", "/_sandbox/merchants", { body: { name: "Second shop" }, auth: false });
  await op("GET", "/_sandbox/merchants", { auth: false });
  await op("PUT", at("/_sandbox/merchants/{id}/settings", merchant.id), { body: { avs_zip: true }, auth: false });
  await op("POST", at("/_sandbox/merchants/{id}/regenerate-keys", merchant.id), { auth: false });
  await op("DELETE", at("/_sandbox/merchants/{id}", merchant.id), { auth: false });
  await op("GET", "/_sandbox/test-cards", { auth: false });
  await op("POST", "/_sandbox/outcomes", { body: { payment_method_id: card.id, outcomes: ["insufficient_funds"] } });
  await op("GET", "/_sandbox/outcomes");
  await op("DELETE", `/_sandbox/outcomes?payment_method_id=${card.id}`);
  await op("POST", "/_sandbox/faults", { body: { route: "POST /charge", kind: "error_500" } });
  await op("GET", "/_sandbox/faults");
  await op("DELETE", "/_sandbox/faults");
  await op("POST", "/_sandbox/snapshots", { body: { name: "before-reset" } });
  await op("GET", "/_sandbox/snapshots");
  await op("GET", at("/_sandbox/snapshots/{name}", "before-reset"));
  await op("POST", at("/_sandbox/snapshots/{name}/restore", "before-reset"));
  await op("DELETE", at("/_sandbox/snapshots/{name}", "before-reset"));
  await op("POST", "/_sandbox/fixtures", {
    body: { steps: [{ name: "c", method: "POST", path: "/customer", body: { firstname: "Fixture" } }] },
  });
  await op("POST", "/_sandbox/reset");
}

/** A payer's names and contact, as pay() sends them without a customer_id. */
const PAYER = {
  firstname: "Ada",
  lastname: "Lovelace",
  phone: "5555550100",
  address_1: "1 Analytical Way",
  address_city: "London",
  address_state: "LN",
};

/** Requests breaking a rule the server enforces, each in a form the document can say. */
export function BAD_REQUESTS(ctx: TestContext): Call[] {
  // JSON null too is a 422 at the server; Prism reads a null body as none, so it is checked in
  // tests/http/openapi-client.test.ts's way only (the server's answer), not here.
  const notObjects = ['"hello"', "[]", "42"];
  const bodies: Call[] = [];
  for (const [method, path] of [
    ["POST", "/customer"],
    ["POST", "/charge"],
    ["POST", "/webhook"],
    ["PUT", "/team/options"],
    ["POST", "/_sandbox/clock/advance"],
  ]) {
    for (const raw of notObjects) bodies.push({ method: method!, path: path!, raw });
  }
  const tokenize = `/webpayment/${ctx.token}/tokenize`;
  return [
    ...bodies,
    { method: "POST", path: tokenize, body: { ...CARD, method: "cash" }, auth: false },
    { method: "POST", path: tokenize, body: { ...BANK, bank_type: "savingz" }, auth: false },
    { method: "POST", path: tokenize, body: { ...CARD, card_exp: "13/30" }, auth: false },
    { method: "POST", path: tokenize, body: { ...CARD, email: "not-an-address" }, auth: false },
    { method: "POST", path: "/customer", body: { firstname: "A", email: "not-an-address" } },
    { method: "POST", path: "/customer", body: { firstname: "A".repeat(51) }, breaks: "firstname" },
    { method: "PUT", path: "/customer/x", body: { phone: "555" }, breaks: "phone" },
    { method: "POST", path: tokenize, body: { ...CARD, address_state: "FLA" }, auth: false, breaks: "address_state" },
    { method: "POST", path: "/payment-method", body: { ...CARD, address_country: "US" }, breaks: "address_country" },
    { method: "POST", path: "/charge", body: { payment_method_id: "x", total: "ten" } },
    { method: "POST", path: "/charge", body: { total: 10 } },
    // total > 0 with at most two decimals, as a JSON number and as a numeric string.
    ...[0, -5, 19.999, 0.001, 100_000_000, "0", "0.00", "-1", "19.999", "1e3", "123456789"].map((total) => ({
      method: "POST",
      path: "/charge",
      body: { payment_method_id: "x", total },
      breaks: "total",
    })),
    { method: "POST", path: "/credit", body: { payment_method_id: "x", total: 0 }, breaks: "total" },
    { method: "POST", path: "/invoice", body: { customer_id: "x", total: 10.005 }, breaks: "total" },
    { method: "POST", path: "/invoice/schedule", body: { rule: "FREQ=MONTHLY", total: "0.00" }, breaks: "total" },
    { method: "POST", path: "/transaction/x/refund", body: { total: 0.001 }, breaks: "total" },
    { method: "POST", path: "/query/payment-links", body: { common_name: "Gift", amount: 0 }, breaks: "amount" },
    // pay()'s invoice step: names always, contact without a customer_id (each refused alone).
    ...["firstname", "lastname", "phone", "address_1", "address_city", "address_state"].map((field) => ({
      method: "POST",
      path: `/webpayment/${ctx.token}/invoice`,
      body: { payment_method_id: "x", total: 5, ...PAYER, [field]: undefined },
      auth: false as const,
      breaks: field,
    })),
    {
      method: "POST",
      path: `/webpayment/${ctx.token}/invoice`,
      body: { payment_method_id: "x", total: 5, ...PAYER, phone: "555" },
      auth: false,
      breaks: "phone",
    },
    {
      method: "POST",
      path: `/webpayment/${ctx.token}/invoice`,
      body: { payment_method_id: "x", total: 5, customer_id: "  ", firstname: "Ada", lastname: "Lovelace" },
      auth: false,
      breaks: "customer_id",
    },
    {
      method: "POST",
      path: `/webpayment/${ctx.token}/invoice`,
      body: { payment_method_id: "x", total: 5, customer_id: "c", firstname: " ", lastname: "Lovelace" },
      auth: false,
      breaks: "firstname",
    },
    {
      method: "POST",
      path: `/webpayment/${ctx.token}/payment-link/no-such-link/pay`,
      body: { payment_method_id: "x", lastname: "Lovelace" },
      auth: false,
      breaks: "firstname",
    },
    { method: "POST", path: "/webhook", body: { target_url: "http://127.0.0.1:9/x", event: "nope" } },
    { method: "POST", path: "/webhook", body: { target_url: "ftp://127.0.0.1/x", event: "*" } },
    { method: "POST", path: "/webhook?target_url=http%3A%2F%2F127.0.0.1%3A9%2Fx&event=nope", breaks: "query.event" },
    { method: "POST", path: "/webhook?target_url=ftp%3A%2F%2F127.0.0.1%2Fx&event=*", breaks: "query.target_url" },
    {
      method: "POST",
      path: "/webhook",
      body: { target_url: "http://127.0.0.1:9/x", event: "*", meta: { webhook_retry_count: 99 } },
    },
    { method: "POST", path: "/invoice", body: { total: 5 } },
    { method: "POST", path: "/item", body: { price: 3 } },
    { method: "PUT", path: "/team/options", body: { ach_settlement_days: "x" } },
    { method: "PUT", path: "/team/options", body: { receipt_cc: ["not-an-address"] } },
    {
      method: "PUT",
      path: "/team/options",
      body: { cnp_credit_surcharge_rate: 2.999 },
      breaks: "cnp_credit_surcharge_rate",
    },
    { method: "POST", path: "/item", body: { item: "Tea", price: 3.001 }, breaks: "price" },
    {
      method: "POST",
      path: "/query/payment-links",
      body: { common_name: "Tea", link_meta: { item: "Tea", price: 3, quantity: 0 } },
      breaks: "quantity",
    },
    { method: "GET", path: "/customer?per_page=0" },
    { method: "GET", path: "/transaction?per_page=abc" },
    { method: "GET", path: "/self", auth: false },
    { method: "POST", path: "/_sandbox/clock/advance", body: { seconds: -5 } },
  ];
}
