/**
 * Deposit adjustments (docs/settlement.md, "Adjustments"): a signed amount recorded by a feature
 * (an ACH return, a dispute) at a sandbox time is picked up by the first deposit landing at or
 * after it, in /query/deposit and /query/depositDetail, on both databases.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { setup, type TestContext } from "../support/app";
import { date, DAY, HOUR, startWeek, ts, type Week } from "../support/settlement";
import type { AdjustmentInput } from "../../src/services/adjustments";

let ctx: TestContext;
let week: Week;
beforeEach(async () => {
  ctx = await setup();
  week = await startWeek(ctx);
});

const get = async (path: string) => {
  const res = await ctx.call("GET", path);
  expect(res.status).toBe(200);
  return res.body;
};

/** Records an adjustment the way a feature does: in a unit of work of its own here. */
function record(input: AdjustmentInput) {
  return ctx.deps.db.transaction((tx) => ctx.deps.services.adjustments.record(tx, ctx.merchantId, input));
}

const cents = (value: number) => Math.round(value * 100);

describe("deposit adjustments", () => {
  test("an adjustment joins the next deposit of its method: net = gross − refunds − fees + adjustments", async () => {
    const sale = await week.pay(100);
    // Effective Monday 18:00: the card batch closing Tuesday 00:00 lands Wednesday 00:00, but the
    // first card deposit landing at or after 18:00 is the one Tuesday 00:00 would land; there is
    // none (no batch closed Monday 00:00), so the adjustment gets a deposit of its own then.
    await record({
      kind: "dispute",
      method: "card",
      amountCents: -2500,
      transactionId: sale.id,
      effectiveAt: new Date(week.monday + 6 * HOUR),
    });
    await week.goTo(week.midnight(2) + HOUR);
    const { data } = await get(`/query/deposit?startDate=${date(week.midnight(0))}`);
    expect(data.map((d: any) => [d.deposit_date, d.count, d.gross, d.fees, d.adjustments, d.net])).toEqual([
      [date(week.midnight(2)), 1, 100, 3.2, 0, 96.8],
      [date(week.midnight(1)), 0, 0, 0, -25, -25],
    ]);
    expect(data[1]).toMatchObject({
      display_batch_id: `CARD-${date(week.midnight(0)).replaceAll("-", "")}`,
      deposited_at: ts(week.midnight(1)),
      last_transaction: null,
      sum: 0,
    });
    const detail = await get(`/query/depositDetail?batch_id=${data[1].batch_id}`);
    expect(detail.total).toBe(1);
    expect(detail.data[0]).toMatchObject({
      transaction_id: sale.id,
      total: 25,
      fee: 0,
      fees: 0,
      net: -25,
      adjustment_kind: "dispute",
      created_at: ts(week.monday + 6 * HOUR),
      batch_id: data[1].batch_id,
    });
    expect(detail.data[0].id).toBe(detail.data[0].adjustment_id);
  });

  test("one landing the same midnight as a deposit reduces that deposit, and the detail rows add up to it", async () => {
    const sale = await week.pay(100);
    await week.pay(50);
    // Effective Tuesday 10:00: the Monday batch (closed Tuesday 00:00) lands Wednesday 00:00 and takes it.
    for (const [kind, amount] of [
      ["dispute", -4000],
      ["dispute_fee", -1500],
      ["dispute_reversal", 4000],
    ] as const) {
      await record({
        kind,
        method: "card",
        amountCents: amount,
        transactionId: sale.id,
        sourceId: "dp_1",
        key: `${kind}:dp_1`,
        effectiveAt: new Date(week.midnight(1) + 10 * HOUR),
      });
    }
    // Once per key: recording it again changes nothing.
    const again = await record({
      kind: "dispute_fee",
      method: "card",
      amountCents: -1500,
      transactionId: sale.id,
      key: "dispute_fee:dp_1",
      effectiveAt: new Date(week.midnight(1) + 11 * HOUR),
    });
    expect(again.created).toBe(false);
    expect(again.row.effective_at).toBe(ts(week.midnight(1) + 10 * HOUR));

    await week.goTo(week.midnight(2) + HOUR);
    const { data } = await get(`/query/deposit?startDate=${date(week.midnight(0))}`);
    expect(data).toHaveLength(1);
    const [deposit] = data;
    expect(deposit).toMatchObject({ count: 2, gross: 150, fees: 4.95, adjustments: -15, net: 130.05 });
    expect(cents(deposit.gross) - cents(deposit.refunds) - cents(deposit.fees) + cents(deposit.adjustments)).toBe(
      cents(deposit.net),
    );
    const detail = await get(`/query/depositDetail?batch_id=${deposit.batch_id}`);
    expect(detail.total).toBe(5);
    expect(detail.data.map((r: any) => [r.adjustment_kind, r.net])).toEqual([
      [null, 96.8],
      [null, 48.25],
      ["dispute", -40],
      ["dispute_fee", -15],
      ["dispute_reversal", 40],
    ]);
    expect(detail.data.reduce((sum: number, r: any) => sum + cents(r.net), 0)).toBe(cents(deposit.net));
    // Paged across the transactions and the adjustments, and by date range: the same rows.
    const first = await get(`/query/depositDetail?batch_id=${deposit.batch_id}&per_page=3`);
    const second = await get(`/query/depositDetail?batch_id=${deposit.batch_id}&per_page=3&page=2`);
    expect([...first.data, ...second.data]).toEqual(detail.data);
    const range = await get(`/query/depositDetail?startDate=${date(week.midnight(2))}`);
    expect(range.data).toEqual(detail.data);
    expect(range.total).toBe(5);
  });

  test("a bank adjustment never joins a card deposit, and nothing is picked up twice", async () => {
    const sale = await week.pay(100, "bank");
    await week.pay(10);
    await record({
      kind: "ach_return",
      method: "bank",
      amountCents: -10000,
      transactionId: sale.id,
      effectiveAt: new Date(week.midnight(1) + 5 * HOUR),
    });
    await week.goTo(week.midnight(5) + HOUR);
    const { data } = await get(`/query/deposit?startDate=${date(week.midnight(0))}`);
    const summary = data.map((d: any) => [d.method, d.deposit_date, d.count, d.adjustments]);
    expect(summary).toContainEqual(["bank", date(week.midnight(2)), 0, -100]);
    expect(summary).toContainEqual(["card", date(week.midnight(2)), 1, 0]);
    expect(data.reduce((sum: number, d: any) => sum + cents(d.adjustments), 0)).toBe(-10000);
    // The ACH sale settles Wednesday's end (2 business days) in a deposit of its own.
    expect(summary).toContainEqual(["bank", date(week.midnight(3)), 1, 0]);
    await week.goTo(week.midnight(5) + 2 * DAY);
    expect((await get(`/query/deposit?startDate=${date(week.midnight(0))}`)).total).toBe(data.length);
  });
});
