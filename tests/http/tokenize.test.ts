import { beforeEach, describe, expect, test } from "bun:test";
import { MESSAGES } from "../../packages/rules/messages";
import { BANK, CARD, otherMerchant, setup, tokenize, type TestContext } from "../support/app";
import { sql } from "../../src/storage/database";
import { countRows } from "../support/database";

let ctx: TestContext;
beforeEach(async () => {
  ctx = await setup();
});

const tokenizeRaw = (body: Record<string, unknown>, token = ctx.token) =>
  ctx.call("POST", `/webpayment/${token}/tokenize`, { body, auth: false });

/** Posts CARD (or BANK) with overrides and expects a 422 naming exactly `field`. */
async function expectFieldError(
  field: string,
  overrides: Record<string, unknown>,
  base: Record<string, unknown> = CARD,
) {
  const body: Record<string, unknown> = { ...base, ...overrides };
  for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete body[key];
  const res = await tokenizeRaw(body);
  expect(res.status).toBe(422);
  expect(res.body.code).toBe("validation_error");
  expect(Object.keys(res.body.errors)).toEqual([field]);
  return res.body.errors[field] as string[];
}

describe("POST /webpayment/{token}/tokenize", () => {
  test("a test card becomes a payment method with brand, last four and expiry, never the number", async () => {
    const pm = await tokenize(ctx);
    expect(pm).toMatchObject({
      method: "card",
      card_type: "visa",
      card_last_four: "1111",
      card_exp: "1230",
      person_name: "Ada Lovelace",
      has_cvv: true,
      customer: { firstname: "Ada", lastname: "Lovelace", email: "ada@example.com", phone: "5555550100" },
    });
    expect(pm.customer_id).toBe(pm.customer.id);
    expect(JSON.stringify(pm)).not.toContain("4111111111111111");
    const stored = await ctx.deps.db.all(sql`SELECT * FROM payment_methods`);
    expect(JSON.stringify(stored)).not.toContain("4111111111111111");
    expect(JSON.stringify(stored)).not.toContain('"123"');
  });

  test("the same card gets the same fingerprint; another card a different one", async () => {
    const a = await tokenize(ctx);
    const b = await tokenize(ctx, { card_number: "4111 1111 1111 1111" });
    const c = await tokenize(ctx, { card_number: "5555555555554444" });
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(c.fingerprint).not.toBe(a.fingerprint);
  });

  test("the test bank account becomes a bank payment method", async () => {
    const pm = await tokenize(ctx, { ...BANK });
    expect(pm).toMatchObject({
      method: "bank",
      bank_type: "savings",
      bank_holder_type: "personal",
      bank_name: "Test Bank",
      bank_last_four: "3210",
      card_type: null,
    });
  });

  test("customers are matched on the same email, first and last name, ignoring case", async () => {
    const first = await tokenize(ctx);
    const same = await tokenize(ctx, { email: "ADA@example.com", firstname: "ada", lastname: "LOVELACE" });
    const otherName = await tokenize(ctx, { firstname: "Augusta" });
    const otherEmail = await tokenize(ctx, { email: "ada@other.example" });
    expect(same.customer_id).toBe(first.customer_id);
    expect(otherName.customer_id).not.toBe(first.customer_id);
    expect(otherEmail.customer_id).not.toBe(first.customer_id);
  });

  test("without firstname and lastname the customer is named from person_name", async () => {
    const pm = await tokenize(ctx, { firstname: undefined, lastname: undefined, person_name: "Grace Brewster Hopper" });
    expect(pm.customer).toMatchObject({ firstname: "Grace", lastname: "Brewster Hopper" });
  });

  test("a given customer_id is used and the customer fields are ignored", async () => {
    const first = await tokenize(ctx);
    const pm = await tokenize(ctx, {
      customer_id: first.customer_id,
      firstname: "Someone",
      phone: "1",
      email: "not-an-email",
    });
    expect(pm.customer_id).toBe(first.customer_id);
    expect(pm.customer.firstname).toBe("Ada");
  });

  test("a customer_id of another merchant is refused like one that does not exist", async () => {
    const other = await otherMerchant(ctx);
    const theirs = await tokenize(ctx, {}, other.web_payments_token);
    expect(await expectFieldError("customer_id", { customer_id: theirs.customer_id })).toEqual([
      MESSAGES.customerNotFound,
    ]);
    await expectFieldError("customer_id", { customer_id: "no-such-customer" });
  });

  test("an unknown web payments token is a 401", async () => {
    const res = await tokenizeRaw(CARD, "wpt_unknown");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: "Unknown web payments token.", code: "unauthenticated" });
  });

  test("every error lists all failing fields at once", async () => {
    const res = await tokenizeRaw({ ...CARD, phone: "123", email: "x", card_exp: "1399" });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(["card_exp", "email", "phone"]);
  });

  describe("one 422 per input rule", () => {
    test("method is required and must be card or bank", async () => {
      await expectFieldError("method", { method: undefined });
      expect(await expectFieldError("method", { method: "cash" })).toEqual([
        MESSAGES.oneOf("method", ["card", "bank"]),
      ]);
    });
    test("person_name is required and at most 50 characters", async () => {
      await expectFieldError("person_name", { person_name: undefined });
      expect(await expectFieldError("person_name", { person_name: "x".repeat(51) })).toEqual([
        MESSAGES.maxLength("person_name", 50),
      ]);
    });
    test("firstname and lastname are at most 50 characters", async () => {
      await expectFieldError("firstname", { firstname: "x".repeat(51) });
      await expectFieldError("lastname", { lastname: "x".repeat(51) });
    });
    test("phone has at least 10 characters", async () => {
      expect(await expectFieldError("phone", { phone: "555123456" })).toEqual([MESSAGES.minLength("phone", 10)]);
    });
    test("email must be valid", async () => {
      expect(await expectFieldError("email", { email: "ada@" })).toEqual([MESSAGES.email]);
    });
    test("address_1, address_2 and address_city are at most 255 characters", async () => {
      await expectFieldError("address_1", { address_1: "x".repeat(256) });
      await expectFieldError("address_2", { address_2: "x".repeat(256) });
      await expectFieldError("address_city", { address_city: "x".repeat(256) });
    });
    test("address_state is at most 2 characters", async () => {
      await expectFieldError("address_state", { address_state: "FLA" });
    });
    test("address_country is exactly 3 characters", async () => {
      await expectFieldError("address_country", { address_country: "US" });
      await tokenize(ctx, { address_country: "USA" });
    });
    test("address_zip is required when the merchant checks the zip (avs_zip)", async () => {
      await tokenize(ctx, { address_zip: undefined });
      await ctx.deps.services.merchants.updateSettings(ctx.merchantId, { avs_zip: true });
      await expectFieldError("address_zip", { address_zip: undefined });
    });
    test("address_1 is required when the merchant checks the street (avs_street)", async () => {
      await ctx.deps.services.merchants.updateSettings(ctx.merchantId, { avs_street: true });
      await expectFieldError("address_1", { address_1: undefined });
    });
    test("the card number is required, digits, a valid number, and a test card", async () => {
      await expectFieldError("card_number", { card_number: undefined });
      expect(await expectFieldError("card_number", { card_number: "4111abcd" })).toEqual([MESSAGES.cardNumberDigits]);
      expect(await expectFieldError("card_number", { card_number: "4111111111111112" })).toEqual([
        MESSAGES.cardNumberInvalid,
      ]);
      // 4242… is a valid Visa number, but not one of the sandbox's test cards.
      expect(await expectFieldError("card_number", { card_number: "4242424242424242" })).toEqual([
        MESSAGES.cardNumberNotTest,
      ]);
    });
    test("card_exp is MMYY with a month 01-12 and not in the past", async () => {
      await expectFieldError("card_exp", { card_exp: undefined });
      expect(await expectFieldError("card_exp", { card_exp: "1330" })).toEqual([MESSAGES.cardExp]);
      expect(await expectFieldError("card_exp", { card_exp: "12/30" })).toEqual([MESSAGES.cardExp]);
      expect(await expectFieldError("card_exp", { card_exp: "0120" })).toEqual([MESSAGES.cardExpired]);
    });
    test("the CVV has the brand's length", async () => {
      expect(await expectFieldError("card_cvv", { card_cvv: "1234" })).toEqual([MESSAGES.cvvInvalid(3)]);
      await expectFieldError("card_cvv", { card_number: "378282246310005", card_cvv: "123" });
      await tokenize(ctx, { card_number: "378282246310005", card_cvv: "1234" });
    });
    test("bank_type is checking or savings; bank_holder_type personal or business", async () => {
      await expectFieldError("bank_type", { bank_type: "brokerage" }, BANK);
      await expectFieldError("bank_holder_type", { bank_holder_type: "trust" }, BANK);
    });
    test("bank_routing is 9 digits with a valid ABA checksum, and the test routing number", async () => {
      expect(await expectFieldError("bank_routing", { bank_routing: "12345678" }, BANK)).toEqual([
        MESSAGES.routingDigits,
      ]);
      expect(await expectFieldError("bank_routing", { bank_routing: "021000022" }, BANK)).toEqual([
        MESSAGES.routingChecksum,
      ]);
      expect(await expectFieldError("bank_routing", { bank_routing: "011000015" }, BANK)).toEqual([
        MESSAGES.routingNotTest,
      ]);
    });
    test("bank_account is digits", async () => {
      await expectFieldError("bank_account", { bank_account: "98765-4321" }, BANK);
      await expectFieldError("bank_account", { bank_account: undefined }, BANK);
    });
    test("a field of the wrong type is a 422 naming it", async () => {
      await expectFieldError("card_number", { card_number: 4111111111111111 });
    });
  });

  test("a refused tokenize writes nothing", async () => {
    await tokenizeRaw({ ...CARD, card_number: "4242424242424242" });
    expect(await countRows(ctx.deps.db, "customers")).toBe(0);
    expect(await countRows(ctx.deps.db, "payment_methods")).toBe(0);
  });

  test("browsers on any origin may call it (CORS preflight and response headers)", async () => {
    const preflight = await ctx.app.handle(
      new Request(`http://localhost/webpayment/${ctx.token}/tokenize`, {
        method: "OPTIONS",
        headers: { origin: "http://shop.test", "access-control-request-method": "POST" },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("idempotency-key");
    expect(preflight.headers.get("access-control-expose-headers")).toContain("idempotent-replayed");
    const res = await tokenizeRaw({ ...CARD, card_number: "1" });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});
