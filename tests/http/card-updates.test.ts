/**
 * Card updates on the sandbox clock (docs/testing-failures.md, "Card updates"): a test card its
 * brand updates gets its new expiry or last four at the documented midnight, update_payment_method
 * is sent, and the next charge uses the new data. Both databases.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { CARD, setup, tokenize, type TestContext } from "../support/app";
import { DAY, HOUR, startWeek, ts, type Week } from "../support/settlement";
import { TEST_CARDS } from "../../packages/rules/test-data";

let ctx: TestContext;
let week: Week;
let events: { name: string; record: any }[];
beforeEach(async () => {
  ctx = await setup();
  week = await startWeek(ctx);
  events = [];
  ctx.deps.events.on((_ex, e) => void events.push({ name: e.name, record: e.record }));
});

/** MMYY of the month `months` after the merchant's now. */
function expiryIn(months: number): string {
  const now = ctx.deps.clock.now(ctx.merchantId);
  const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, 1));
  return `${String(at.getUTCMonth() + 1).padStart(2, "0")}${String(at.getUTCFullYear() % 100).padStart(2, "0")}`;
}

const charge = (pmId: string, total = 10) => ctx.call("POST", "/charge", { body: { payment_method_id: pmId, total } });

describe("card updates", () => {
  test("a new expiry arrives on the clock and keeps a card that would have expired chargeable", async () => {
    const exp = expiryIn(0);
    const pm = await tokenize(ctx, { ...CARD, card_number: "4000000000007700", card_exp: exp });
    expect(pm.card_exp).toBe(exp);
    // Not before its midnight: the next one (1 day after it was saved, Monday noon).
    await week.goTo(week.midnight(1) - HOUR);
    expect((await ctx.call("GET", `/payment-method/${pm.id}`)).body.card_exp).toBe(exp);
    await week.goTo(week.midnight(1) + HOUR);
    const newExp = `${exp.slice(0, 2)}${String((Number(exp.slice(2)) + 3) % 100).padStart(2, "0")}`;
    const updated = (await ctx.call("GET", `/payment-method/${pm.id}`)).body;
    expect(updated).toMatchObject({ card_exp: newExp, card_last_four: "7700", updated_at: ts(week.midnight(1)) });
    const sent = events.filter((e) => e.name === "update_payment_method");
    expect(sent.map((e) => e.record)).toEqual([updated]);

    // Two months on, the saved expiry has passed; the updated one has not: the charge goes through.
    await week.goTo(week.midnight(1) + 62 * DAY);
    const res = await charge(pm.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, payment_method: { card_exp: newExp } });
    // Once: nothing more is sent later.
    await week.goTo(week.midnight(1) + 70 * DAY);
    expect(events.filter((e) => e.name === "update_payment_method")).toHaveLength(1);
  });

  test("a reissued card's new last four is on the payment method and on the next charge", async () => {
    const pm = await tokenize(ctx, { ...CARD, card_number: "4000000000007718" });
    const before = await charge(pm.id);
    expect(before.body.last_four).toBe("7718");
    await week.goTo(week.midnight(1) + HOUR);
    const after = await charge(pm.id);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ last_four: "4242", payment_method: { card_last_four: "4242" } });
    // The earlier charge keeps the card it was made with.
    expect((await week.get(before.body.id)).last_four).toBe("7718");
    const sent = events.filter((e) => e.name === "update_payment_method");
    expect(sent).toHaveLength(1);
    expect(sent[0]!.record).toMatchObject({ id: pm.id, card_last_four: "4242" });
  });

  test("every updating card is listed with what changes and when, and updates on its day", async () => {
    const listed = (await ctx.call("GET", "/_sandbox/test-cards")).body.cards.filter((c: any) => c.update);
    const updating = TEST_CARDS.filter((card) => card.update);
    expect(listed.map((c: any) => c.number)).toEqual(updating.map((card) => card.number));
    const saved = [];
    for (const card of updating) {
      saved.push({
        card,
        pm: await tokenize(ctx, {
          ...CARD,
          card_number: card.number,
          card_cvv: card.brand === "amex" ? "1234" : "123",
        }),
      });
    }
    await week.goTo(week.midnight(8));
    for (const { card, pm } of saved) {
      const now = (await ctx.call("GET", `/payment-method/${pm.id}`)).body;
      expect(now.updated_at).toBe(ts(week.midnight(card.update!.days)));
      if (card.update!.lastFour) expect(now.card_last_four).toBe(card.update!.lastFour);
      if (card.update!.expiryYears) expect(now.card_exp).not.toBe(pm.card_exp);
    }
    expect(events.filter((e) => e.name === "update_payment_method")).toHaveLength(updating.length);
  });

  test("a deleted card is updated silently; other cards never change", async () => {
    const pm = await tokenize(ctx, { ...CARD, card_number: "4000000000007718" });
    const plain = await tokenize(ctx, CARD);
    expect((await ctx.call("DELETE", `/payment-method/${pm.id}`)).status).toBe(200);
    await week.goTo(week.midnight(3));
    expect(events.filter((e) => e.name === "update_payment_method")).toHaveLength(0);
    expect((await ctx.call("GET", `/payment-method/${plain.id}`)).body).toEqual(plain);
  });
});
