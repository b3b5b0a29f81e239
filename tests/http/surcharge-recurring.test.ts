/**
 * Surcharging where no API caller asks for the charge (issue 30): a schedule's occurrences charged
 * by the sandbox clock and a payment through a link's page. Each surcharged transaction records
 * its surcharge and the schedule it pays (the real record's schedule_id), the receipt shows it,
 * and the surcharge statement and daily sales report it. Runs on SQLite and, with
 * PAYSANDBOX_TEST_DB=postgres, on PostgreSQL.
 */
import { describe, expect, test } from "bun:test";
import { setup, tokenize, type TestContext } from "../support/app";

const DAY = 86_400_000;
const VISA_DEBIT = "4000056655665556";

/** `YYYYMMDDTHHMMSSZ` of epoch ms. */
const ical = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function surcharging(ctx: TestContext, rate: number) {
  const res = await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
    body: { is_surcharge_enabled: true, cnp_credit_surcharge_rate: rate },
    auth: false,
  });
  expect(res.status).toBe(200);
}

async function advanceTo(ctx: TestContext, ms: number) {
  const seconds = Math.ceil((ms - ctx.deps.clock.now(ctx.merchantId).getTime()) / 1000);
  expect((await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds }, auth: false })).status).toBe(200);
}

/** The 3rd of next month, 14:00 UTC, on the merchant's clock, and the k-th month after it. */
function monthly(ctx: TestContext) {
  const now = ctx.deps.clock.now(ctx.merchantId);
  return (k: number) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1 + k, 3, 14);
}

async function scheduleInvoices(ctx: TestContext, id: string) {
  const page = await ctx.call("GET", "/invoice?per_page=200");
  return page.body.data.filter((invoice: { schedule_id: string }) => invoice.schedule_id === id).reverse();
}

async function emailsOf(ctx: TestContext, invoiceId: string) {
  const page = await ctx.call("GET", "/_sandbox/emails?per_page=200", { auth: false });
  return page.body.data.filter((e: { invoice_id: string }) => e.invoice_id === invoiceId).reverse();
}

describe("a schedule's occurrences with surcharging on", () => {
  test("each charge adds the surcharge on top, carries the schedule, shows it on the receipt and in the reports", async () => {
    const ctx = await setup();
    await surcharging(ctx, 2.5);
    const pm = await tokenize(ctx);
    const at = monthly(ctx);
    const made = await ctx.call("POST", "/invoice/schedule", {
      body: { rule: `FREQ=MONTHLY;DTSTART=${ical(at(0))}`, payment_method_id: pm.id, total: 49.99 },
    });
    expect(made.status).toBe(201);
    await advanceTo(ctx, at(2) + DAY);
    const invoices = await scheduleInvoices(ctx, made.body.id);
    expect(invoices).toHaveLength(3);
    // 2.5% of 49.99 = 1.24975 → 1.25: the card pays 51.24, the invoice is paid by its 49.99.
    for (const invoice of invoices) {
      expect(invoice).toMatchObject({ status: "PAID", total: 49.99, total_paid: 49.99, balance_due: 0 });
      expect(invoice.meta.surcharge).toBe(1.25);
      expect(invoice.child_transactions).toHaveLength(1);
      const txn = (await ctx.call("GET", `/transaction/${invoice.child_transactions[0].id}`)).body;
      expect(txn).toMatchObject({
        total: 51.24,
        surcharge: 1.25,
        success: true,
        invoice_id: invoice.id,
        schedule_id: made.body.id,
        source: "schedule",
      });
      const receipt = (await emailsOf(ctx, invoice.id)).find((e: { kind: string }) => e.kind === "receipt");
      expect(receipt.text).toContain("Amount: $49.99");
      expect(receipt.text).toContain("Credit card surcharge: $1.25");
      expect(receipt.text).toContain("$51.24");
    }
    const range = `startDate=${day(at(0))}&endDate=${day(at(2))}`;
    const statement = (await ctx.call("GET", `/query/statement/v3/surcharges?${range}`)).body;
    expect(statement.summary).toEqual({
      transaction_count: 3,
      sales_total: 149.97,
      surcharge_total: 3.75,
      refunded_surcharge_total: 0,
      net_surcharge_total: 3.75,
    });
    expect(statement.data.map((row: { date: string }) => row.date)).toEqual([0, 1, 2].map((k) => day(at(k))));
    const daily = (await ctx.call("GET", `/query/statement/v3/daily-sales?${range}`)).body;
    expect(daily.summary).toMatchObject({ sales_total: 149.97, surcharge_total: 3.75 });

    // A refund of an occurrence's charge returns its surcharge and carries the schedule too.
    const first = invoices[0].child_transactions[0].id;
    await advanceTo(ctx, at(2) + 3 * DAY); // settled by now: a refund, not a void
    const refund = await ctx.call("POST", `/transaction/${first}/refund`, { body: {} });
    expect(refund.status).toBe(200);
    const child = refund.body.child_transactions.find((c: { type: string }) => c.type === "refund");
    expect(child).toMatchObject({ total: 51.24, surcharge: 1.25, schedule_id: made.body.id });
  }, 60_000);

  test("a debit card's occurrence is not surcharged; an occurrence's invoice paid later carries the schedule", async () => {
    const ctx = await setup();
    await surcharging(ctx, 3);
    const debit = await tokenize(ctx, { card_number: VISA_DEBIT });
    const at = monthly(ctx);
    const rule = `FREQ=MONTHLY;DTSTART=${ical(at(0))}`;
    const byDebit = await ctx.call("POST", "/invoice/schedule", {
      body: { rule, payment_method_id: debit.id, total: 20 },
    });
    // No payment method: the occurrence's invoice waits for the customer to pay it.
    const credit = await tokenize(ctx);
    const unpaid = await ctx.call("POST", "/invoice/schedule", {
      body: { rule, customer_id: credit.customer_id, total: 30 },
    });
    expect([byDebit.status, unpaid.status]).toEqual([201, 201]);
    await advanceTo(ctx, at(0) + DAY);
    const [debitInvoice] = await scheduleInvoices(ctx, byDebit.body.id);
    expect(debitInvoice.child_transactions[0]).toMatchObject({
      total: 20,
      surcharge: 0,
      schedule_id: byDebit.body.id,
    });
    const [open] = await scheduleInvoices(ctx, unpaid.body.id);
    expect(open).toMatchObject({ status: "DRAFT", child_transactions: [] });
    const paid = await ctx.call("POST", `/invoice/${open.id}/pay`, { body: { payment_method_id: credit.id } });
    expect(paid.status).toBe(200);
    expect(paid.body.child_transactions[0]).toMatchObject({ total: 30.9, surcharge: 0.9, schedule_id: unpaid.body.id });
    // A transaction that pays no schedule's invoice has none.
    const plain = await ctx.call("POST", "/charge", { body: { payment_method_id: credit.id, total: 5 } });
    expect(plain.body.schedule_id).toBeNull();
  }, 60_000);
});

