/**
 * Shared by the money and settlement suites: a known week on the merchant's sandbox clock
 * (every test starts on a Monday at 12:00 UTC) and shortcuts for paying and reading back.
 */
import { expect } from "bun:test";
import { formatTimestamp } from "../../src/domain/time";
import { BANK, tokenize, type TestContext } from "./app";

export const DAY = 86_400_000;
export const HOUR = 3_600_000;

export function nextMondayNoon(now: number): number {
  let day = Math.floor(now / DAY) * DAY + DAY;
  while (new Date(day).getUTCDay() !== 1) day += DAY;
  return day + 12 * HOUR;
}

export const ts = (ms: number) => formatTimestamp(new Date(ms));
export const date = (ms: number) => ts(ms).slice(0, 10);

export interface Week {
  /** Monday 12:00:00 UTC, epoch ms. */
  monday: number;
  /** 00:00 UTC of the day `days` after that Monday. */
  midnight(days: number): number;
  /** Moves the clock forward by seconds (through the route) and returns its answer. */
  advance(seconds: number): Promise<any>;
  /** Moves the clock to `target` (epoch ms), or just runs the due jobs when it is already there. */
  goTo(target: number): Promise<any>;
  /** Tokenizes the test Visa (or the test bank account) and charges it. */
  pay(total: number | string, method?: "card" | "bank"): Promise<any>;
  get(id: string): Promise<any>;
}

/** Moves the context's merchant to the next Monday noon and returns the week's helpers. */
export async function startWeek(ctx: TestContext): Promise<Week> {
  const monday = nextMondayNoon(ctx.deps.clock.now(ctx.merchantId).getTime());
  const advance = async (seconds: number) => {
    const res = await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds } });
    expect(res.status).toBe(200);
    return res.body;
  };
  const week: Week = {
    monday,
    midnight: (days) => monday - 12 * HOUR + days * DAY,
    advance,
    async goTo(target) {
      const now = ctx.deps.clock.now(ctx.merchantId).getTime();
      // The clock runs in real time too: a target a few seconds behind (the test's own run time) is "now".
      expect(target).toBeGreaterThan(now - 10_000);
      return advance(Math.max(0, target - now) / 1000);
    },
    async pay(total, method = "card") {
      const pm = await tokenize(ctx, method === "bank" ? BANK : {});
      const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total } });
      expect(res.status).toBe(200);
      return res.body;
    },
    get: async (id) => (await ctx.call("GET", `/transaction/${id}`)).body,
  };
  await week.goTo(monday);
  return week;
}
