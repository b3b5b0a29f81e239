import { beforeEach, describe, expect, test } from "bun:test";
import { otherMerchant, setup, type TestContext } from "../support/app";
import { date, HOUR, startWeek, ts, type Week } from "../support/settlement";

let ctx: TestContext;
let week: Week;
beforeEach(async () => {
  ctx = await setup();
  week = await startWeek(ctx);
});

const deposits = async (query = "", auth?: string) => ctx.call("GET", `/query/deposit${query}`, { auth });

/** One card sale a day for `days` days, then far enough for every deposit to land. */
async function dailySales(days: number) {
  for (let day = 0; day < days; day++) {
    await week.goTo(week.midnight(day) + 12 * HOUR);
    await week.pay(10 + day);
  }
  await week.goTo(week.midnight(days + 1) + HOUR);
}

describe("GET /query/deposit", () => {
  test("lists landed deposits newest first in the pagination envelope", async () => {
    await dailySales(4);
    const page = (await deposits("?per_page=3")).body;
    expect(page).toMatchObject({ current_page: 1, per_page: 3, total: 4, last_page: 2, from: 1, to: 3 });
    expect(page.data.map((d: any) => d.deposit_date)).toEqual([5, 4, 3].map((d) => date(week.midnight(d))));
    expect(page.data.map((d: any) => d.gross)).toEqual([13, 12, 11]);
    const next = (await ctx.call("GET", new URL(page.next_page_url).pathname + new URL(page.next_page_url).search))
      .body;
    expect(next.data.map((d: any) => d.gross)).toEqual([10]);
  });

  test("filters by deposit date, both ends inclusive", async () => {
    await dailySales(4);
    const from = date(week.midnight(3));
    const to = date(week.midnight(4));
    const res = await deposits(`?startDate=${from}&endDate=${to}`);
    expect(res.body.data.map((d: any) => d.deposit_date)).toEqual([to, from]);
    expect((await deposits(`?startDate=${date(week.midnight(9))}`)).body.data).toEqual([]);
  });

  test("bad dates are 422s naming the parameter", async () => {
    for (const query of ["?startDate=yesterday", "?endDate=2026-1-1", "?startDate=2026-01-01 00:00:00"]) {
      const res = await deposits(query.replace(" ", "%20"));
      expect(res.status).toBe(422);
      expect(res.body.code).toBe("validation_error");
      expect(Object.keys(res.body.errors)[0]).toMatch(/startDate|endDate/);
    }
  });

  test("another merchant sees none of them; without a key it is a 401", async () => {
    await dailySales(1);
    const other = await otherMerchant(ctx);
    expect((await deposits("", other.api_key)).body).toMatchObject({ total: 0, data: [] });
    expect((await ctx.call("GET", "/query/deposit", { auth: false })).status).toBe(401);
    expect((await ctx.call("GET", "/query/deposit", { auth: ctx.token })).status).toBe(403);
  });
});

describe("GET /query/depositDetail", () => {
  test("lists the batch's transactions oldest first, paginated, with the deposit", async () => {
    for (const total of [1, 2, 3]) await week.pay(total);
    await week.goTo(week.midnight(2) + HOUR);
    const [deposit] = (await deposits()).body.data;
    const first = await ctx.call("GET", `/query/depositDetail?batch_id=${deposit.batch_id}&per_page=2`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 3, last_page: 2, deposit });
    expect(first.body.data.map((t: any) => t.total)).toEqual([1, 2]);
    expect(first.body.data[0]).toMatchObject({ settled_at: ts(week.midnight(1)), fee: 0.33, net: 0.67 });
    const second = await ctx.call("GET", `/query/depositDetail?batch_id=${deposit.batch_id}&per_page=2&page=2`);
    expect(second.body.data.map((t: any) => t.total)).toEqual([3]);
  });

  test("an unknown batch or another merchant's is a 404; a missing batch_id a 422", async () => {
    await week.pay(5);
    await week.goTo(week.midnight(2) + HOUR);
    const [deposit] = (await deposits()).body.data;
    const other = await otherMerchant(ctx);
    const theirs = await ctx.call("GET", `/query/depositDetail?batch_id=${deposit.batch_id}`, { auth: other.api_key });
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe("not_found");
    expect((await ctx.call("GET", "/query/depositDetail?batch_id=nope")).status).toBe(404);
    const missing = await ctx.call("GET", "/query/depositDetail");
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toHaveProperty("batch_id");
  });
});

describe("deposit and clock routes under arbitrary input", () => {
  test("any query or advance body gets a 2xx or a 4xx, never a 5xx", async () => {
    const fc = await import("fast-check");
    const value = fc.oneof(fc.string(), fc.constantFrom("2026-13-45", "0000-00-00", "-1", "1e9", "%", "0"));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("/query/deposit", "/query/depositDetail"),
        fc.dictionary(fc.constantFrom("startDate", "endDate", "batch_id", "page", "per_page"), value),
        async (path, query) => {
          const res = await ctx.call("GET", `${path}?${new URLSearchParams(query)}`);
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 100 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.jsonValue(), fc.record({ seconds: fc.oneof(fc.double(), fc.string()) })),
        async (body) => {
          const res = await ctx.call("POST", "/_sandbox/clock/advance", { body });
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 60 },
    );
  });
});
