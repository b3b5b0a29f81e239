import { beforeAll, describe, expect, test } from "bun:test";
import { DECLINE_CODES, DECLINE_REASONS } from "../../packages/rules/declines";
import { DISPUTE_REASONS, TEST_BANK, TEST_CARDS } from "../../packages/rules/test-data";
import { detectBrand, isCardNumberValid } from "../../packages/rules/card-rules";
import { BANK, CARD, setup, tokenize, type TestContext } from "../support/app";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await setup();
});

const declining = TEST_CARDS.filter((card) => card.outcome !== "approve");

describe("decline reasons", () => {
  test("every issuer reason has a Visa, a Mastercard and an Amex test card, each Luhn-valid", () => {
    for (const code of DECLINE_CODES) {
      if (DECLINE_REASONS[code].method === "bank" || code === "incorrect_zip" || code === "incorrect_address") continue;
      const brands = TEST_CARDS.filter((card) => card.outcome === code).map((card) => card.brand);
      if (code === "decline") expect(brands.length).toBeGreaterThanOrEqual(6);
      else expect(brands.sort()).toEqual(["amex", "mastercard", "visa"]);
    }
    for (const card of TEST_CARDS) {
      expect([card.number, isCardNumberValid(card.number), detectBrand(card.number)]).toEqual([
        card.number,
        true,
        card.brand,
      ]);
    }
    expect(new Set(TEST_CARDS.map((card) => card.number)).size).toBe(TEST_CARDS.length);
  });

  test("each declining card answers 402 with its code, its message and whether to retry, and keeps them on the record", async () => {
    expect(declining.length).toBeGreaterThan(40);
    for (const card of declining) {
      const pm = await tokenize(ctx, { card_number: card.number, card_cvv: card.brand === "amex" ? "1234" : "123" });
      const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 12 } });
      const reason = DECLINE_REASONS[card.outcome as Exclude<typeof card.outcome, "approve">];
      expect([card.number, res.status]).toEqual([card.number, 402]);
      expect(res.body).toMatchObject({
        code: "payment_declined",
        message: reason.message,
        decline_code: card.outcome,
        retryable: reason.retryable,
      });
      expect(res.body.transaction).toMatchObject({
        success: false,
        decline_code: card.outcome,
        message: reason.message,
      });
      const stored = await ctx.call("GET", `/transaction/${res.body.transaction.id}`);
      expect(stored.body.decline_code).toBe(card.outcome);
    }
  });

  test("docs/testing-failures.md lists every test card, account and decline code", async () => {
    const doc = await Bun.file(new URL("../../docs/testing-failures.md", import.meta.url)).text();
    for (const card of declining) expect(doc).toContain(`\`${card.number}\``);
    for (const entry of TEST_BANK.accounts) expect(doc).toContain(`\`${entry.account}\``);
    for (const code of DECLINE_CODES) expect(doc).toContain(`\`${code}\``);
  });

  test("only issuer_unavailable and processing_error are retryable", () => {
    const retryable = DECLINE_CODES.filter((code) => DECLINE_REASONS[code].retryable);
    expect(retryable.sort()).toEqual(["issuer_unavailable", "processing_error"]);
  });

  test("the R01-R04 test accounts are returned with their ACH code; the approving one still approves", async () => {
    for (const entry of TEST_BANK.accounts) {
      const pm = await tokenize(ctx, { ...BANK, bank_account: entry.account });
      const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 30 } });
      if (entry.outcome === "approve") {
        expect(res.status).toBe(200);
        continue;
      }
      const reason = DECLINE_REASONS[entry.outcome];
      expect([entry.account, res.status]).toEqual([entry.account, 402]);
      expect(res.body).toMatchObject({ decline_code: entry.outcome, message: reason.message, retryable: false });
      expect(res.body.transaction.decline_code).toBe(entry.outcome);
    }
  });

  test("an invoice payment's 402 carries the decline code too", async () => {
    const pm = await tokenize(ctx, { card_number: "4000000000009979" });
    const invoice = await ctx.call("POST", "/invoice", {
      body: { customer_id: pm.customer_id, total: 15, meta: { subtotal: 15 } },
    });
    expect(invoice.status).toBe(200);
    const res = await ctx.call("POST", `/invoice/${invoice.body.id}/pay`, { body: { payment_method_id: pm.id } });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      code: "payment_declined",
      decline_code: "stolen_card",
      retryable: false,
      message: DECLINE_REASONS.stolen_card.message,
    });
  });

  test("GET /_sandbox/test-cards lists every card and account with its outcome and every reason", async () => {
    const res = await ctx.call("GET", "/_sandbox/test-cards", { auth: false });
    expect(res.status).toBe(200);
    expect(res.body.cards).toHaveLength(TEST_CARDS.length);
    const lost = res.body.cards.find((card: { number: string }) => card.number === "4000000000009987");
    expect(lost).toEqual({
      number: "4000000000009987",
      brand: "visa",
      funding: "credit",
      outcome: "lost_card",
      description: "Visa, lost card",
      decline_code: "lost_card",
      message: DECLINE_REASONS.lost_card.message,
      retryable: false,
      update: null,
      dispute: null,
    });
    const disputed = res.body.cards.find((card: { number: string }) => card.number === "4000000000000259");
    expect(disputed).toMatchObject({
      brand: "visa",
      outcome: "approve",
      dispute: { reason: "FRAUD", reason_description: DISPUTE_REASONS.FRAUD, days: 3 },
    });
    expect(res.body.cards.filter((card: { dispute: unknown }) => card.dispute).length).toBe(5);
    expect(res.body.cards[0]).toMatchObject({ number: CARD.card_number, outcome: "approve", decline_code: null });
    expect(res.body.bank).toMatchObject({ routing: TEST_BANK.routing, approvingAccount: TEST_BANK.approvingAccount });
    expect(res.body.bank.accounts.map((entry: { outcome: string }) => entry.outcome)).toEqual([
      "approve",
      "R01",
      "R02",
      "R03",
      "R04",
      // The accounts returned after settlement approve at charge (tests/http/ach-returns.test.ts).
      ...Array(7).fill("approve"),
    ]);
    expect(res.body.reasons.map((reason: { code: string }) => reason.code)).toEqual([...DECLINE_CODES]);
  });
});
