/**
 * The sandbox controls are bounded: the clock stops at 2099-12-31 (a 422 says so) and reset puts it
 * back on real time; merchant creation is capped (and test-made merchants can be deleted); the
 * real-time clock job visits merchants with pending work only, so thousands of idle merchants
 * cost it nothing (counted in job runs, not time).
 */
import { describe, expect, test } from "bun:test";
import { clockLimitMessage, LATEST_CLOCK_MS, LATEST_CLOCK_TEXT } from "../../src/services/clock";
import { SANDBOX_MESSAGES } from "../../src/http/routes/sandbox";
import { CARD, otherMerchant, setup, type TestContext } from "../support/app";
import { sql } from "../../src/storage/database";

/** Tokenizes the test Visa and charges it as `merchant`. */
async function chargeAs(ctx: TestContext, merchant: { api_key: string; web_payments_token: string }) {
  const pm = await ctx.call("POST", `/webpayment/${merchant.web_payments_token}/tokenize`, { body: CARD, auth: false });
  return ctx.call("POST", "/charge", { body: { payment_method_id: pm.body.id, total: 5 }, auth: merchant.api_key });
}

describe("the sandbox clock is bounded", () => {
  test("advancing past 2099-12-31 23:59:59 is a 422 on seconds that says how far it may go; nothing moves", async () => {
    // Real time stands still in this test, so "up to the bound" is exact.
    const realNow = Date.UTC(2026, 10, 23, 12, 0, 0);
    const ctx = await setup({ now: () => realNow });
    const max = ctx.deps.clock.maxAdvanceSeconds(ctx.merchantId);
    // Ten-year steps (the route's own per-request limit) up to just short of the bound.
    let left = max;
    while (left > 300_000_000) {
      expect((await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds: 300_000_000 } })).status).toBe(200);
      left -= 300_000_000;
    }
    const state = (await ctx.call("GET", "/_sandbox/clock")).body;
    const remaining = ctx.deps.clock.maxAdvanceSeconds(ctx.merchantId);
    const refused = await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds: remaining + 2 } });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("validation_error");
    expect(refused.body.errors.seconds).toEqual([clockLimitMessage(state.now, remaining)]);
    expect(refused.body.message).toContain(LATEST_CLOCK_TEXT);
    expect((await ctx.call("GET", "/_sandbox/clock")).body.offset_seconds).toBe(state.offset_seconds);
    // Up to the bound itself is fine, and timestamps stay four-digit years.
    const last = await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds: remaining } });
    expect(last.status).toBe(200);
    expect(last.body.now).toBe(LATEST_CLOCK_TEXT);
    expect(ctx.deps.clock.now(ctx.merchantId).getTime()).toBe(LATEST_CLOCK_MS);
    expect((await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds: 1 } })).status).toBe(422);
    // The dashboard's clock form refuses too.
    const dashboard = await ctx.call("POST", "/dashboard/clock/advance", { body: { seconds: 3600 }, auth: false });
    expect(dashboard.status).toBe(422);
    expect(dashboard.body.errors.seconds[0]).toContain(LATEST_CLOCK_TEXT);
  });

  test("reset puts the acting merchant's clock back on real time, in the database too", async () => {
    const ctx = await setup();
    await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds: 300_000_000 } });
    expect((await ctx.call("GET", "/_sandbox/clock")).body.offset_seconds).toBe(300_000_000);
    expect((await ctx.call("POST", "/_sandbox/reset")).status).toBe(200);
    const clock = (await ctx.call("GET", "/_sandbox/clock")).body;
    expect(clock.offset_seconds).toBe(0);
    expect(clock.now).toBe(clock.real_now);
    const stored = (await ctx.deps.db.get<{ clock_offset_ms: number }>(
      sql`SELECT clock_offset_ms FROM merchants WHERE id = ${ctx.merchantId}`,
    ))!;
    expect(stored.clock_offset_ms).toBe(0);
  });
});

