/**
 * A property (fast-check): whatever sequence of card and bank charges, refunds, ACH returns,
 * disputes (answered or not) and clock advances a merchant lives through, once everything has
 * settled the landed deposits add up to sales − refunds − fees − returns − return fees − dispute
 * withdrawals and fees + reversals, to the cent; and each deposit's detail rows add up to it. Both
 * databases; each run is a merchant of its own.
 */
import { beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { BANK, CARD, otherMerchant, setup, tokenize, type TestContext } from "../support/app";
import { DAY, HOUR, startWeek } from "../support/settlement";
import { cardBatchAt } from "../../src/services/settlement";
import { achFeeCents, ACH_RETURN_FEE_CENTS, cardFeeCents, DISPUTE_FEE_CENTS } from "../../src/domain/fees";
import { findTestCard } from "../../packages/rules/test-data";

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
  | { kind: "disputed"; cents: number; card: string }
  | { kind: "answer"; pick: number; wins: boolean }
  | { kind: "refund"; pick: number; cents: number }
  | { kind: "advance"; hours: number };

const RETURNING = ["2000000000", "2000000001", "2000000003", "2000000010"];
const DISPUTED = ["4000000000000259", "4000000000002685", "5200000000002599"];
const amount = fc.integer({ min: 1, max: 50_000 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("card" as const), cents: amount }),
  fc.record({
    kind: fc.constant("bank" as const),
    cents: amount,
    account: fc.constantFrom("9876543210", ...RETURNING),
  }),
  fc.record({ kind: fc.constant("disputed" as const), cents: amount, card: fc.constantFrom(...DISPUTED) }),
  fc.record({ kind: fc.constant("answer" as const), pick: fc.nat(), wins: fc.boolean() }),
  fc.record({ kind: fc.constant("refund" as const), pick: fc.nat(), cents: amount }),
  fc.record({ kind: fc.constant("advance" as const), hours: fc.integer({ min: 1, max: 80 }) }),
);

const cents = (value: number) => Math.round(value * 100);

test("deposits balance to the cent over random charges, refunds, returns and disputes on the clock", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 9 }), async (ops) => {
      const ctx = await freshMerchant();
      const week = await startWeek(ctx);
      const card = await tokenize(ctx, CARD);
      const banks = new Map<string, string>();
      const sales: { id: string; cents: number; method: "card" | "bank"; returns: boolean }[] = [];
      // The disputed sales: when their dispute opens, what was refunded (and when), and how it was answered.
      const disputed = new Map<
        string,
        { cents: number; opensAt: number; refunds: [number, number][]; wins?: boolean }
      >();
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
        } else if (step.kind === "disputed") {
          const pm = await tokenize(ctx, { ...CARD, card_number: step.card });
          const res = await ctx.call("POST", "/charge", {
            body: { payment_method_id: pm.id, total: step.cents / 100 },
          });
          expect(res.status).toBe(200);
          sales.push({ id: res.body.id, cents: step.cents, method: "card", returns: false });
          const days = findTestCard(step.card)!.dispute!.days;
          disputed.set(res.body.id, {
            cents: step.cents,
            opensAt: cardBatchAt(res.body.created_at) + days * DAY,
            refunds: [],
          });
          expected += step.cents - cardFeeCents(step.cents);
        } else if (step.kind === "answer" && disputed.size > 0) {
          const id = [...disputed.keys()][step.pick % disputed.size]!;
          // The merchant answers once the dispute is there: the clock goes to its opening if it is not yet.
          const opensAt = disputed.get(id)!.opensAt;
          if (ctx.deps.clock.now(ctx.merchantId).getTime() < opensAt) await week.goTo(opensAt + HOUR);
          const [dispute] = (await ctx.call("GET", `/underwriting/disputes?transaction_id=${id}`)).body.data;
          if (!dispute) continue;
          const notes = step.wins ? "winning_evidence" : "losing_evidence";
          const res = await ctx.call("POST", `/underwriting/dispute/${dispute.id}/submit`, { body: { notes } });
          // Refused once submitted or decided: nothing changes then.
          if (res.status === 200) disputed.get(id)!.wins = step.wins;
          else expect(res.status).toBe(422);
        } else if (step.kind === "refund" && sales.length > 0) {
          const sale = sales[step.pick % sales.length]!;
          const res = await ctx.call("POST", `/transaction/${sale.id}/refund`, { body: { total: step.cents / 100 } });
          // Refused before settlement, after a return, or above what remains: nothing moves then.
          if (res.status === 200) {
            expected -= step.cents;
            disputed.get(sale.id)?.refunds.push([ctx.deps.clock.now(ctx.merchantId).getTime(), step.cents]);
          } else expect(res.status).toBe(422);
        } else if (step.kind === "advance") {
          await week.advance((step.hours * HOUR) / 1000);
        }
      }
      // Long enough for every batch to settle, every return to come back, every dispute to be
      // decided and every deposit to land.
      await week.advance((30 * DAY) / 1000);
      // A dispute withdraws what was not refunded before it opened, and its fee; a won one gives the amount back.
      for (const [id, sale] of disputed) {
        const amount = sale.cents - sale.refunds.filter(([at]) => at < sale.opensAt).reduce((sum, [, c]) => sum + c, 0);
        const found = (await ctx.call("GET", `/underwriting/disputes?transaction_id=${id}`)).body.data;
        expect(found.map((d: any) => [cents(d.amount), d.status])).toEqual(
          amount > 0 ? [[amount, sale.wins ? "WON" : "LOST"]] : [],
        );
        if (amount > 0) expected -= amount + DISPUTE_FEE_CENTS - (sale.wins ? amount : 0);
      }
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
