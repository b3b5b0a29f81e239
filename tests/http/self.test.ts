/**
 * GET /self as the real service's clients read it: `{ user, merchant }` (the Python client's
 * Merchant and User models, the mobile SDKs' `merchant.hosted_payments_token`), with the
 * sandbox's own fields still at the top level.
 */
import { describe, expect, test } from "bun:test";
import { otherMerchant, setup } from "../support/app";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

describe("GET /self", () => {
  test("answers { user, merchant } in the real service's shape beside the sandbox's own fields", async () => {
    const ctx = await setup();
    const res = await ctx.call("GET", "/self");
    expect(res.status).toBe(200);
    const self = res.body;
    // The fields that were there before stay (webhook verification and the tests read them).
    expect(self).toMatchObject({ id: ctx.merchantId, api_key: ctx.apiKey, web_payments_token: ctx.token });
    expect(typeof self.webhook_secret).toBe("string");
    expect(self.settings).toEqual({
      avs_zip: false,
      avs_street: false,
      advanced_customization: false,
      ach_settlement_days: 2,
      custom_fields: [],
      receipt_reply_to: "",
      receipt_cc: [],
      receipt_footer: "",
      receipt_send_declined: true,
      is_surcharge_enabled: false,
      cnp_credit_surcharge_rate: null,
    });
    expect(self.merchant).toMatchObject({
      id: ctx.merchantId,
      status: "ACTIVE",
      company_name: "Sandbox Merchant",
      display_name: "Sandbox Merchant",
      contact_name: "Sandbox Merchant",
      hosted_payments_token: ctx.token,
      allow_ach: true,
      options: self.settings,
      created_at: self.created_at,
      updated_at: self.updated_at,
    });
    expect(self.merchant.mid).toMatch(/^\d{12}$/);
    for (const field of [
      "contact_email",
      "contact_phone",
      "address_1",
      "address_2",
      "address_city",
      "address_state",
      "address_zip",
    ])
      expect(typeof self.merchant[field]).toBe("string");
    expect(self.merchant.created_at).toMatch(TIMESTAMP);
    expect(self.user).toMatchObject({
      merchant_id: ctx.merchantId,
      is_api_key: true,
      name: "Sandbox Merchant API key",
    });
    expect(self.user.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(self.user.email).toBeNull();
  });

  test("each merchant has its own stable user and mid; settings show in merchant.options", async () => {
    const ctx = await setup();
    const first = (await ctx.call("GET", "/self")).body;
    expect((await ctx.call("GET", "/self")).body.user.id).toBe(first.user.id);
    const other = await otherMerchant(ctx);
    await ctx.call("PUT", `/_sandbox/merchants/${other.id}/settings`, { body: { avs_zip: true }, auth: false });
    const theirs = (await ctx.call("GET", "/self", { auth: other.api_key })).body;
    expect(theirs.merchant).toMatchObject({ id: other.id, hosted_payments_token: other.web_payments_token });
    expect(theirs.merchant.options.avs_zip).toBe(true);
    expect(theirs.user.merchant_id).toBe(other.id);
    expect(theirs.user.id).not.toBe(first.user.id);
    expect(theirs.merchant.mid).not.toBe(first.merchant.mid);
  });

  test("the merchant's e-mail is the user's and the contact's", async () => {
    const ctx = await setup();
    const res = await ctx.call("POST", "/_sandbox/merchants", {
      body: { name: "Shop", email: "owner@shop.example" },
      auth: false,
    });
    const self = (await ctx.call("GET", "/self", { auth: res.body.api_key })).body;
    expect(self.user.email).toBe("owner@shop.example");
    expect(self.merchant.contact_email).toBe("owner@shop.example");
    expect(self.merchant.company_name).toBe("Shop");
  });
});
