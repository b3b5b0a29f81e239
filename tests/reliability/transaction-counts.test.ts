/**
 * The unfiltered transaction list reads its total from a per-merchant counter kept by triggers
 * (migration 009) instead of COUNT(*) over every row: it must always equal the real count.
 */
import { describe, expect, test } from "bun:test";
import { charge, otherMerchant, setup, tokenize, type TestContext } from "../support/app";
import { sql } from "../../src/storage/database";

const realCount = async (ctx: TestContext, merchantId: string) =>
  (await ctx.deps.db.get<{ n: number }>(
    sql`SELECT COUNT(*) AS n FROM transactions WHERE merchant_id = ${merchantId} AND parent_id IS NULL`,
  ))!.n;

describe("the transaction list total", () => {
  test("equals the number of top-level transactions after charges, declines, voids, other merchants and a reset", async () => {
    const ctx = await setup();
    expect((await ctx.call("GET", "/transaction")).body.total).toBe(0);
    for (let i = 0; i < 5; i++) expect((await charge(ctx, 10 + i)).status).toBe(200);
    // A declined charge is kept and listed.
    expect((await charge(ctx, 3, { card_number: "4012888888881881" })).status).toBe(402);
    const approved = (await charge(ctx, 7)).body;
    // A void is a child: listed under its parent, not counted on its own.
    expect((await ctx.call("POST", `/transaction/${approved.id}/void`, { body: {} })).status).toBe(200);
    const other = await otherMerchant(ctx);
    const otherPm = await tokenize(ctx, {}, other.web_payments_token);
    expect(
      (await ctx.call("POST", "/charge", { body: { payment_method_id: otherPm.id, total: 1 }, auth: other.api_key }))
        .status,
    ).toBe(200);

    const list = await ctx.call("GET", "/transaction?per_page=2");
    expect(list.body.total).toBe(7);
    expect(list.body.total).toBe(await realCount(ctx, ctx.merchantId));
    expect(list.body.last_page).toBe(4);
    expect((await ctx.call("GET", "/transaction", { auth: other.api_key })).body.total).toBe(1);
    // A filtered list still counts exactly.
    expect((await ctx.call("GET", "/transaction?success=false")).body.total).toBe(1);

    expect((await ctx.call("POST", "/_sandbox/reset", { auth: ctx.apiKey })).status).toBe(200);
    expect((await ctx.call("GET", "/transaction")).body.total).toBe(0);
    expect((await ctx.call("GET", "/transaction", { auth: other.api_key })).body.total).toBe(1);
    expect((await charge(ctx, 2)).status).toBe(200);
    expect((await ctx.call("GET", "/transaction")).body.total).toBe(1);
  });

  test("stays right when rows are written or deleted with plain SQL", async () => {
    const ctx = await setup();
    for (let i = 0; i < 3; i++) await charge(ctx, 5);
    const first = (await ctx.call("GET", "/transaction")).body.data.at(-1).id;
    await ctx.deps.db.run(sql`DELETE FROM transactions WHERE id = ${first}`);
    expect((await ctx.call("GET", "/transaction")).body.total).toBe(await realCount(ctx, ctx.merchantId));
    expect(await realCount(ctx, ctx.merchantId)).toBe(2);
  });
});
