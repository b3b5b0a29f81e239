/**
 * The surcharge arithmetic (src/domain/surcharge.ts, src/services/transactions/surcharges.ts),
 * property-tested: a surcharge is rate × sale rounded half up, and across any sequence of partial
 * refunds ending in a full one the refunds' surcharge shares add up to the surcharge exactly.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  decideSurcharge,
  parseSurchargeRate,
  SURCHARGE_RATE_LIMIT_BPS,
  surchargeCents,
  surchargeShare,
} from "../../src/domain/surcharge";
import {
  captureSurchargeCents,
  movedSurchargeCents,
  refundSurchargeCents,
  refundedSurchargeCents,
} from "../../src/services/transactions/surcharges";

const ON = { enabled: true, rateBps: 300 };
const CREDIT = { method: "card", bin_type: "CREDIT" } as const;

/** Splits `whole` into 1..n positive parts (random cut points), in order. */
const parts = (whole: number) =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: Math.max(1, whole - 1) }), { maxLength: Math.min(12, whole - 1) })
    .map((cuts) => {
      const points = [0, ...cuts.filter((c) => c < whole).sort((a, b) => a - b), whole];
      return points.slice(1).map((p, i) => p - points[i]!);
    });

describe("the surcharge of a sale", () => {
  test("is rate × sale rounded half up to the cent", () => {
    expect(surchargeCents(1200, 150)).toBe(18); // the real example: 1.5% of 12.00 is 0.18
    expect(surchargeCents(1230, 150)).toBe(18); // 18.45 cents → 18
    expect(surchargeCents(1234, 150)).toBe(19); // 18.51 cents → 19
    expect(surchargeCents(10_000, 300)).toBe(300);
    expect(surchargeCents(1, 300)).toBe(0);
    expect(surchargeCents(17, 300)).toBe(1); // 0.51 cents → 1
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9_999_999_999 }), fc.integer({ min: 1, max: 300 }), (sale, bps) => {
        const cents = surchargeCents(sale, bps);
        // |cents − exact| ≤ ½ cent, and never more than the rate allows.
        expect(Math.abs(cents * 10_000 - sale * bps)).toBeLessThanOrEqual(5_000);
        expect(cents).toBeLessThanOrEqual(Math.ceil((sale * SURCHARGE_RATE_LIMIT_BPS) / 10_000));
      }),
    );
  });

  test("applies to credit cards only, with the reason when it does not", () => {
    expect(decideSurcharge(ON, CREDIT, 1000)).toEqual({ binType: "CREDIT", rateBps: 300, cents: 30, reason: null });
    expect(decideSurcharge(ON, { method: "card", bin_type: "DEBIT" }, 1000)).toMatchObject({
      cents: 0,
      reason: "debit_card",
    });
    expect(decideSurcharge(ON, { method: "card", bin_type: "PREPAID" }, 1000)).toMatchObject({
      cents: 0,
      reason: "prepaid_card",
    });
    expect(decideSurcharge(ON, { method: "bank", bin_type: null }, 1000)).toMatchObject({
      binType: "BANK",
      cents: 0,
      reason: "bank_payment",
    });
    expect(decideSurcharge({ enabled: false, rateBps: 300 }, CREDIT, 1000)).toMatchObject({
      cents: 0,
      reason: "surcharging_off",
    });
  });

  test("a rate is above 0 and at most 3%, with two decimals at most", () => {
    expect(parseSurchargeRate(3)).toEqual({ bps: 300 });
    expect(parseSurchargeRate("1.5")).toEqual({ bps: 150 });
    expect(parseSurchargeRate(2.75)).toEqual({ bps: 275 });
    for (const bad of [0, 3.01, 3.5, 4, -1, 1.555, "abc", "", null, true, Number.NaN, 1e21])
      expect(parseSurchargeRate(bad)).toHaveProperty("error");
  });
});

describe("refunds return the surcharge in proportion", () => {
  test("a charge's partial refunds then the rest: no cent of surcharge lost or invented", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 100_000_000 }),
        (sale, bps, seed) => {
          const surcharge = surchargeCents(sale, bps);
          const row = {
            type: "charge" as const,
            total_cents: sale + surcharge,
            surcharge_cents: surcharge,
            captured_cents: 0,
            total_refunded_cents: 0,
          };
          // Refund amounts: a pseudo-random split of the total (the last one is the remainder).
          const total = row.total_cents;
          let left = total;
          let x = seed;
          let returned = 0;
          while (left > 0) {
            x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
            const cents = left === 1 || x % 4 === 0 ? left : 1 + (x % left);
            const share = refundSurchargeCents(row, cents);
            expect(share).toBeGreaterThanOrEqual(0);
            expect(share).toBeLessThanOrEqual(cents);
            returned += share;
            row.total_refunded_cents += cents;
            left -= cents;
            expect(refundedSurchargeCents(row)).toBe(returned);
          }
          expect(returned).toBe(surcharge);
        },
      ),
      { numRuns: 500 },
    );
  });

  test("any split of a total: shares are never negative, never above the refund, and add up exactly", () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 5_000_000 })
          .chain((total) => fc.tuple(fc.constant(total), fc.integer({ min: 0, max: total }), parts(total))),
        ([total, surcharge, split]) => {
          let refunded = 0;
          let sum = 0;
          for (const cents of split) {
            const share =
              surchargeShare(surcharge, total, refunded + cents) - surchargeShare(surcharge, total, refunded);
            expect(share).toBeGreaterThanOrEqual(0);
            expect(share).toBeLessThanOrEqual(cents);
            sum += share;
            refunded += cents;
          }
          expect(refunded).toBe(total);
          expect(sum).toBe(surcharge);
        },
      ),
      { numRuns: 300 },
    );
  });

  test("a pre_auth captured for less carries its share, and its refunds return exactly that share", () => {
    const row = {
      type: "pre_auth" as const,
      total_cents: 10_300,
      surcharge_cents: 300,
      captured_cents: 5_150,
      total_refunded_cents: 0,
    };
    expect(captureSurchargeCents(row, 5_150)).toBe(150);
    expect(movedSurchargeCents(row)).toBe(150);
    expect(
      refundSurchargeCents(row, 1_000) + refundSurchargeCents({ ...row, total_refunded_cents: 1_000 }, 4_150),
    ).toBe(150);
  });
});
