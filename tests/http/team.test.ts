/**
 * The real service's account operations (issue 28): GET /ephemeral (accepted as a Bearer token
 * until it expires on the merchant's clock), GET /team/apikey, PUT /team/options and
 * PUT /team/option/advanced_customizations, which reach the merchant settings that exist today.
 */
import { describe, expect, test } from "bun:test";
import { EPHEMERAL_MESSAGES, EPHEMERAL_TTL_SECONDS } from "../../src/services/ephemeral";
import { otherMerchant, setup } from "../support/app";
import { realOperation, shapeDifferences } from "../support/real-api";

describe("GET /ephemeral", () => {
  test("a token that works as the API key until it expires on the merchant's sandbox clock", async () => {
    const ctx = await setup();
    const self = (await ctx.call("GET", "/self")).body;
    const res = await ctx.call("GET", `/ephemeral?user_id=${self.user.id}`);
    expect(res.status).toBe(200);
    expect(res.body.token.split(".")).toHaveLength(3);
    const { token, expires_at } = res.body;
    const asToken = await ctx.call("GET", "/self", { auth: token });
    expect(asToken.status).toBe(200);
    expect(asToken.body.id).toBe(ctx.merchantId);
    expect((await ctx.call("POST", "/customer", { auth: token, body: { firstname: "Eph" } })).status).toBe(200);

    await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds: EPHEMERAL_TTL_SECONDS + 1 } });
    const late = await ctx.call("GET", "/self", { auth: token });
    expect(late.status).toBe(401);
    expect(late.body.message).toBe(EPHEMERAL_MESSAGES.expired(expires_at));
    // The API key itself is unaffected; a fresh token works again.
    const fresh = (await ctx.call("GET", "/ephemeral")).body.token;
    expect((await ctx.call("GET", "/self", { auth: fresh })).status).toBe(200);
  });

  test("a token names its merchant only; a changed one is refused; an unknown user is a 422", async () => {
    const ctx = await setup();
    const other = await otherMerchant(ctx);
    const theirs = (await ctx.call("GET", "/ephemeral", { auth: other.api_key })).body.token;
    expect((await ctx.call("GET", "/self", { auth: theirs })).body.id).toBe(other.id);
    const [head, payload, signature] = theirs.split(".");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, merchant_id: ctx.merchantId })).toString("base64url");
    expect((await ctx.call("GET", "/self", { auth: `${head}.${forged}.${signature}` })).status).toBe(401);
    const bad = await ctx.call("GET", "/ephemeral?user_id=someone-else");
    expect(bad.status).toBe(422);
    expect(bad.body.errors.user_id).toBeDefined();
    expect((await ctx.call("GET", "/ephemeral?user_email=nobody@example.com")).status).toBe(422);
    expect((await ctx.call("GET", "/ephemeral", { auth: false })).status).toBe(401);
  });
});

describe("GET /team/apikey", () => {
  test("lists the merchant's API user with its key, in the real page shape", async () => {
    const ctx = await setup();
    const res = await ctx.call("GET", "/team/apikey");
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    expect(res.body.data[0].api_key).toBe(ctx.apiKey);
    expect(res.body.data[0].id).toBe((await ctx.call("GET", "/self")).body.user.id);
    const example = realOperation("GET", "/team/apikey").example;
    // The sandbox's page envelope: per_page and the page links as every list of it has them.
    expect(shapeDifferences(res.body, example, 1)).toEqual([]);
  });
});

describe("PUT /team/options and /team/option/advanced_customizations", () => {
  test("changes the merchant's settings and answers the merchant in the real shape", async () => {
    const ctx = await setup();
    const res = await ctx.call("PUT", "/team/options", {
      body: { avs_zip: true, ach_settlement_days: 0, receipt_footer: "Thanks" },
    });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(ctx.merchantId);
    expect(res.body.options).toMatchObject({ avs_zip: true, ach_settlement_days: 0, receipt_footer: "Thanks" });
    expect((await ctx.call("GET", "/self")).body.settings).toMatchObject({ avs_zip: true, ach_settlement_days: 0 });
    const example = realOperation("PUT", "/team/options").example as Record<string, unknown>;
    const differences = shapeDifferences(res.body, example, 0);
    for (const field of ["id", "mid", "status", "company_name", "hosted_payments_token", "options", "currency"])
      expect(differences.filter((d) => d.endsWith(` ${field}`) || d.includes(` ${field} `))).toEqual([]);

    for (const body of [{ ach_settlement_days: 11 }, { avs_zip: "yes" }, { receipt_cc: ["nope"] }]) {
      expect((await ctx.call("PUT", "/team/options", { body })).status).toBe(422);
    }
    // A real team option the sandbox does not have is ignored.
    const other = await ctx.call("PUT", "/team/options", { body: { webpayment_customer_matching_enabled: true } });
    expect(other.status).toBe(200);
    expect(other.body.options).not.toHaveProperty("webpayment_customer_matching_enabled");
    expect((await ctx.call("GET", "/self")).body.settings.ach_settlement_days).toBe(0);
  });

  test("adds a custom field, replaces it by id, and refuses a select field or a missing member", async () => {
    const ctx = await setup();
    const field = { id: "po", name: "PO number", placeholder: "PO-1", required: true, visible: true, type: "text" };
    const added = await ctx.call("PUT", "/team/option/advanced_customizations", { body: { ...field, option: {} } });
    expect(added.status).toBe(200);
    expect(added.body.options.custom_fields).toEqual([field]);
    const replaced = await ctx.call("PUT", "/team/option/advanced_customizations", {
      body: { ...field, name: "Purchase order", visible: false },
    });
    expect(replaced.body.options.custom_fields).toEqual([{ ...field, name: "Purchase order", visible: false }]);
    expect((await ctx.call("GET", "/self")).body.settings.custom_fields).toHaveLength(1);
    const select = await ctx.call("PUT", "/team/option/advanced_customizations", {
      body: { ...field, id: "size", type: "select", option: { name: "S", value: "s" } },
    });
    expect(select.status).toBe(422);
    const { required: _required, ...missing } = field;
    expect((await ctx.call("PUT", "/team/option/advanced_customizations", { body: missing })).status).toBe(422);
    expect((await ctx.call("GET", "/self")).body.settings.custom_fields).toHaveLength(1);
  });
});
