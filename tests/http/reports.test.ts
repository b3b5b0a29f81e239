/**
 * The statement reports and the team summary (issue 28), checked against sums worked out by hand
 * on a small week of payments, and against the real examples' field names and types.
 */
import { describe, expect, test } from "bun:test";
import { BANK, setup, tokenize, type TestContext } from "../support/app";
import { realOperation, shapeDifferences } from "../support/real-api";
import { date, startWeek, DAY } from "../support/settlement";

const MASTERCARD = { card_number: "5555555555554444" };

async function pay(ctx: TestContext, total: number, overrides: Record<string, unknown> = {}, extra = {}) {
  const pm = await tokenize(ctx, overrides);
  return (await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total, ...extra } })).body;
}

/**
 * Monday: Visa 10.00 (fee 0.59) and 20.00 (0.88), a bank debit of 100.00 (0.80), a Visa pre_auth
 * of 50.00 captured at 40.00 (1.46); left out: a declined 5.00 and a voided 7.00.
 * Tuesday: Mastercard 30.00 (1.17). Wednesday: 5.00 of the 10.00 refunded.
 */
async function week(ctx: TestContext) {
  const w = await startWeek(ctx);
  const first = await pay(ctx, 10);
  await pay(ctx, 20);
  await pay(ctx, 100, BANK);
  const auth = await pay(ctx, 50, {}, { pre_auth: true });
  expect((await ctx.call("POST", `/transaction/${auth.id}/capture`, { body: { total: 40 } })).status).toBe(200);
  const declined = await ctx.call("POST", "/charge", {
    body: { payment_method_id: (await tokenize(ctx, { card_number: "4012888888881881" })).id, total: 5 },
  });
  expect(declined.status).toBe(402);
  const voided = await pay(ctx, 7);
  expect((await ctx.call("POST", `/transaction/${voided.id}/void`, { body: {} })).status).toBe(200);
  await w.goTo(w.monday + DAY);
  await pay(ctx, 30, MASTERCARD);
  await w.goTo(w.monday + 2 * DAY);
  expect((await ctx.call("POST", `/transaction/${first.id}/refund`, { body: { total: 5 } })).status).toBe(200);
  return { monday: date(w.monday), tuesday: date(w.monday + DAY), wednesday: date(w.monday + 2 * DAY) };
}

const report = async (ctx: TestContext, path: string, from: string, to: string) => {
  const res = await ctx.call("GET", `/query/statement/v3/${path}?startDate=${from}&endDate=${to}`);
  expect(res.status).toBe(200);
  return res.body;
};

