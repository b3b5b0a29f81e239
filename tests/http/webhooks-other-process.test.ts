/**
 * On PostgreSQL a request's unit of work writes no outbox row when its merchant, as the request read
 * it at its start, had no active webhook (WebhookService.actsFor): a webhook registered meanwhile,
 * through any process, is concurrent with the request. One registered before the request began
 * gets its events, even when this process never saw it being made (another process did): the
 * merchant's read counts the webhooks in the database, not this process's cache.
 */
import { expect, test } from "bun:test";
import { sql } from "../../src/storage/database";
import { onPostgres } from "../support/database";
import { setup, tokenize, type TestContext } from "../support/app";

const NOW = "2026-11-27 10:00:00";

async function deliveries(ctx: TestContext, recordId: string): Promise<string[]> {
  const rows = await ctx.deps.db.all<{ event: string }>(
    sql`SELECT event FROM webhook_deliveries WHERE merchant_id = ${ctx.merchantId} AND record_id = ${recordId}
      ORDER BY event`,
  );
  return rows.map((row) => row.event);
}

test.skipIf(!onPostgres)(
  "a webhook another process registered gets the next request's events; none, and nothing is written",
  async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx);
    const before = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 5 } });
    expect(before.status).toBe(200);
    expect(await deliveries(ctx, before.body.id)).toEqual([]);
    // Registered by another process: a row in the database this process's services never saw.
    await ctx.deps.db.run(sql`INSERT INTO webhooks (id, merchant_id, target_url, event, created_at, updated_at)
      VALUES ('hook-elsewhere', ${ctx.merchantId}, 'http://127.0.0.1:9/hook', '*', ${NOW}, ${NOW})`);
    const after = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 6 } });
    expect(after.status).toBe(200);
    expect(await deliveries(ctx, after.body.id)).toEqual(["create_transaction"]);
    // Disabled there again: the next request writes none.
    await ctx.deps.db.run(sql`UPDATE webhooks SET disabled_at = ${NOW} WHERE id = 'hook-elsewhere'`);
    const last = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 7 } });
    expect(await deliveries(ctx, last.body.id)).toEqual([]);
  },
);
