/**
 * What happens to a surcharge after the payment (issue 30), through the real app: refunds return
 * it in proportion (property-tested: no cent lost or invented across partial refunds and the
 * final full refund), GET /query/statement/v3/surcharges reports it, and the receipt e-mail,
 * received by a real SMTP server, shows it. Runs on SQLite and, with PAYSANDBOX_TEST_DB=postgres,
 * on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { BANK, setup, tokenize, type TestContext } from "../support/app";
import { startSmtpReceiver, type SmtpReceiver } from "../support/smtp-receiver";
import { surchargeCents } from "../../src/domain/surcharge";

const VISA_DEBIT = "4000056655665556";

async function surcharging(ctx: TestContext, rate: number) {
  const res = await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
    body: { is_surcharge_enabled: true, cnp_credit_surcharge_rate: rate },
    auth: false,
  });
  expect(res.status).toBe(200);
}

async function chargeCard(ctx: TestContext, total: number, overrides: Record<string, unknown> = {}) {
  const pm = await tokenize(ctx, overrides);
  const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total } });
  expect(res.status).toBe(200);
  return res.body;
}

/** A day on the merchant's clock: every card transaction so far settles (refunds need that). */
async function nextDay(ctx: TestContext) {
  expect((await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds: 86_400 } })).status).toBe(200);
}

const cents = (amount: number) => Math.round(amount * 100);

describe("refunds of a surcharged charge", () => {
  test("partial refunds then a full one return exactly the surcharge: no cent lost or invented", async () => {
    const ctx = await setup();
    await surcharging(ctx, 2.99);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 500_000 }),
        fc.array(fc.integer({ min: 1, max: 1_000 }), { maxLength: 4 }),
        async (saleCents, weights) => {
          const sale = await chargeCard(ctx, saleCents / 100);
          const surcharge = surchargeCents(saleCents, 299);
          expect([cents(sale.total), cents(sale.surcharge)]).toEqual([saleCents + surcharge, surcharge]);
          await nextDay(ctx);
          // Partial refunds of random sizes, each leaving something, then the rest (no total given).
          let left = saleCents + surcharge;
          for (const weight of weights) {
            const part = Math.floor((left * weight) / 1_001);
            if (part < 1 || part >= left) continue;
            const res = await ctx.call("POST", `/transaction/${sale.id}/refund`, { body: { total: part / 100 } });
            expect(res.status).toBe(200);
            left -= part;
          }
          expect((await ctx.call("POST", `/transaction/${sale.id}/refund`, { body: {} })).status).toBe(200);
          const after = (await ctx.call("GET", `/transaction/${sale.id}`)).body;
          const refunds = after.child_transactions.filter((c: { type: string }) => c.type === "refund");
          const sum = (key: "total" | "surcharge") => refunds.reduce((s: number, r: any) => s + cents(r[key]), 0);
          expect(sum("total")).toBe(saleCents + surcharge);
          expect(sum("surcharge")).toBe(surcharge);
          for (const r of refunds) {
            expect(cents(r.surcharge)).toBeGreaterThanOrEqual(0);
            expect(cents(r.surcharge)).toBeLessThanOrEqual(cents(r.total));
          }
          expect(cents(after.total_refunded)).toBe(saleCents + surcharge);
        },
      ),
      { numRuns: 6 },
    );
  }, 120_000);

  test("a refund returns its share: 51.50 of a 103.00 charge (3% of 100) returns 1.50 of surcharge", async () => {
    const ctx = await setup();
    await surcharging(ctx, 3);
    const sale = await chargeCard(ctx, 100);
    await nextDay(ctx);
    const res = await ctx.call("POST", `/transaction/${sale.id}/refund`, { body: { total: 51.5 } });
    expect(res.status).toBe(200);
    expect(res.body.child_transactions[0]).toMatchObject({ type: "refund", total: 51.5, surcharge: 1.5 });
  });
});

