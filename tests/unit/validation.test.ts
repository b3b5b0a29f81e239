import { describe, expect, test } from "bun:test";
import { MESSAGES } from "../../packages/rules/messages";
import { parseTotalCents, validateExtraDetails } from "../../packages/rules/validation";

describe("shared validation rules", () => {
  test("a field two rules require is reported once", () => {
    const errors = validateExtraDetails(
      {
        method: "bank",
        firstname: "A",
        lastname: "B",
        phone: "5555550100",
        address_city: "X",
        address_state: "FL",
        total: 1,
      },
      { avs_zip: false, avs_street: true },
    );
    expect(errors.address_1).toEqual([MESSAGES.required("address_1")]);
  });

  test("totals parse to exact cents without float drift", () => {
    expect(parseTotalCents(0.29)).toEqual({ cents: 29 });
    expect(parseTotalCents(1.1)).toEqual({ cents: 110 });
    expect(parseTotalCents("19.99")).toEqual({ cents: 1999 });
    expect(parseTotalCents(" 5 ")).toEqual({ cents: 500 });
    expect(parseTotalCents(1e-7)).toEqual({ error: MESSAGES.totalDecimals });
    expect(parseTotalCents(Number.NaN)).toEqual({ error: MESSAGES.totalNumeric });
    expect(parseTotalCents("1e3")).toEqual({ error: MESSAGES.totalNumeric });
  });
});
