/**
 * Surcharging through the real app (issue 30): the merchant's setting, GET /surcharge/review in the
 * real answer shape, the funding of the test cards, a surcharged charge and invoice payment, and
 * refunds returning the surcharge in proportion. Runs on SQLite and, with
 * PAYSANDBOX_TEST_DB=postgres, on PostgreSQL.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { BANK, otherMerchant, setup, tokenize, type TestContext } from "../support/app";
import { realOperation, shapeDifferences } from "../support/real-api";
import { SURCHARGE_MESSAGES } from "../../src/domain/surcharge";
import { TEST_CARDS } from "../../packages/rules/test-data";

let ctx: TestContext;
beforeEach(async () => {
  ctx = await setup();
});

const VISA_DEBIT = "4000056655665556";
const MASTERCARD_PREPAID = "5200000000005105";

const settings = (body: Record<string, unknown>) =>
  ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, { body, auth: false });

async function surcharging(rate = 3) {
  const res = await settings({ is_surcharge_enabled: true, cnp_credit_surcharge_rate: rate });
  expect(res.status).toBe(200);
  return res.body;
}

const review = (pmId: string, total?: string) =>
  ctx.call("GET", `/surcharge/review?payment_method_id=${pmId}${total === undefined ? "" : `&total=${total}`}`);

describe("the merchant's surcharge setting", () => {
  test("turns surcharging on with a rate, shown in GET /self as the real merchant fields", async () => {
    const merchant = await surcharging(1.5);
    expect(merchant.settings).toMatchObject({ is_surcharge_enabled: true, cnp_credit_surcharge_rate: 1.5 });
    const self = await ctx.call("GET", "/self");
    expect(self.body.merchant).toMatchObject({ is_surcharge_enabled: true, cnp_credit_surcharge_rate: 1.5 });
    expect(self.body.merchant.options).toMatchObject({ is_surcharge_enabled: true });
  });

  test("a rate over the card brands' 3% limit, too precise, or missing is a 422 and nothing changes", async () => {
    await surcharging(2);
    for (const body of [
      { cnp_credit_surcharge_rate: 3.5 },
      { cnp_credit_surcharge_rate: 0 },
      { cnp_credit_surcharge_rate: 1.555 },
      { is_surcharge_enabled: true, cnp_credit_surcharge_rate: null },
      { is_surcharge_enabled: "yes" },
    ]) {
      const res = await settings(body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 422]);
      expect(res.body.code).toBe("validation_error");
    }
    const res = await settings({ cnp_credit_surcharge_rate: 1.555 });
    expect(res.body.errors.cnp_credit_surcharge_rate).toEqual([SURCHARGE_MESSAGES.rateRange("3.00")]);
    const self = await ctx.call("GET", "/self");
    expect(self.body.settings).toMatchObject({ is_surcharge_enabled: true, cnp_credit_surcharge_rate: 2 });
  });
});

test("PUT /team/options takes the surcharge settings with the API key, under the same 3% limit", async () => {
  const over = await ctx.call("PUT", "/team/options", {
    body: { is_surcharge_enabled: true, cnp_credit_surcharge_rate: 3.5 },
  });
  expect(over.status).toBe(422);
  expect((await ctx.call("GET", "/self")).body.settings.is_surcharge_enabled).toBe(false);
  const res = await ctx.call("PUT", "/team/options", {
    body: { is_surcharge_enabled: true, cnp_credit_surcharge_rate: 3 },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ is_surcharge_enabled: true, cnp_credit_surcharge_rate: 3 });
});

describe("GET /surcharge/review", () => {
  test("answers a credit card's surcharge in the real answer shape, plus why", async () => {
    await surcharging(1.5);
    const pm = await tokenize(ctx);
    const res = await review(pm.id, "12.00");
    expect(res.status).toBe(200);
    // The real example: 1.5% of 12.00.
    expect(res.body).toEqual({
      bin_type: "CREDIT",
      surcharge_rate: 1.5,
      surcharge_amount: 0.18,
      total_with_surcharge_amount: 12.18,
      no_surcharge_reason: null,
      explanation: SURCHARGE_MESSAGES.applies("1.50"),
    });
    expect(shapeDifferences(res.body, realOperation("GET", "/surcharge/review").example)).toEqual([]);
    expect((await review(pm.id, "12.34")).body).toMatchObject({
      surcharge_amount: 0.19,
      total_with_surcharge_amount: 12.53,
    });
    expect((await review(pm.id)).body).toMatchObject({ surcharge_rate: 1.5, surcharge_amount: 0 });
  });

  test("debit and prepaid cards, bank payments and a merchant not surcharging get none, with the reason", async () => {
    const credit = await tokenize(ctx);
    expect((await review(credit.id, "100")).body).toMatchObject({
      bin_type: "CREDIT",
      surcharge_rate: 0,
      surcharge_amount: 0,
      total_with_surcharge_amount: 100,
      no_surcharge_reason: "surcharging_off",
      explanation: SURCHARGE_MESSAGES.surcharging_off,
    });
    await surcharging(3);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ card_number: VISA_DEBIT }, "DEBIT", "debit_card"],
      [{ card_number: MASTERCARD_PREPAID }, "PREPAID", "prepaid_card"],
      [BANK, "BANK", "bank_payment"],
    ];
    for (const [overrides, binType, reason] of cases) {
      const pm = await tokenize(ctx, overrides);
      const res = await review(pm.id, "100");
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        bin_type: binType,
        surcharge_rate: 0,
        surcharge_amount: 0,
        total_with_surcharge_amount: 100,
        no_surcharge_reason: reason,
        explanation: SURCHARGE_MESSAGES[reason as keyof typeof SURCHARGE_MESSAGES],
      });
    }
  });

  test("another merchant's payment method is a 404; a bad total or a missing id is a 422", async () => {
    const pm = await tokenize(ctx);
    const other = await otherMerchant(ctx);
    const res = await ctx.call("GET", `/surcharge/review?payment_method_id=${pm.id}&total=5`, { auth: other.api_key });
    expect(res.status).toBe(404);
    for (const query of [`payment_method_id=${pm.id}&total=-1`, `payment_method_id=${pm.id}&total=1.234`, "total=5"]) {
      const bad = await ctx.call("GET", `/surcharge/review?${query}`);
      expect([query, bad.status]).toEqual([query, 422]);
    }
  });
});

describe("test cards and payment methods", () => {
  test("GET /_sandbox/test-cards lists credit, debit and prepaid cards of several brands with their funding", async () => {
    const res = await ctx.call("GET", "/_sandbox/test-cards", { auth: false });
    expect(res.status).toBe(200);
    const funded = (funding: string) =>
      new Set(res.body.cards.filter((c: { funding: string }) => c.funding === funding).map((c: any) => c.brand));
    expect(funded("credit").size).toBeGreaterThanOrEqual(6);
    expect([...funded("debit")].sort()).toEqual(["discover", "mastercard", "visa"]);
    expect([...funded("prepaid")].sort()).toEqual(["amex", "mastercard", "visa"]);
    expect(res.body.cards.length).toBe(TEST_CARDS.length);
  });

  test("the payment method records its card's funding as bin_type (null for a bank account)", async () => {
    expect((await tokenize(ctx)).bin_type).toBe("CREDIT");
    const debit = await tokenize(ctx, { card_number: VISA_DEBIT });
    expect(debit).toMatchObject({ bin_type: "DEBIT", card_type: "visa" });
    expect((await ctx.call("GET", `/payment-method/${debit.id}`)).body.bin_type).toBe("DEBIT");
    expect((await tokenize(ctx, { card_number: MASTERCARD_PREPAID })).bin_type).toBe("PREPAID");
    expect((await tokenize(ctx, BANK)).bin_type).toBeNull();
  });
});

describe("a surcharged payment", () => {
  test("POST /charge adds the surcharge on top of the total and records it as its own amount", async () => {
    await surcharging(3);
    const pm = await tokenize(ctx);
    const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 100 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 103, surcharge: 3, success: true });
    expect(res.body.payment_method.bin_type).toBe("CREDIT");
    expect((await ctx.call("GET", `/transaction/${res.body.id}`)).body).toMatchObject({ total: 103, surcharge: 3 });
  });

  test("a debit card, a bank payment and a merchant not surcharging pay the total alone", async () => {
    const plain = await ctx.call("POST", "/charge", {
      body: { payment_method_id: (await tokenize(ctx)).id, total: 50 },
    });
    expect(plain.body).toMatchObject({ total: 50, surcharge: 0 });
    await surcharging(3);
    for (const overrides of [{ card_number: VISA_DEBIT }, BANK]) {
      const pm = await tokenize(ctx, overrides);
      const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 50 } });
      expect(res.body).toMatchObject({ total: 50, surcharge: 0 });
    }
  });

  test("an invoice paid with a credit card is PAID for its total; the charge and meta.surcharge carry the surcharge", async () => {
    await surcharging(2.5);
    const pm = await tokenize(ctx);
    const created = await ctx.call("POST", "/invoice", {
      body: { customer_id: pm.customer_id, total: 40, url: "https://shop.example/invoice/", meta: { memo: "m" } },
    });
    expect(created.status).toBe(200);
    const paid = await ctx.call("POST", `/invoice/${created.body.id}/pay`, { body: { payment_method_id: pm.id } });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: "PAID", total: 40, total_paid: 40, balance_due: 0 });
    expect(paid.body.meta).toMatchObject({ memo: "m", surcharge: 1 });
    expect(paid.body.child_transactions[0]).toMatchObject({ total: 41, surcharge: 1 });
  });

  test("pay() through the web payments token surcharges the same way", async () => {
    await surcharging(3);
    const pm = await tokenize(ctx);
    const invoice = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
      body: {
        payment_method_id: pm.id,
        total: 20,
        firstname: "Ada",
        lastname: "Lovelace",
        email: "ada@example.com",
        phone: "5555550100",
        address_1: "1 Analytical Way",
        address_city: "London",
        address_state: "LN",
        address_zip: "32822",
      },
      auth: false,
    });
    expect(invoice.status).toBe(200);
    const paid = await ctx.call("POST", `/webpayment/${ctx.token}/invoice/${invoice.body.id}/pay`, {
      body: { payment_method_id: pm.id },
      auth: false,
    });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: "PAID", total_paid: 20 });
    expect(paid.body.child_transactions[0]).toMatchObject({ total: 20.6, surcharge: 0.6 });
  });
});
