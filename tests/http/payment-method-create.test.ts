/**
 * POST /payment-method, as the current mobile SDKs create payment methods server-side: POST
 * /customer, then POST /payment-method with the card or bank fields, customer_id and the merchant
 * key. The same rules, test cards and fingerprint-only storage as tokenize.
 */
import { describe, expect, test } from "bun:test";
import { MESSAGES } from "../../packages/rules/messages";
import { BANK, setup, tokenize, type TestContext } from "../support/app";
import { dumpAllTables } from "../support/database";

const AMEX = "378282246310005";
const AMEX_CVV = "7391";

async function customer(ctx: TestContext) {
  const res = await ctx.call("POST", "/customer", { body: { firstname: "Grace", lastname: "Hopper" } });
  expect(res.status).toBe(200);
  return res.body;
}

/** The card body the SDKs send: snake_case fields, customer_id, and members the sandbox ignores. */
const sdkCard = (customerId: string) => ({
  customer_id: customerId,
  merchant_id: "whatever-the-app-thinks",
  method: "card",
  person_name: "Grace Hopper",
  card_number: AMEX,
  card_cvv: AMEX_CVV,
  card_exp: "1230",
  tokenize: true,
  nickname: "corporate card",
});

describe("POST /payment-method", () => {
  test("creates a card payment method for a customer made with POST /customer, which then charges", async () => {
    const ctx = await setup();
    const cust = await customer(ctx);
    const res = await ctx.call("POST", "/payment-method", { body: sdkCard(cust.id) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      customer_id: cust.id,
      merchant_id: ctx.merchantId,
      method: "card",
      card_type: "amex",
      card_last_four: "0005",
      card_exp: "1230",
      has_cvv: true,
      person_name: "Grace Hopper",
    });
    expect(res.body.customer.id).toBe(cust.id);
    // The answer is built, not read back: it is the payment method as stored.
    expect((await ctx.call("GET", `/payment-method/${res.body.id}`)).body).toEqual(res.body);
    const charged = await ctx.call("POST", "/charge", { body: { payment_method_id: res.body.id, total: 12.5 } });
    expect(charged.status).toBe(200);
    expect(charged.body).toMatchObject({ success: true, customer_id: cust.id, last_four: "0005" });
  });

  test("creates a bank payment method the same way", async () => {
    const ctx = await setup();
    const cust = await customer(ctx);
    const { email: _email, ...bank } = BANK;
    const res = await ctx.call("POST", "/payment-method", { body: { ...bank, customer_id: cust.id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ method: "bank", bank_last_four: "3210", customer_id: cust.id, card_type: null });
    expect((await ctx.call("GET", `/payment-method/${res.body.id}`)).body).toEqual(res.body);
  });

  test("follows tokenize's rules: 422s per field, test cards only, a customer of this merchant", async () => {
    const ctx = await setup();
    const cust = await customer(ctx);
    const notTest = await ctx.call("POST", "/payment-method", {
      body: { ...sdkCard(cust.id), card_number: "4242424242424242" },
    });
    expect(notTest.status).toBe(422);
    expect(notTest.body.card_number).toEqual([MESSAGES.cardNumberNotTest]);
    const bad = await ctx.call("POST", "/payment-method", {
      body: { ...sdkCard("no-such-customer"), card_exp: "0120", card_cvv: "1" },
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["card_cvv", "card_exp", "customer_id"]);
    // A declining test card is accepted here and declines at charge, as with tokenize.
    const declining = await ctx.call("POST", "/payment-method", {
      body: { ...sdkCard(cust.id), card_number: "371449635398431" },
    });
    expect(declining.status).toBe(200);
    const charge = await ctx.call("POST", "/charge", { body: { payment_method_id: declining.body.id, total: 3 } });
    expect(charge.status).toBe(402);
    // Nothing was written by the refused requests: only the declining card's method exists.
    const methods = (await ctx.call("GET", `/customer/${cust.id}/payment-method`)).body;
    expect(methods.map((m: any) => m.id)).toEqual([declining.body.id]);
  });

  test("the same card gives the same fingerprint as tokenize; the number and CVV are stored nowhere", async () => {
    const ctx = await setup();
    const cust = await customer(ctx);
    const created = (await ctx.call("POST", "/payment-method", { body: sdkCard(cust.id) })).body;
    const viaTokenize = await tokenize(ctx, { card_number: AMEX, card_cvv: AMEX_CVV });
    expect(created.fingerprint).toBe(viaTokenize.fingerprint);
    const dump = await dumpAllTables(ctx.deps.db);
    expect(dump).toContain("payment_methods: [{");
    expect(dump).not.toContain(AMEX);
    expect(dump).not.toContain("card_cvv");
    expect(dump).not.toContain(`"${AMEX_CVV}"`);
    expect(ctx.log.lines.join("\n")).not.toContain(AMEX);
  });

  test("honours an Idempotency-Key like the other write routes", async () => {
    const ctx = await setup();
    const cust = await customer(ctx);
    const headers = { "idempotency-key": "pm-1" };
    const first = await ctx.call("POST", "/payment-method", { body: sdkCard(cust.id), headers });
    const again = await ctx.call("POST", "/payment-method", { body: sdkCard(cust.id), headers });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const other = await ctx.call("POST", "/payment-method", {
      body: { ...sdkCard(cust.id), person_name: "G. Hopper" },
      headers,
    });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe("idempotency_conflict");
    const viaBody = await ctx.call("POST", "/payment-method", {
      body: { ...sdkCard(cust.id), idempotency_id: "pm-1" },
    });
    expect(viaBody.body.id).toBe(first.body.id);
    const methods = (await ctx.call("GET", `/customer/${cust.id}/payment-method`)).body;
    expect(methods).toHaveLength(1);
  });

  test("needs the merchant key: 401 without, 403 with the public token; another merchant's customer is a 422", async () => {
    const ctx = await setup();
    const cust = await customer(ctx);
    expect((await ctx.call("POST", "/payment-method", { body: sdkCard(cust.id), auth: false })).status).toBe(401);
    expect((await ctx.call("POST", "/payment-method", { body: sdkCard(cust.id), auth: ctx.token })).status).toBe(403);
    const other = await ctx.call("POST", "/_sandbox/merchants", { body: { name: "Other" }, auth: false });
    const theirs = await ctx.call("POST", "/payment-method", { body: sdkCard(cust.id), auth: other.body.api_key });
    expect(theirs.status).toBe(422);
    expect(theirs.body.customer_id).toEqual([MESSAGES.customerNotFound]);
  });
});
