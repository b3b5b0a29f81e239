/**
 * A sandbox reset while the same merchant's charges are in flight (a suite resetting between tests
 * while a straggler still charges). On PostgreSQL they really run at once: the reset's deletes met
 * a charge committed in between and answered 500, or a charge's insert named a payment method the
 * reset had just deleted. Now the reset locks the merchant first and always wins; a charge caught
 * by it answers 404 (its payment method is gone) or 422 (deleted while it ran), never 5xx.
 */
import { describe, expect, test } from "bun:test";
import { setup, tokenize } from "../support/app";
import { sql } from "../../src/storage/database";

const CAUGHT =
  "A record this request uses was deleted while it ran (a sandbox reset or a delete at the same moment); nothing was written.";

describe("a sandbox reset during charges", () => {
  test("the reset always answers 200; each charge 200, or 404/422 when the reset took what it used; nothing half-written", async () => {
    const ctx = await setup();
    const answers: { status: number; message?: string }[] = [];
    for (let round = 0; round < 20; round++) {
      const methods = await Promise.all(Array.from({ length: 12 }, () => tokenize(ctx)));
      const charges = methods.map((pm) =>
        ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 5 } }),
      );
      await Bun.sleep(round % 4); // the reset lands at different points of the charges
      const reset = await ctx.call("POST", "/_sandbox/reset", { auth: ctx.apiKey });
      expect(reset.status).toBe(200);
      for (const answer of await Promise.all(charges))
        answers.push({ status: answer.status, message: answer.body.message });
    }
    for (const answer of answers) {
      if (answer.status === 200) continue;
      expect([404, 422]).toContain(answer.status);
      if (answer.status === 422) expect(answer.message).toBe(CAUGHT);
    }
    // Whatever committed, every stored charge names a payment method and customer that exist.
    const dangling = await ctx.deps.db.all(
      sql`SELECT t.id FROM transactions t LEFT JOIN payment_methods p ON p.id = t.payment_method_id
          WHERE t.merchant_id = ${ctx.merchantId} AND p.id IS NULL`,
    );
    expect(dangling).toEqual([]);
  });
});
