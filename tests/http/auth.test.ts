import { beforeEach, describe, expect, test } from "bun:test";
import { charge, otherMerchant, setup, tokenize, type TestContext } from "../support/app";

let ctx: TestContext;
beforeEach(async () => {
  ctx = await setup();
});

/** Merchant routes of the core service, with a body where they take one. */
const MERCHANT_ROUTES: [string, string, unknown?][] = [
  ["POST", "/charge", { payment_method_id: "x", total: 1 }],
  ["GET", "/transaction"],
  ["GET", "/transaction/x"],
  ["GET", "/customer"],
  ["POST", "/customer", { firstname: "A" }],
  ["GET", "/customer/x"],
  ["PUT", "/customer/x", { firstname: "A" }],
  ["DELETE", "/customer/x"],
  ["GET", "/customer/x/payment-method"],
  ["GET", "/payment-method/x"],
  ["DELETE", "/payment-method/x"],
  ["GET", "/self"],
];

describe("authentication", () => {
  test("merchant routes answer 401 without a key, with an unknown key, or a malformed header", async () => {
    for (const [method, path, body] of MERCHANT_ROUTES) {
      const none = await ctx.call(method, path, { body, auth: false });
      expect(none.status).toBe(401);
      expect(none.body.code).toBe("unauthenticated");
      const wrong = await ctx.call(method, path, { body, auth: "sk_sandbox_wrong" });
      expect(wrong.status).toBe(401);
      const malformed = await ctx.call(method, path, { body, auth: false, headers: { authorization: ctx.apiKey } });
      expect(malformed.status).toBe(401);
      expect(malformed.body.message).toBe("The Authorization header must be: Bearer <api_key>.");
    }
  });

  test("authentication is checked before the body: a bad body without a key is still a 401", async () => {
    const res = await ctx.call("POST", "/charge", { raw: "{not json", auth: false });
    expect(res.status === 401 || res.status === 400).toBe(true);
    const invalid = await ctx.call("POST", "/charge", { body: { total: "x" }, auth: false });
    expect(invalid.status).toBe(401);
  });

  test("the public web payments token is refused on every merchant route with 403", async () => {
    for (const [method, path, body] of MERCHANT_ROUTES) {
      const res = await ctx.call(method, path, { body, auth: ctx.token });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("forbidden");
    }
  });

  test("GET /self shows the merchant of the key with its settings and webhook secret", async () => {
    const res = await ctx.call("GET", "/self");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: ctx.merchantId,
      web_payments_token: "sandbox_web_payments_token",
      api_key: "sandbox_api_key",
      is_default: true,
      settings: { avs_zip: false, avs_street: false, advanced_customization: false, ach_settlement_days: 2 },
    });
    expect(res.body.webhook_secret).toMatch(/^whsec_/);
  });

  test("a configured default key replaces the fixed one", async () => {
    const custom = await setup({ config: { defaultApiKey: "sk_custom", defaultWebPaymentsToken: "wpt_custom" } });
    expect((await custom.call("GET", "/self", { auth: "sk_custom" })).status).toBe(200);
    expect((await custom.call("GET", "/self", { auth: "sandbox_api_key" })).status).toBe(401);
  });
});

describe("merchants", () => {
  test("POST /_sandbox/merchants creates a merchant with its own random keys and settings", async () => {
    const res = await ctx.call("POST", "/_sandbox/merchants", {
      body: { name: "CI run", settings: { avs_zip: true } },
      auth: false,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "CI run", is_default: false, settings: { avs_zip: true } });
    expect(res.body.api_key).toMatch(/^sk_sandbox_/);
    expect(res.body.web_payments_token).toMatch(/^wpt_/);
    const self = await ctx.call("GET", "/self", { auth: res.body.api_key });
    expect(self.body.id).toBe(res.body.id);
    const list = await ctx.call("GET", "/_sandbox/merchants", { auth: false });
    expect(list.body.map((m: { name: string }) => m.name)).toEqual(["Sandbox Merchant", "CI run"]);
  });

  test("PUT /_sandbox/merchants/{id}/settings changes settings, read back by GET /self", async () => {
    const res = await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
      body: { avs_street: true, advanced_customization: true, ach_settlement_days: 3 },
      auth: false,
    });
    expect(res.status).toBe(200);
    const self = await ctx.call("GET", "/self");
    expect(self.body.settings).toEqual({
      avs_zip: false,
      avs_street: true,
      advanced_customization: true,
      ach_settlement_days: 3,
      custom_fields: [],
      receipt_reply_to: "",
      receipt_cc: [],
      receipt_footer: "",
      receipt_send_declined: true,
      is_surcharge_enabled: false,
      cnp_credit_surcharge_rate: null,
    });
    const missing = await ctx.call("PUT", "/_sandbox/merchants/nope/settings", {
      body: { avs_zip: true },
      auth: false,
    });
    expect(missing.status).toBe(404);
    const bad = await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
      body: { avs_zip: "yes" },
      auth: false,
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(["avs_zip"]);
  });
});

describe("isolation between merchants", () => {
  test("records of one merchant are 404 to every other key, and never listed", async () => {
    const other = await otherMerchant(ctx);
    const pm = await tokenize(ctx);
    const tx = (await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 3 } })).body;
    const as = { auth: other.api_key };
    for (const path of [
      `/transaction/${tx.id}`,
      `/customer/${pm.customer_id}`,
      `/customer/${pm.customer_id}/payment-method`,
      `/payment-method/${pm.id}`,
    ]) {
      const res = await ctx.call("GET", path, as);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("not_found");
    }
    expect((await ctx.call("PUT", `/customer/${pm.customer_id}`, { ...as, body: { firstname: "X" } })).status).toBe(
      404,
    );
    expect((await ctx.call("DELETE", `/customer/${pm.customer_id}`, as)).status).toBe(404);
    expect((await ctx.call("DELETE", `/payment-method/${pm.id}`, as)).status).toBe(404);
    const stolen = await ctx.call("POST", "/charge", { ...as, body: { payment_method_id: pm.id, total: 1 } });
    expect(stolen.status).toBe(404);
    expect((await ctx.call("GET", "/transaction", as)).body.total).toBe(0);
    expect((await ctx.call("GET", "/customer", as)).body.total).toBe(0);
    // and the owner still sees everything, unchanged
    expect((await ctx.call("GET", `/customer/${pm.customer_id}`)).body.firstname).toBe("Ada");
    expect((await ctx.call("GET", "/transaction")).body.total).toBe(1);
  });

  test("a charge declined for one merchant does not show for another", async () => {
    const other = await otherMerchant(ctx);
    await charge(ctx, 5, { card_number: "4012888888881881" });
    expect((await ctx.call("GET", "/transaction", { auth: other.api_key })).body.data).toEqual([]);
  });
});
