import { describe, expect, test } from "bun:test";
import { authorize, BANK_DECLINE_MESSAGE, DECLINE_MESSAGES } from "../../src/domain/gateway";
import { bankOutcome, findTestCard, TEST_CARDS } from "../../packages/rules/test-data";

describe("simulated processor", () => {
  test("each brand has one approving and one declining card credit card (besides the cards updated or disputed later)", () => {
    for (const brand of ["visa", "mastercard", "amex", "discover", "jcb", "diners"]) {
      const outcomes = TEST_CARDS.filter(
        (c) =>
          c.brand === brand &&
          !c.update &&
          !c.dispute &&
          c.funding === "credit" &&
          ["approve", "decline"].includes(c.outcome),
      ).map((c) => c.outcome);
      expect(outcomes.sort()).toEqual(["approve", "decline"]);
    }
  });

  test("scenario cards carry their outcomes", () => {
    expect(findTestCard("4000000000009995")?.outcome).toBe("insufficient_funds");
    expect(findTestCard("4000000000000069")?.outcome).toBe("expired_card");
    expect(findTestCard("4000000000000127")?.outcome).toBe("incorrect_cvv");
    expect(findTestCard("4000000000000119")?.outcome).toBe("processing_error");
    expect(findTestCard("4242424242424242")).toBeUndefined();
  });

  test("an approval has an auth id and an issuer code; a decline has neither and says why", () => {
    const ok = authorize("approve", "card");
    expect(ok.success).toBe(true);
    expect(ok.authId).toMatch(/^[0-9a-f-]{36}$/);
    expect(ok.issuerAuthCode).toMatch(/^\d{6}$/);
    expect(ok.message).toBeNull();
    const no = authorize("insufficient_funds", "card");
    expect(no).toMatchObject({ success: false, authId: null, issuerAuthCode: null, declineCode: "insufficient_funds" });
    expect(no.message).toBe(DECLINE_MESSAGES.insufficient_funds);
    expect(authorize("processing_error", "card").retryable).toBe(true);
    expect(authorize("decline", "card").retryable).toBe(false);
  });

  test("the test bank account approves, other accounts at its routing decline, other routings are unknown", () => {
    expect(bankOutcome("021000021", "9876543210")).toBe("approve");
    expect(bankOutcome("021000021", "1111111111")).toBe("decline");
    expect(bankOutcome("011000015", "9876543210")).toBeUndefined();
    expect(authorize("decline", "bank").message).toBe(BANK_DECLINE_MESSAGE);
  });
});
