import { describe, expect, test } from "bun:test";
import {
  cardGroups,
  cvvLength,
  detectBrand,
  isCardNumberComplete,
  isCardNumberValid,
  isCvvValid,
  isValidAbaRouting,
  luhnValid,
  maskedFormat,
  prettyFormat,
} from "../../packages/rules/card-rules";
import { TEST_CARDS } from "../../packages/rules/test-data";

describe("card rules", () => {
  test("every test card is detected as its brand, passes Luhn and is complete", () => {
    for (const card of TEST_CARDS) {
      expect(detectBrand(card.number)).toBe(card.brand);
      expect(luhnValid(card.number)).toBe(true);
      expect(isCardNumberValid(card.number)).toBe(true);
    }
  });

  test("brands are told from their first digits while typing", () => {
    expect(detectBrand("4")).toBe("visa");
    expect(detectBrand("51")).toBe("mastercard");
    expect(detectBrand("2221")).toBe("mastercard");
    expect(detectBrand("34")).toBe("amex");
    expect(detectBrand("37")).toBe("amex");
    expect(detectBrand("6011")).toBe("discover");
    expect(detectBrand("65")).toBe("discover");
    expect(detectBrand("3530")).toBe("jcb");
    expect(detectBrand("36")).toBe("diners");
    expect(detectBrand("305")).toBe("diners");
    expect(detectBrand("9")).toBeNull();
    expect(detectBrand("")).toBeNull();
  });

  test("a number with one digit changed fails Luhn", () => {
    expect(luhnValid("4111111111111112")).toBe(false);
    expect(isCardNumberValid("4111111111111112")).toBe(false);
  });

  test("a number is complete only at one of its brand's lengths", () => {
    expect(isCardNumberComplete("411111111111111")).toBe(false);
    expect(isCardNumberComplete("4111111111111111")).toBe(true);
    expect(isCardNumberComplete("37828224631000")).toBe(false);
    expect(isCardNumberComplete("378282246310005")).toBe(true);
    expect(isCardNumberComplete("36227206271667")).toBe(true);
  });

  test("the CVV has 4 digits for Amex and 3 for the others", () => {
    expect(cvvLength("amex")).toBe(4);
    for (const brand of ["visa", "mastercard", "discover", "jcb", "diners"] as const) expect(cvvLength(brand)).toBe(3);
    expect(isCvvValid("1234", "amex")).toBe(true);
    expect(isCvvValid("123", "amex")).toBe(false);
    expect(isCvvValid("123", "visa")).toBe(true);
    expect(isCvvValid("12a", "visa")).toBe(false);
  });

  test("prettyFormat groups 4-4-4-4, Amex 4-6-5 and Diners 4-6-4", () => {
    expect(prettyFormat("4111111111111111")).toBe("4111 1111 1111 1111");
    expect(prettyFormat("378282246310005")).toBe("3782 822463 10005");
    expect(prettyFormat("36227206271667")).toBe("3622 720627 1667");
    expect(prettyFormat("41111")).toBe("4111 1");
    expect(cardGroups("amex")).toEqual([4, 6, 5]);
  });

  test("maskedFormat hides all but the last four digits", () => {
    expect(maskedFormat("4111111111111111")).toBe("••••••••••••1111");
    expect(maskedFormat("123")).toBe("123");
  });

  test("ABA routing numbers are 9 digits with a valid checksum", () => {
    expect(isValidAbaRouting("021000021")).toBe(true);
    expect(isValidAbaRouting("011000015")).toBe(true);
    expect(isValidAbaRouting("021000022")).toBe(false);
    expect(isValidAbaRouting("02100002")).toBe(false);
    expect(isValidAbaRouting("02100002a")).toBe(false);
  });
});
