/**
 * A property (fast-check): whatever sequence of card and bank charges, refunds, ACH returns and
 * clock advances a merchant lives through, once everything has settled the landed deposits add up
 * to sales − refunds − fees − returns − return fees, to the cent; and each deposit's detail rows
 * add up to it. Both databases; each run is a merchant of its own.
 */
import { beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { BANK, CARD, otherMerchant, setup, tokenize, type TestContext } from "../support/app";
import { DAY, HOUR, startWeek } from "../support/settlement";
import { achFeeCents, ACH_RETURN_FEE_CENTS, cardFeeCents } from "../../src/domain/fees";

let base: TestContext;
beforeAll(async () => {
  base = await setup();
});

/** The shared app, acting as a new merchant. */
async function freshMerchant(): Promise<TestContext> {
  const m = await otherMerchant(base);
  return {
    ...base,
    apiKey: m.api_key,
    token: m.web_payments_token,
    merchantId: m.id,
    call: (method, path, opts = {}) => base.call(method, path, { ...opts, auth: opts.auth ?? m.api_key }),
  };
}

type Op =
  | { kind: "card"; cents: number }
  | { kind: "bank"; cents: number; account: string }
  | { kind: "refund"; pick: number; cents: number }
  | { kind: "advance"; hours: number };

const RETURNING = ["2000000000", "2000000001", "2000000003", "2000000010"];
const amount = fc.integer({ min: 1, max: 50_000 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("card" as const), cents: amount }),
  fc.record({
    kind: fc.constant("bank" as const),
    cents: amount,
    account: fc.constantFrom("9876543210", ...RETURNING),
  }),
  fc.record({ kind: fc.constant("refund" as const), pick: fc.nat(), cents: amount }),
  fc.record({ kind: fc.constant("advance" as const), hours: fc.integer({ min: 1, max: 80 }) }),
);

const cents = (value: number) => Math.round(value * 100);

test("deposits balance to the cent over random charges, refunds and returns on the clock", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 9 }), async (ops) => {
      const ctx = await freshMerchant();
      const week = await startWeek(ctx);
      const card = await tokenize(ctx, CARD);
      const banks = new Map<string, string>();
      const sales: { id: string; cents: number; method: "card" | "bank"; returns: boolean }[] = [];
      let expected = 0;
      for (const step of ops) {
        if (step.kind === "card" || step.kind === "bank") {
          let pmId = card.id;
          if (step.kind === "bank") {
            if (!banks.has(step.account)) {
              banks.set(step.account, (await tokenize(ctx, { ...BANK, bank_account: step.account })).id);
            }
            pmId = banks.get(step.account)!;
          }
          const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pmId, total: step.cents / 100 } });
          expect(res.status).toBe(200);
          const returns = step.kind === "bank" && RETURNING.includes(step.account);
          sales.push({ id: res.body.id, cents: step.cents, method: step.kind, returns });
          expected += step.cents - (step.kind === "card" ? cardFeeCents(step.cents) : achFeeCents(step.cents));
          if (returns) expected -= step.cents + ACH_RETURN_FEE_CENTS;
        } else if (step.kind === "refund" && sales.length > 0) {
          const sale = sales[step.pick % sales.length]!;
          const res = await ctx.call("POST", `/transaction/${sale.id}/refund`, { body: { total: step.cents / 100 } });
          // Refused before settlement, after a return, or above what remains: nothing moves then.
          if (res.status === 200) expected -= step.cents;
          else expect(res.status).toBe(422);
        } else if (step.kind === "advance") {
          await week.advance((step.hours * HOUR) / 1000);
        }
      }
      // Long enough for every batch to settle, every return to come back and every deposit to land.
      await week.advance((16 * DAY) / 1000);
      const deposits = (await ctx.call("GET", "/query/deposit?startDate=2000-01-01&per_page=200")).body;
      expect(deposits.total).toBeLessThanOrEqual(200);
      const total = deposits.data.reduce((sum: number, d: any) => sum + cents(d.net), 0);
      expect(total).toBe(expected);
      for (const d of deposits.data) {
        expect(cents(d.gross) - cents(d.refunds) - cents(d.fees) + cents(d.adjustments)).toBe(cents(d.net));
        const detail = (await ctx.call("GET", `/query/depositDetail?batch_id=${d.batch_id}&per_page=200`)).body;
        expect(detail.data.reduce((sum: number, r: any) => sum + cents(r.net), 0)).toBe(cents(d.net));
      }
      // Every returning sale was returned exactly once.
      for (const sale of sales.filter((s) => s.returns)) {
        const record = (await ctx.call("GET", `/transaction/${sale.id}`)).body;
        expect(record.child_transactions.filter((c: any) => c.type === "void")).toHaveLength(1);
      }
    }),
    { numRuns: 15 },
  );
}, 120_000);
