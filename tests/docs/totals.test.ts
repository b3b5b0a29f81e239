/**
 * What README.md and docs/payjs.md say about totals, next to their first example that sends one:
 * at most two decimals, so a float sum is refused and its rounded value or its cents string is not.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MESSAGES } from "../../packages/rules/messages";
import { charge, setup } from "../support/app";
import { ROOT } from "./blocks";

describe("totals as the docs tell integrators to send them", () => {
  test("1 + 14/100 is refused on total; Math.round(… * 100) / 100 and (cents / 100).toFixed(2) are charged", async () => {
    for (const doc of ["README.md", "docs/payjs.md"]) {
      const text = readFileSync(join(ROOT, doc), "utf8");
      expect(text).toContain("`1 + 14/100` is `1.1400000000000001` in JavaScript");
      expect(text).toContain("Math.round(amount * 100) / 100");
      expect(text).toContain("(cents / 100).toFixed(2)");
    }
    const ctx = await setup();
    const amount = 1 + 14 / 100;
    expect(amount).toBe(1.1400000000000001);
    const refused = await charge(ctx, amount);
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ total: [MESSAGES.totalDecimals] });
    const rounded = await charge(ctx, Math.round(amount * 100) / 100);
    expect(rounded.status).toBe(200);
    expect(rounded.body.total).toBe(1.14);
    const cents = 114;
    const fromCents = await charge(ctx, (cents / 100).toFixed(2));
    expect(fromCents.status).toBe(200);
    expect(fromCents.body.total).toBe(1.14);
  });
});
