/**
 * ACH returns on the sandbox clock (docs/settlement.md, "ACH returns"): a returning test account
 * approves, settles, and comes back on its documented business day with the void child and
 * is_voided, update_transaction_settled, the return fee, a reduced deposit, and the ach-rejects
 * and adjustments statements. Both databases.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { BANK, setup, tokenize, type TestContext } from "../support/app";
import { date, DAY, HOUR, startWeek, ts, type Week } from "../support/settlement";
import { TEST_BANK } from "../../packages/rules/test-data";

let ctx: TestContext;
let week: Week;
let events: { name: string; record: any }[];
beforeEach(async () => {
  ctx = await setup();
  week = await startWeek(ctx);
  events = [];
  ctx.deps.events.on((_ex, e) => void events.push({ name: e.name, record: e.record }));
});

const get = async (path: string) => {
  const res = await ctx.call("GET", path);
  expect(res.status).toBe(200);
  return res.body;
};

async function payFrom(account: string, total: number) {
  const pm = await tokenize(ctx, { ...BANK, bank_account: account });
  const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total } });
  expect(res.status).toBe(200);
  expect(res.body.success).toBe(true);
  return res.body;
}

const cents = (value: number) => Math.round(value * 100);
const sumCents = (rows: any[], field: string) => rows.reduce((sum, row) => sum + cents(row[field]), 0);

describe("an ACH return after payout", () => {
  test("R01 two business days after settlement: void child, event, fee, a withdrawal deposit and the reports", async () => {
    // Monday's debit settles when Wednesday ends (2 ACH days) and its deposit lands then.
    const sale = await payFrom("2000000001", 100);
    await week.goTo(week.midnight(4) + HOUR);
    let record = await week.get(sale.id);
    expect(record).toMatchObject({ settled_at: ts(week.midnight(3)), is_voided: false, is_refundable: true });
    expect(record.child_transactions).toEqual([]);

    // Returned when Friday ends: the second business day after the settlement day.
    await week.goTo(week.midnight(5) + HOUR);
    record = await week.get(sale.id);
    expect(record).toMatchObject({ is_voided: true, is_refundable: false, is_voidable: false });
    expect(record.child_transactions).toHaveLength(1);
    const [child] = record.child_transactions;
    expect(child).toMatchObject({
      type: "void",
      total: 100,
      success: true,
      decline_code: "R01",
      message: "R01: Insufficient funds",
      created_at: ts(week.midnight(5)),
    });
    const settled = events.filter((e) => e.name === "update_transaction_settled" && e.record.id === sale.id);
    expect(settled.map((e) => e.record.is_voided)).toEqual([false, true]);
    expect(settled[1]!.record).toEqual(record);
    // A returned payment cannot be refunded.
    expect((await ctx.call("POST", `/transaction/${sale.id}/refund`, { body: {} })).status).toBe(422);

    const { data: deposits } = await get(`/query/deposit?startDate=${date(week.midnight(0))}`);
    expect(deposits.map((d: any) => [d.deposit_date, d.count, d.gross, d.fees, d.adjustments, d.net])).toEqual([
      [date(week.midnight(5)), 0, 0, 0, -115, -115],
      [date(week.midnight(3)), 1, 100, 0.8, 0, 99.2],
    ]);
    const withdrawal = deposits[0];
    const detail = await get(`/query/depositDetail?batch_id=${withdrawal.batch_id}`);
    expect(detail.data.map((r: any) => [r.adjustment_kind, r.adjustment_code, r.transaction_id, r.net])).toEqual([
      ["ach_return", "R01", sale.id, -100],
      ["return_fee", "R01", sale.id, -15],
    ]);

    const rejects = await get(`/query/statement/v3/ach-rejects?startDate=${date(week.midnight(0))}`);
    expect(rejects.data).toEqual([
      {
        ach_reject_transaction_id: child.id,
        ach_reject_transaction_created_at: ts(week.midnight(5)),
        ach_reject_transaction_amount: 100,
        ach_reject_transaction_timing: "post_payout",
        original_transaction_id: sale.id,
        original_transaction_created_at: sale.created_at,
        original_transaction_amount: 100,
        deposit_id: withdrawal.id,
        ach_reject_fee_id: detail.data[1].adjustment_id,
        ach_reject_fee_amount: 15,
        ach_reject_fee_deducted_at: ts(week.midnight(5)),
        ach_reject_code: "R01",
        ach_reject_reason: "Insufficient funds",
      },
    ]);
    expect(rejects).toMatchObject({
      summary: {
        ach_reject_transaction_count: 1,
        ach_reject_transaction_amount: 100,
        original_transaction_amount: 100,
        ach_reject_fee_amount: 15,
      },
      total: 1,
      current_page: 1,
      last_page: 1,
      from: 1,
      to: 1,
      next_page_url: null,
      prev_page_url: null,
    });
    const adjustments = await get(`/query/statement/v3/adjustments?startDate=${date(week.midnight(0))}`);
    expect(adjustments.data.map((r: any) => [r.type, r.subtype, r.amount, r.net, r.deposit_id])).toEqual([
      ["ach_return", "R01", 100, -100, withdrawal.id],
      ["return_fee", "R01", 15, -15, withdrawal.id],
    ]);
    expect(adjustments.summary).toEqual({ adjustments_count: 2, adjustments_amount: 115, net_amount: -115 });
    // The dashboard shows the return on the transaction's page and the withdrawals on the deposits page.
    const page = (path: string) => ctx.app.handle(new Request(`http://localhost${path}`)).then((r) => r.text());
    const txPage = await page(`/dashboard/transactions/${sale.id}`);
    expect(txPage).toContain("Returns and adjustments");
    expect(txPage).toContain("R01: Insufficient funds");
    expect(txPage).toContain("Return fee");
    const depositsPage = await page("/dashboard/deposits");
    expect(depositsPage).toContain(`data-kind="ach_return"`);
    expect(depositsPage).toContain("-$115.00");
    // Nothing more happens later: one void child, one fee.
    await week.goTo(week.midnight(12));
    expect((await week.get(sale.id)).child_transactions).toHaveLength(1);
    expect((await get(`/query/statement/v3/adjustments`)).total).toBe(2);
  });
});

describe("an ACH return before payout", () => {
  test("returned on its settlement day: the payment's own deposit nets the return and the fee", async () => {
    const returned = await payFrom("2000000000", 100);
    const kept = await week.pay(50, "bank");
    await week.goTo(week.midnight(3) + HOUR);
    const { data } = await get(`/query/deposit?startDate=${date(week.midnight(0))}`);
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ count: 2, gross: 150, fees: 1.2, adjustments: -115, net: 33.8 });
    const detail = await get(`/query/depositDetail?batch_id=${data[0].batch_id}`);
    expect(detail.data.map((r: any) => [r.transaction_id, r.adjustment_kind, r.net])).toEqual([
      [returned.id, null, 99.2],
      [kept.id, null, 49.6],
      [returned.id, "ach_return", -100],
      [returned.id, "return_fee", -15],
    ]);
    expect(sumCents(detail.data, "net")).toBe(cents(data[0].net));
    const rejects = await get(`/query/statement/v3/ach-rejects`);
    expect(rejects.data[0]).toMatchObject({ ach_reject_transaction_timing: "pre_payout", deposit_id: data[0].id });
    expect((await week.get(kept.id)).is_voided).toBe(false);
  });
});

describe("the returning test accounts", () => {
  test("each is returned with its code on its documented business day; the immediate declines still decline", async () => {
    const returning = TEST_BANK.accounts.filter((entry) => entry.achReturn);
    expect(returning.map((entry) => entry.achReturn!.code).sort()).toEqual([
      "R01",
      "R01",
      "R02",
      "R03",
      "R04",
      "R10",
      "R29",
    ]);
    const sales = [];
    for (const entry of returning) sales.push({ entry, sale: await payFrom(entry.account, 20) });
    // Settled Thursday 00:00 (the end of Wednesday); day n ends at these midnights (weekends skipped).
    const endOfBusinessDay = [3, 4, 5, 8, 9, 10];
    await week.goTo(week.midnight(14));
    for (const { entry, sale } of sales) {
      const record = await week.get(sale.id);
      expect(record.is_voided).toBe(true);
      const [child] = record.child_transactions;
      expect(child.decline_code).toBe(entry.achReturn!.code);
      expect(child.created_at).toBe(ts(week.midnight(endOfBusinessDay[entry.achReturn!.businessDays]!)));
      expect(entry.achReturn!.businessDays).toBeLessThanOrEqual(5);
    }
    const rejects = await get(`/query/statement/v3/ach-rejects?per_page=3`);
    expect(rejects).toMatchObject({ total: 7, last_page: 3 });
    expect(rejects.summary).toEqual({
      ach_reject_transaction_count: 7,
      ach_reject_transaction_amount: 140,
      original_transaction_amount: 140,
      ach_reject_fee_amount: 105,
    });
    // Every deposit together: sales − fees − returns − return fees, to the cent.
    const deposits = (await get(`/query/deposit?startDate=${date(week.midnight(0))}&per_page=200`)).data;
    expect(sumCents(deposits, "net")).toBe(7 * 2000 - 7 * 16 - 7 * 2000 - 7 * 1500);
    // An account at the test routing that declines at once is not one of them.
    const pm = await tokenize(ctx, { ...BANK, bank_account: "1000000001" });
    const declined = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 5 } });
    expect(declined.status).toBe(402);
    expect(declined.body.decline_code).toBe("R01");
  });

  test("GET /_sandbox/test-cards lists each returning account with its code and business days", async () => {
    const { bank } = await get("/_sandbox/test-cards");
    const listed = bank.accounts.find((a: any) => a.account === "2000000010");
    expect(listed).toMatchObject({ outcome: "approve", ach_return: { code: "R10", business_days: 5 } });
    expect(bank.accounts.find((a: any) => a.account === "1000000001").ach_return).toBeNull();
  });
});

describe("the statements' ranges", () => {
  test("dates bound the day of the return; a range with nothing is empty with a zero summary", async () => {
    await payFrom("2000000003", 10);
    await week.goTo(week.midnight(4) + DAY);
    expect((await get(`/query/statement/v3/ach-rejects?startDate=${date(week.midnight(4))}`)).total).toBe(1);
    const none = await get(`/query/statement/v3/ach-rejects?endDate=${date(week.midnight(3))}`);
    expect(none).toMatchObject({ total: 0, data: [], summary: { ach_reject_transaction_count: 0 } });
    const bad = await ctx.call("GET", "/query/statement/v3/adjustments?startDate=yesterday");
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe("validation_error");
  });
});
