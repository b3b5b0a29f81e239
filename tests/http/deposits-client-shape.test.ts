/**
 * The deposit report as the real service's clients read it (the official Python client's
 * DepositBatch and DepositDetails): `{data: [...]}` of batches with batched_at, last_transaction,
 * count, sum, avg, min, max, std and fees; detail rows by batch or by date range.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { setup, type TestContext } from "../support/app";
import { date, HOUR, startWeek, ts, type Week } from "../support/settlement";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

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

/** Monday: sales of 10, 20 and 40; Tuesday: a sale of 5 and a refund of 4 of Monday's 10. */
async function twoBatches() {
  const ten = await week.pay(10);
  await week.pay(20);
  await week.goTo(week.midnight(0) + 20 * HOUR);
  await week.pay(40);
  await week.goTo(week.midnight(1) + 9 * HOUR);
  await week.pay(5);
  await week.goTo(week.midnight(1) + 10 * HOUR);
  expect((await ctx.call("POST", `/transaction/${ten.id}/refund`, { body: { total: 4 } })).status).toBe(200);
  await week.goTo(week.midnight(3) + HOUR);
}

describe("GET /query/deposit in the real service's shape", () => {
  test("each batch has batch_id, display_batch_id, batched_at, last_transaction, count, sum, avg, min, max, std, fees", async () => {
    const created: unknown[] = [];
    ctx.deps.events.on((_ex, e) => void (e.name === "create_deposit" && created.push(e.record)));
    await twoBatches();
    const { data } = await get(`/query/deposit?startDate=${date(week.midnight(0))}&endDate=${date(week.midnight(3))}`);
    expect(data).toHaveLength(2);
    const [tuesday, monday] = data;
    expect(monday).toMatchObject({
      display_batch_id: `CARD-${date(week.midnight(1)).replaceAll("-", "")}`,
      batched_at: ts(week.midnight(1)),
      last_transaction: ts(week.midnight(0) + 20 * HOUR),
      count: 3,
      sum: 70,
      avg: 23.33,
      min: 10,
      max: 40,
      std: 12.47,
      fees: 2.93,
    });
    // The refund settles in Tuesday's batch as a negative amount: sum = gross − refunds, sum − fees = net.
    expect(tuesday).toMatchObject({
      batched_at: ts(week.midnight(2)),
      last_transaction: ts(week.midnight(1) + 10 * HOUR),
      count: 2,
      sum: 1,
      avg: 0.5,
      min: -4,
      max: 5,
      std: 4.5,
      gross: 5,
      refunds: 4,
    });
    for (const batch of data) {
      expect(batch.batched_at).toMatch(TIMESTAMP);
      expect(batch.last_transaction).toMatch(TIMESTAMP);
      expect(Math.round((batch.sum - batch.fees) * 100) / 100).toBe(batch.net);
    }
    // The create_deposit webhook's record is the same record, in landing order.
    expect(created).toEqual([monday, tuesday]);
  });

  test("either date alone is enough, and the clients' timezone parameters are accepted", async () => {
    await twoBatches();
    const both = await get(`/query/deposit?startDate=${date(week.midnight(0))}&endDate=${date(week.midnight(3))}`);
    const start = await get(`/query/deposit?startDate=${date(week.midnight(3))}&timezone=EST&timezoneOffset=0`);
    expect(start.data.map((d: any) => d.batch_id)).toEqual([both.data[0].batch_id]);
    const end = await get(`/query/deposit?endDate=${date(week.midnight(2))}`);
    expect(end.data.map((d: any) => d.batch_id)).toEqual([both.data[1].batch_id]);
  });
});

describe("GET /query/depositDetail in the real service's shape", () => {
  test("without batch_id: the rows of every deposit in the range, each with the deposit-detail fields", async () => {
    await twoBatches();
    const range = `startDate=${date(week.midnight(0))}&endDate=${date(week.midnight(3))}`;
    const batches = (await get(`/query/deposit?${range}`)).data;
    const rows = await get(`/query/depositDetail?${range}&timezone=EST`);
    expect(rows.total).toBe(5);
    expect(rows).not.toHaveProperty("deposit");
    // The same rows, in the same order, as asking batch by batch (deposits newest first).
    const byBatch: any[] = [];
    for (const batch of batches) byBatch.push(...(await get(`/query/depositDetail?batch_id=${batch.batch_id}`)).data);
    expect(rows.data).toEqual(byBatch);
    expect(rows.data.map((r: any) => [r.type, r.total])).toEqual([
      ["charge", 5],
      ["refund", 4],
      ["charge", 10],
      ["charge", 20],
      ["charge", 40],
    ]);
    for (const row of rows.data) {
      const batch = batches.find((b: any) => b.batch_id === row.batch_id);
      expect(row).toMatchObject({
        display_batch_id: batch.display_batch_id,
        batched_at: batch.batched_at,
        transaction_id: row.id,
        fees: row.fee,
        last_four: "1111",
        card_type: "visa",
        method: "card",
        customer_firstname: "Ada",
        customer_lastname: "Lovelace",
        customer_email: "ada@example.com",
        customer_company: "",
      });
      expect(row.created_at).toMatch(TIMESTAMP);
      expect(typeof row.auth_id).toBe("string");
    }
    // Per batch, the rows add up to the batch: sum of amounts and of fees.
    for (const batch of batches) {
      const mine = rows.data.filter((r: any) => r.batch_id === batch.batch_id);
      const signed = mine.reduce((s: number, r: any) => s + (r.type === "refund" ? -r.total : r.total), 0);
      expect(Math.round(signed * 100) / 100).toBe(batch.sum);
      expect(Math.round(mine.reduce((s: number, r: any) => s + r.fees, 0) * 100) / 100).toBe(batch.fees);
    }
  });

  test("a range pages across batches, either date alone works, and an empty range is an empty list", async () => {
    await twoBatches();
    const first = await get(`/query/depositDetail?startDate=${date(week.midnight(0))}&per_page=3`);
    expect(first).toMatchObject({ total: 5, last_page: 2 });
    const second = await get(`/query/depositDetail?startDate=${date(week.midnight(0))}&per_page=3&page=2`);
    expect([...first.data, ...second.data].map((r: any) => r.total)).toEqual([5, 4, 10, 20, 40]);
    expect((await get(`/query/depositDetail?endDate=${date(week.midnight(2))}`)).data.map((r: any) => r.total)).toEqual(
      [10, 20, 40],
    );
    expect(await get(`/query/depositDetail?startDate=${date(week.midnight(6))}`)).toMatchObject({ total: 0, data: [] });
  });

  test("with neither batch_id nor a date it is a 422 saying what to give", async () => {
    const res = await ctx.call("GET", "/query/depositDetail");
    expect(res.status).toBe(422);
    expect(res.body.batch_id[0]).toContain("startDate");
  });
});