describe("merchant creation is capped", () => {
  test("past --max-merchants POST /_sandbox/merchants is a 422 that names the flag; deleting one makes room", async () => {
    const ctx = await setup({ config: { maxMerchants: 3 } });
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await otherMerchant(ctx));
    const refused = await ctx.call("POST", "/_sandbox/merchants", { body: { name: "One too many" }, auth: false });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ code: "invalid_state", message: SANDBOX_MESSAGES.merchantCap(3) });
    expect(await ctx.deps.services.merchants.list()).toHaveLength(4);
    const removed = await ctx.call("DELETE", `/_sandbox/merchants/${made[0]!.id}`, { auth: false });
    expect(removed.body).toEqual({ id: made[0]!.id, deleted: true });
    expect((await ctx.call("POST", "/_sandbox/merchants", { body: { name: "Fits" }, auth: false })).status).toBe(200);
  });

  test("deleting a merchant removes its records and its key; the default merchant cannot be deleted", async () => {
    const ctx = await setup();
    const other = await otherMerchant(ctx);
    expect((await chargeAs(ctx, other)).status).toBe(200);
    expect((await ctx.call("DELETE", `/_sandbox/merchants/${other.id}`, { auth: false })).status).toBe(200);
    expect((await ctx.call("GET", "/self", { auth: other.api_key })).status).toBe(401);
    const rows = (await ctx.deps.db.get<{ n: number }>(
      sql`SELECT COUNT(*) AS n FROM transactions WHERE merchant_id = ${other.id}`,
    ))!;
    expect(rows.n).toBe(0);
    const own = await ctx.call("DELETE", `/_sandbox/merchants/${ctx.merchantId}`, { auth: false });
    expect(own.status).toBe(422);
    expect(own.body.message).toBe(SANDBOX_MESSAGES.defaultMerchant);
    expect((await ctx.call("DELETE", "/_sandbox/merchants/nope", { auth: false })).status).toBe(404);
  });

  test("the default cap leaves room for a suite that makes a merchant per test", async () => {
    expect((await setup()).deps.config.maxMerchants).toBe(1000);
  });
});

describe("the real-time clock job visits merchants with pending work only", () => {
  test("2,000 idle merchants: a tick runs jobs for the 3 merchants with work, and their work is done", async () => {
    const ctx = await setup({ config: { maxMerchants: 5000 } });
    const { merchants } = ctx.deps.services;
    for (let i = 0; i < 2000; i++) await merchants.create({ name: `Idle ${i}` });
    // Three merchants with a sale each, then their clocks a day on: settlement is due.
    const busy = [];
    for (let i = 0; i < 3; i++) {
      const merchant = await otherMerchant(ctx);
      expect((await chargeAs(ctx, merchant)).status).toBe(200);
      busy.push(merchant.id);
    }
    const settlement = ctx.deps.services.settlement;
    for (const id of busy) {
      // Moves the stored offset only, so the tick (not advance) has the batch to close.
      await ctx.deps.db.run(sql`UPDATE merchants SET clock_offset_ms = ${2 * 86_400_000} WHERE id = ${id}`);
      ctx.deps.clock.forget(id);
    }
    expect(new Set(await settlement.pendingMerchants())).toEqual(new Set(busy));
    const before = ctx.deps.clock.visits;
    await ctx.deps.clock.tick();
    // One settlement run per busy merchant; the webhook dispatcher is not started in this app, so it visits none.
    expect(ctx.deps.clock.visits - before).toBe(3);
    for (const id of busy) {
      const open = (await ctx.deps.db.get<{ n: number }>(
        sql`SELECT COUNT(*) AS n FROM transactions WHERE merchant_id = ${id} AND batch_id IS NULL`,
      ))!;
      expect(open.n).toBe(0);
    }
    // Settled and deposited: nobody has work left, a tick visits no one.
    await ctx.deps.clock.tick();
    const after = ctx.deps.clock.visits;
    await ctx.deps.clock.tick();
    expect(ctx.deps.clock.visits - after).toBe(0);
  });
});