describe("a payment link paid with a credit card while surcharging", () => {
  test("records the surcharge on the transaction and the receipt; the link counts the sale", async () => {
    const ctx = await setup();
    await surcharging(ctx, 3);
    const made = await ctx.call("POST", "/query/payment-links", {
      body: { common_name: "Yoga class", amount: 40 },
    });
    expect(made.status).toBe(201);
    const id = made.body.body.id;
    const pay = async (card: Record<string, unknown>) => {
      const pm = await tokenize(ctx, card);
      return ctx.call("POST", `/webpayment/${ctx.token}/payment-link/${id}/pay`, {
        body: { payment_method_id: pm.id, firstname: "Ada", lastname: "Lovelace", email: "ada@example.com" },
        auth: false,
      });
    };
    const paid = await pay({});
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: "PAID", total: 40, total_paid: 40 });
    expect(paid.body.meta).toMatchObject({ payment_link_id: id, surcharge: 1.2 });
    const txn = (await ctx.call("GET", `/transaction/${paid.body.child_transactions[0].id}`)).body;
    expect(txn).toMatchObject({ total: 41.2, surcharge: 1.2, success: true, schedule_id: null });
    const receipt = (await emailsOf(ctx, paid.body.id)).find((e: { kind: string }) => e.kind === "receipt");
    expect(receipt.text).toContain("Credit card surcharge: $1.20");

    const debit = await pay({ card_number: VISA_DEBIT });
    expect(debit.body.child_transactions[0]).toMatchObject({ total: 40, surcharge: 0 });
    // The link's sales are its amount per payment: the surcharge is the card's, not the link's.
    const link = (await ctx.call("GET", `/query/payment-links/${id}`)).body.data;
    expect(link).toMatchObject({ uses: 2, total_sales: 80, total_transactions: 2 });
    const today = day(ctx.deps.clock.now(ctx.merchantId).getTime());
    const statement = await ctx.call("GET", `/query/statement/v3/surcharges?startDate=${today}&endDate=${today}`);
    expect(statement.body.summary).toMatchObject({ transaction_count: 1, sales_total: 40, surcharge_total: 1.2 });
  });
});