describe("statement reports", () => {
  test("daily sales, card processing and card type add up to the hand-computed sums, in the real shapes", async () => {
    const ctx = await setup();
    const { monday, tuesday, wednesday } = await week(ctx);

    const daily = await report(ctx, "daily-sales", monday, wednesday);
    expect(daily).toEqual({
      data: [
        { date: monday, sales_total: 170, surcharge_total: 0, fees_total: 3.73 },
        { date: tuesday, sales_total: 30, surcharge_total: 0, fees_total: 1.17 },
      ],
      summary: { sales_total: 200, surcharge_total: 0, fees_total: 4.9 },
    });
    expect((await report(ctx, "daily-sales", tuesday, tuesday)).summary.sales_total).toBe(30);

    const processing = await report(ctx, "volumes/card-processing", monday, tuesday);
    expect(processing.data).toEqual({
      groupByPaymentMethod: [
        { method: "card", bin_type: "CREDIT", total_amt: 100 },
        { method: "bank", bin_type: null, total_amt: 100 },
      ],
      groupByTransactionType: [
        { method: "card", is_card_present: 0, total_amt: 100 },
        { method: "bank", is_card_present: 0, total_amt: 100 },
      ],
      groupByCardBrand: [
        { card_type: "visa", total_amt: 70 },
        { card_type: "mastercard", total_amt: 30 },
      ],
    });

    const byType = await report(ctx, "volumes/card-type", monday, tuesday);
    const brand = { is_card_present: 0, bin_type: "CREDIT", rate: 2.9, interchange_fees_amount: 0 };
    expect(byType.data).toEqual([
      {
        ...brand,
        card_brand: "visa",
        total_charges: 70,
        use_count: 3,
        rate_fees: 2.03,
        per_transaction_fees: 0.9,
        total_fees: 2.93,
      },
      {
        ...brand,
        card_brand: "mastercard",
        total_charges: 30,
        use_count: 1,
        rate_fees: 0.87,
        per_transaction_fees: 0.3,
        total_fees: 1.17,
      },
    ]);
    expect(byType.summary).toEqual({
      total_charges: 100,
      use_count: 4,
      rate_fees: 2.9,
      per_transaction_fees: 1.2,
      interchange_fees_amount: 0,
      total_fees: 4.1,
    });

    for (const [path, body] of [
      ["daily-sales", daily],
      ["volumes/card-processing", processing],
      ["volumes/card-type", byType],
    ] as const) {
      const example = realOperation("GET", `/query/statement/v3/${path}`).example;
      expect({ path, differences: shapeDifferences(body, example, 3) }).toEqual({ path, differences: [] });
    }
  });

  test("daily sales count the surcharges stored on the sales: apart from the sales, fees on what the card paid", async () => {
    const ctx = await setup();
    const w = await startWeek(ctx);
    const on = await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
      body: { is_surcharge_enabled: true, cnp_credit_surcharge_rate: 3 },
      auth: false,
    });
    expect(on.status).toBe(200);
    // Monday: a credit Visa 100.00 pays 103.00 (fee 3.29), a debit Visa 50.00 no surcharge (1.75);
    // a surcharged 10.00 voided is no sale. Tuesday: a credit Mastercard 12.34 pays 12.71 (0.67).
    expect(await pay(ctx, 100)).toMatchObject({ total: 103, surcharge: 3 });
    expect(await pay(ctx, 50, { card_number: "4000056655665556" })).toMatchObject({ total: 50, surcharge: 0 });
    const voided = await pay(ctx, 10);
    expect((await ctx.call("POST", `/transaction/${voided.id}/void`, { body: {} })).status).toBe(200);
    await w.goTo(w.monday + DAY);
    expect(await pay(ctx, 12.34, MASTERCARD)).toMatchObject({ total: 12.71, surcharge: 0.37 });
    const daily = await report(ctx, "daily-sales", date(w.monday), date(w.monday + DAY));
    expect(daily).toEqual({
      data: [
        { date: date(w.monday), sales_total: 150, surcharge_total: 3, fees_total: 5.04 },
        { date: date(w.monday + DAY), sales_total: 12.34, surcharge_total: 0.37, fees_total: 0.67 },
      ],
      summary: { sales_total: 162.34, surcharge_total: 3.37, fees_total: 5.71 },
    });
    // The surcharge statement counts the same surcharges.
    const statement = await report(ctx, "surcharges", date(w.monday), date(w.monday + DAY));
    expect(statement.summary).toMatchObject({ sales_total: 112.34, surcharge_total: 3.37 });
  });

  test("card processing and card type report each card's funding: debit and prepaid cards apart from credit", async () => {
    const ctx = await setup();
    const w = await startWeek(ctx);
    // A credit Visa 10.00, a debit Visa 20.00, a prepaid Visa 30.00, a prepaid Mastercard 40.00, a bank 100.00.
    await pay(ctx, 10);
    await pay(ctx, 20, { card_number: "4000056655665556" });
    await pay(ctx, 30, { card_number: "4000000000005100" });
    await pay(ctx, 40, { card_number: "5200000000005105" });
    await pay(ctx, 100, BANK);
    const processing = await report(ctx, "volumes/card-processing", date(w.monday), date(w.monday));
    expect(processing.data.groupByPaymentMethod).toEqual([
      { method: "card", bin_type: "CREDIT", total_amt: 10 },
      { method: "card", bin_type: "DEBIT", total_amt: 20 },
      { method: "card", bin_type: "PREPAID", total_amt: 70 },
      { method: "bank", bin_type: null, total_amt: 100 },
    ]);
    expect(processing.data.groupByCardBrand).toEqual([
      { card_type: "visa", total_amt: 60 },
      { card_type: "mastercard", total_amt: 40 },
    ]);
    const byType = await report(ctx, "volumes/card-type", date(w.monday), date(w.monday));
    const line = (card_brand: string, bin_type: string, total: number) => ({
      is_card_present: 0,
      card_brand,
      bin_type,
      rate: 2.9,
      total_charges: total,
      use_count: 1,
      rate_fees: (total * 29) / 1000,
      per_transaction_fees: 0.3,
      interchange_fees_amount: 0,
      total_fees: (total * 29 + 300) / 1000,
    });
    expect(byType.data).toEqual([
      line("visa", "CREDIT", 10),
      line("visa", "DEBIT", 20),
      line("visa", "PREPAID", 30),
      line("mastercard", "PREPAID", 40),
    ]);
    expect(byType.summary).toMatchObject({ total_charges: 100, use_count: 4, total_fees: 4.1 });
  });

  test("a range with no sales is empty; dates are required and may not run backwards", async () => {
    const ctx = await setup();
    expect(await report(ctx, "daily-sales", "2001-01-01", "2001-01-31")).toEqual({
      data: [],
      summary: { sales_total: 0, surcharge_total: 0, fees_total: 0 },
    });
    expect((await ctx.call("GET", "/query/statement/v3/daily-sales?startDate=2001-01-01")).status).toBe(422);
    expect(
      (await ctx.call("GET", "/query/statement/v3/volumes/card-type?startDate=2001-02-01&endDate=2001-01-01")).status,
    ).toBe(422);
    expect(
      (await ctx.call("GET", "/query/statement/v3/daily-sales?startDate=01/01/2001&endDate=2001-01-31")).status,
    ).toBe(422);
  });
});

describe("GET /query/statistics/teamSummary", () => {
  test("counts the merchant's charges, refunds, invoices and customers, in the real shape", async () => {
    const ctx = await setup();
    await week(ctx);
    const customers = (await ctx.call("GET", "/customer")).body.total;
    const customer = (await ctx.call("GET", "/customer")).body.data[0].id;
    expect((await ctx.call("POST", "/invoice", { body: { customer_id: customer, total: 12 } })).status).toBe(200);
    const res = await ctx.call("GET", "/query/statistics/teamSummary");
    expect(res.status).toBe(200);
    // Charges: 10, 20, 100 (bank), the pre_auth, 7 (voided later), 30; failed: the declined 5.
    expect(res.body).toEqual({
      charge_count_success: 6,
      refund_count_success: 1,
      charge_count_fail: 1,
      invoice_count: 1,
      scheduled_invoice_count: 0,
      customer_count: customers,
      user_count: 1,
      file_count: 0,
    });
    expect(shapeDifferences(res.body, realOperation("GET", "/query/statistics/teamSummary").example)).toEqual([]);
  });
});