describe("GET /query/statement/v3/surcharges", () => {
  test("reports each day's surcharges collected and refunded; debit, bank and voided payments are not in it", async () => {
    const ctx = await setup();
    await surcharging(ctx, 3);
    const sale = await chargeCard(ctx, 100);
    await chargeCard(ctx, 100, { card_number: VISA_DEBIT });
    await chargeCard(ctx, 100, BANK);
    const voided = await chargeCard(ctx, 50);
    expect((await ctx.call("POST", `/transaction/${voided.id}/void`, { body: {} })).status).toBe(200);
    const day1 = sale.created_at.slice(0, 10);
    await nextDay(ctx);
    const refund = await ctx.call("POST", `/transaction/${sale.id}/refund`, { body: { total: 51.5 } });
    const day2 = refund.body.child_transactions[0].created_at.slice(0, 10);

    const res = await ctx.call("GET", `/query/statement/v3/surcharges?startDate=${day1}&endDate=${day2}`);
    expect(res.status).toBe(200);
    const zero = { transaction_count: 0, sales_total: 0, surcharge_total: 0 };
    expect(res.body).toEqual({
      data: [
        {
          date: day1,
          transaction_count: 1,
          sales_total: 100,
          surcharge_total: 3,
          refunded_surcharge_total: 0,
          net_surcharge_total: 3,
        },
        { date: day2, ...zero, refunded_surcharge_total: 1.5, net_surcharge_total: -1.5 },
      ],
      summary: {
        transaction_count: 1,
        sales_total: 100,
        surcharge_total: 3,
        refunded_surcharge_total: 1.5,
        net_surcharge_total: 1.5,
      },
    });
    const before = await ctx.call("GET", `/query/statement/v3/surcharges?startDate=2001-01-01&endDate=2001-01-31`);
    expect(before.body).toEqual({
      data: [],
      summary: { ...zero, refunded_surcharge_total: 0, net_surcharge_total: 0 },
    });
    for (const query of ["startDate=2026-01-01", "startDate=x&endDate=2026-01-02", ""]) {
      const bad = await ctx.call("GET", `/query/statement/v3/surcharges?${query}`);
      expect([query, bad.status]).toEqual([query, 422]);
    }
  });
});

describe("the receipt e-mail of a surcharged payment", () => {
  let smtp: SmtpReceiver;
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
  });
  afterAll(() => smtp.close());

  test("a real SMTP server receives the receipt with the amount, the surcharge and the total", async () => {
    const ctx = await setup({ config: { smtpUrl: smtp.url } });
    await surcharging(ctx, 3);
    const pm = await tokenize(ctx, { email: "surcharged@example.com" });
    const invoice = await ctx.call("POST", "/invoice", {
      body: { customer_id: pm.customer_id, total: 100, url: "https://shop.example/invoice/" },
    });
    const paid = await ctx.call("POST", `/invoice/${invoice.body.id}/pay`, { body: { payment_method_id: pm.id } });
    expect(paid.status).toBe(200);
    await ctx.deps.mailer.idle();
    const mine = smtp.received.filter((r) => r.parsed.text?.includes(paid.body.id));
    expect(mine).toHaveLength(1);
    const { parsed } = mine[0]!;
    expect(parsed.subject).toBe("Payment received: $103.00 to Sandbox Merchant");
    expect(parsed.text).toContain("Amount: $100.00\nCredit card surcharge: $3.00\nTotal: $103.00");
    expect(parsed.html).toContain("Credit card surcharge");
    expect(parsed.html).toContain("$3.00");
  });

  test("a payment with no surcharge shows no surcharge line", async () => {
    const ctx = await setup({ config: { smtpUrl: smtp.url } });
    await surcharging(ctx, 3);
    const pm = await tokenize(ctx, { card_number: VISA_DEBIT, email: "debit@example.com" });
    const invoice = await ctx.call("POST", "/invoice", {
      body: { customer_id: pm.customer_id, total: 100, url: "https://shop.example/invoice/" },
    });
    const paid = await ctx.call("POST", `/invoice/${invoice.body.id}/pay`, { body: { payment_method_id: pm.id } });
    await ctx.deps.mailer.idle();
    const mine = smtp.received.filter((r) => r.parsed.text?.includes(paid.body.id));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.parsed.text).toContain("Total: $100.00");
    expect(mine[0]!.parsed.text).not.toContain("surcharge");
  });
});
