/**
 * Outcome sequences (POST/GET/DELETE /_sandbox/outcomes) through the real app, on both databases:
 * a payment method's next authorizations take the armed outcomes in order, then its own again, for
 * POST /charge, invoice payment and pay()'s public routes; bad input arms nothing.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { DECLINE_REASONS } from "../../packages/rules/declines";
import { MAX_OUTCOMES, OUTCOME_MESSAGES } from "../../src/services/outcomes";
import { BANK, CARD, otherMerchant, setup, tokenize, type TestContext } from "../support/app";
import { buildDeps, composeApp } from "../../src/entry/app";
import { memoryLogger } from "../../src/lib/logger";

let ctx: TestContext;
beforeEach(async () => {
  ctx = await setup();
});

const arm = (body: unknown, auth?: string | false) => ctx.call("POST", "/_sandbox/outcomes", { body, auth });
const pending = (auth?: string | false) => ctx.call("GET", "/_sandbox/outcomes", { auth });
const chargeOf = (paymentMethodId: string, headers: Record<string, string> = {}) =>
  ctx.call("POST", "/charge", { body: { payment_method_id: paymentMethodId, total: 11 }, headers });

describe("outcome sequences", () => {
  test("the next charges take the armed outcomes in order, then the payment method's own again", async () => {
    const pm = await tokenize(ctx);
    const armed = await arm({
      payment_method_id: pm.id,
      outcomes: ["insufficient_funds", "issuer_unavailable", "approve"],
    });
    expect(armed.status).toBe(200);
    expect(armed.body).toEqual({
      payment_method_id: pm.id,
      outcomes: ["insufficient_funds", "issuer_unavailable", "approve"],
    });
    const first = await chargeOf(pm.id);
    expect([first.status, first.body.decline_code, first.body.retryable]).toEqual([402, "insufficient_funds", false]);
    expect(first.body.message).toBe(DECLINE_REASONS.insufficient_funds.message);
    expect((await pending()).body.data).toEqual([
      { payment_method_id: pm.id, outcomes: ["issuer_unavailable", "approve"] },
    ]);
    const second = await chargeOf(pm.id);
    expect([second.status, second.body.decline_code, second.body.retryable]).toEqual([402, "issuer_unavailable", true]);
    expect((await chargeOf(pm.id)).status).toBe(200);
    expect((await pending()).body.data).toEqual([]);
    expect((await chargeOf(pm.id)).status).toBe(200);
  });

  test("a declining card can be made to approve, then declines again", async () => {
    const pm = await tokenize(ctx, { card_number: "4000000000009979" });
    await arm({ payment_method_id: pm.id, outcomes: ["approve"] });
    expect((await chargeOf(pm.id)).status).toBe(200);
    expect((await chargeOf(pm.id)).body.decline_code).toBe("stolen_card");
  });

  test("a bank account takes R01-R04", async () => {
    const pm = await tokenize(ctx, { ...BANK });
    expect((await arm({ payment_method_id: pm.id, outcomes: ["R02", "approve"] })).status).toBe(200);
    const returned = await chargeOf(pm.id);
    expect([returned.status, returned.body.decline_code, returned.body.message]).toEqual([
      402,
      "R02",
      DECLINE_REASONS.R02.message,
    ]);
    expect((await chargeOf(pm.id)).status).toBe(200);
  });

  test("the first attempt declines and the retry with a new Idempotency-Key approves; the key replays its answer", async () => {
    const pm = await tokenize(ctx);
    await arm({ payment_method_id: pm.id, outcomes: ["processing_error"] });
    const first = await chargeOf(pm.id, { "idempotency-key": "order-7-a" });
    expect([first.status, first.body.retryable]).toEqual([402, true]);
    const replay = await chargeOf(pm.id, { "idempotency-key": "order-7-a" });
    expect(replay.body.transaction.id).toBe(first.body.transaction.id);
    const retry = await chargeOf(pm.id, { "idempotency-key": "order-7-b" });
    expect(retry.status).toBe(200);
  });

  test("an invoice payment takes the sequence too: ATTEMPTED, then PAID on the retry", async () => {
    const pm = await tokenize(ctx);
    const invoice = await ctx.call("POST", "/invoice", {
      body: { customer_id: pm.customer_id, total: 15, meta: { subtotal: 15 } },
    });
    await arm({ payment_method_id: pm.id, outcomes: ["do_not_honor"] });
    const declined = await ctx.call("POST", `/invoice/${invoice.body.id}/pay`, { body: { payment_method_id: pm.id } });
    expect([declined.status, declined.body.decline_code, declined.body.invoice.status]).toEqual([
      402,
      "do_not_honor",
      "ATTEMPTED",
    ]);
    const paid = await ctx.call("POST", `/invoice/${invoice.body.id}/pay`, { body: { payment_method_id: pm.id } });
    expect([paid.status, paid.body.status]).toEqual([200, "PAID"]);
  });

  test("pay()'s routes take it too: the sequence follows the card, which pay() tokenizes anew each time", async () => {
    const armedCard = await tokenize(ctx);
    await arm({ payment_method_id: armedCard.id, outcomes: ["card_velocity_exceeded"] });
    const payOnce = async () => {
      const pm = await tokenize(ctx, {}, ctx.token);
      expect(pm.id).not.toBe(armedCard.id);
      const invoice = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
        body: {
          total: 12,
          firstname: "Ada",
          lastname: "Lovelace",
          email: "ada@example.com",
          phone: "5555550100",
          address_1: "1 Analytical Way",
          address_city: "London",
          address_state: "LN",
          address_zip: "32822",
          payment_method_id: pm.id,
        },
        auth: false,
      });
      expect([invoice.status, invoice.body.message]).toEqual([200, undefined]);
      return ctx.call("POST", `/webpayment/${ctx.token}/invoice/${invoice.body.id}/pay`, {
        body: { payment_method_id: pm.id },
        auth: false,
      });
    };
    const declined = await payOnce();
    expect([declined.status, declined.body.decline_code]).toEqual([402, "card_velocity_exceeded"]);
    expect((await payOnce()).status).toBe(200);
    // Another card of the merchant was never affected.
    const other = await tokenize(ctx, { card_number: "5555555555554444" });
    await arm({ payment_method_id: armedCard.id, outcomes: ["lost_card"] });
    expect((await chargeOf(other.id)).status).toBe(200);
  });

  test("arming again replaces the pending sequence; DELETE clears one payment method's or all", async () => {
    const a = await tokenize(ctx);
    const b = await tokenize(ctx, { card_number: "5555555555554444" });
    await arm({ payment_method_id: a.id, outcomes: ["lost_card", "lost_card"] });
    await arm({ payment_method_id: a.id, outcomes: ["pickup_card"] });
    await arm({ payment_method_id: b.id, outcomes: ["restricted_card", "approve"] });
    expect((await pending()).body.data).toEqual([
      { payment_method_id: a.id, outcomes: ["pickup_card"] },
      { payment_method_id: b.id, outcomes: ["restricted_card", "approve"] },
    ]);
    const one = await ctx.call("DELETE", `/_sandbox/outcomes?payment_method_id=${a.id}`);
    expect(one.body).toEqual({ cleared: 1 });
    expect((await chargeOf(a.id)).status).toBe(200);
    const all = await ctx.call("DELETE", "/_sandbox/outcomes");
    expect(all.body).toEqual({ cleared: 2 });
    expect((await chargeOf(b.id)).status).toBe(200);
  });

  test("sequences are the calling merchant's: another merchant sees none and cannot arm this one's payment method", async () => {
    const pm = await tokenize(ctx);
    await arm({ payment_method_id: pm.id, outcomes: ["suspected_fraud"] });
    const other = await otherMerchant(ctx);
    expect((await pending(other.api_key)).body.data).toEqual([]);
    const refused = await arm({ payment_method_id: pm.id, outcomes: ["approve"] }, other.api_key);
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ payment_method_id: [OUTCOME_MESSAGES.paymentMethodUnknown(pm.id)] });
    expect((await ctx.call("DELETE", "/_sandbox/outcomes", { auth: other.api_key })).body).toEqual({ cleared: 0 });
    expect((await chargeOf(pm.id)).body.decline_code).toBe("suspected_fraud");
  });

  test("the sequence lives in the database: a second app on it (another process's services) takes it", async () => {
    const pm = await tokenize(ctx);
    await arm({ payment_method_id: pm.id, outcomes: ["do_not_honor"] });
    // A second app on the same database, with services of its own: nothing is shared but the storage.
    const second = composeApp(
      await buildDeps({ db: ctx.deps.db, log: memoryLogger(), publicUrl: "http://localhost:7290" }),
    );
    const answer = await second.handle(
      new Request("http://localhost/charge", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${ctx.apiKey}` },
        body: JSON.stringify({ payment_method_id: pm.id, total: 4 }),
      }),
    );
    expect(answer.status).toBe(402);
    expect(((await answer.json()) as { decline_code: string }).decline_code).toBe("do_not_honor");
    expect((await pending()).body.data).toEqual([]);
  });

  test("a reset clears the merchant's sequences", async () => {
    const pm = await tokenize(ctx);
    await arm({ payment_method_id: pm.id, outcomes: ["lost_card"] });
    expect((await ctx.call("POST", "/_sandbox/reset", { auth: false })).status).toBe(200);
    expect((await pending()).body.data).toEqual([]);
  });

  test("bad input is a 422 naming it, and arms nothing", async () => {
    const pm = await tokenize(ctx);
    const bank = await tokenize(ctx, { ...BANK });
    const cases: [unknown, Record<string, string[]>][] = [
      [
        { payment_method_id: pm.id, outcomes: ["approve", "insufficent_funds"] },
        { "outcomes.1": [OUTCOME_MESSAGES.unknown("insufficent_funds")] },
      ],
      [{ payment_method_id: pm.id, outcomes: [] }, { outcomes: [OUTCOME_MESSAGES.outcomesRequired] }],
      [{ payment_method_id: pm.id, outcomes: "approve" }, { outcomes: [OUTCOME_MESSAGES.outcomesRequired] }],
      [
        { payment_method_id: pm.id, outcomes: Array(MAX_OUTCOMES + 1).fill("approve") },
        { outcomes: [OUTCOME_MESSAGES.tooMany(MAX_OUTCOMES + 1)] },
      ],
      [
        { payment_method_id: pm.id, outcomes: Array(50_000).fill("approve") },
        { outcomes: [OUTCOME_MESSAGES.tooMany(50_000)] },
      ],
      [{ outcomes: ["approve"] }, { payment_method_id: [OUTCOME_MESSAGES.paymentMethodRequired] }],
      [
        { payment_method_id: "nope", outcomes: ["approve"] },
        { payment_method_id: [OUTCOME_MESSAGES.paymentMethodUnknown("nope")] },
      ],
      [
        { payment_method_id: pm.id, outcomes: ["R01"] },
        { "outcomes.0": [OUTCOME_MESSAGES.wrongMethod("R01", "card")] },
      ],
      [
        { payment_method_id: bank.id, outcomes: ["lost_card"] },
        { "outcomes.0": [OUTCOME_MESSAGES.wrongMethod("lost_card", "bank")] },
      ],
      [{ payment_method_id: pm.id, outcomes: [7] }, { "outcomes.0": [OUTCOME_MESSAGES.unknown(7)] }],
    ];
    for (const [body, errors] of cases) {
      const res = await arm(body);
      expect([JSON.stringify(body).slice(0, 80), res.status]).toEqual([JSON.stringify(body).slice(0, 80), 422]);
      expect(res.body).toMatchObject({ code: "validation_error", errors });
    }
    expect((await pending()).body.data).toEqual([]);
    expect((await chargeOf(pm.id)).status).toBe(200);
    expect(CARD.card_number).toBe("4111111111111111");
  });
});
