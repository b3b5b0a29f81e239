import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { typingsOf } from "../../src/http/assets/build";
import { browserAssets } from "../../src/http/assets/index";
import {
  caretAfterDigits,
  cvvState,
  displayNumber,
  formEvent,
  formMessage,
  liveCardType,
  numberState,
  sanitizeCvv,
  sanitizeNumber,
} from "../../packages/payjs/card-form";
import { API_ERROR_STATUS } from "../../packages/rules/codes";
import { errorFromResponse, LIBRARY_ERROR_CODES, LIBRARY_MESSAGES, PayJsError } from "../../packages/payjs/errors";
import { MESSAGES } from "../../packages/rules/messages";
import { decodeFrameConfig, encodeFrameConfig, isTagged, tag } from "../../packages/payjs/protocol";
import { sandboxBaseFromScript } from "../../packages/payjs/payjs";
import { validateExtraDetails, type AvsSettings } from "../../packages/rules/validation";
import { TEST_CARDS } from "../../packages/rules/test-data";

describe("card number formats", () => {
  test("prettyFormat groups 4-4-4-4, Amex 4-6-5 and Diners 4-6-4", () => {
    expect(displayNumber("4111111111111111", "prettyFormat", false)).toBe("4111 1111 1111 1111");
    expect(displayNumber("378282246310005", "prettyFormat", false)).toBe("3782 822463 10005");
    expect(displayNumber("36227206271667", "prettyFormat", false)).toBe("3622 720627 1667");
    expect(displayNumber("5555555555554444", "prettyFormat", true)).toBe("5555 5555 5555 4444");
  });

  test("prettyFormat groups a partial number as it is typed", () => {
    expect(displayNumber("41111", "prettyFormat", true)).toBe("4111 1");
    expect(displayNumber("3782822", "prettyFormat", true)).toBe("3782 822");
  });

  test("plainFormat shows the digits only", () => {
    expect(displayNumber("4111111111111111", "plainFormat", false)).toBe("4111111111111111");
  });

  test("maskedFormat shows all but the last four as • when not focused, the digits while focused", () => {
    expect(displayNumber("4111111111111111", "maskedFormat", false)).toBe("••••••••••••1111");
    expect(displayNumber("378282246310005", "maskedFormat", false)).toBe("•••••••••••0005");
    expect(displayNumber("4111111111111111", "maskedFormat", true)).toBe("4111111111111111");
    expect(displayNumber("411", "maskedFormat", false)).toBe("411");
  });

  test("the caret stays after the same digit whatever spaces the format inserts", () => {
    expect(caretAfterDigits("4111 1111 1111 1111", 4)).toBe(4);
    expect(caretAfterDigits("4111 1111 1111 1111", 5)).toBe(6);
    expect(caretAfterDigits("4111 1111 1111 1111", 16)).toBe(19);
    expect(caretAfterDigits("4111 1", 0)).toBe(0);
  });

  test("typed or pasted text keeps only digits, cut at the brand's longest length", () => {
    expect(sanitizeNumber("4111-1111 1111.1111")).toBe("4111111111111111");
    expect(sanitizeNumber("3782822463100059999")).toBe("378282246310005");
    expect(sanitizeNumber("4111111111111111111999")).toHaveLength(19);
    expect(sanitizeNumber("abc")).toBe("");
  });

  // Changed on purpose (issue 13): the CVV used to be cut to the brand the CVV frame had seen,
  // so setTestPan(amex); setTestCvv("1234") without awaits kept "123" and failed.
  test("the CVV keeps at most 4 digits whatever the brand; the number frame judges the length", () => {
    expect(sanitizeCvv("12a34")).toBe("1234");
    expect(sanitizeCvv("12345")).toBe("1234");
    expect(sanitizeCvv("1 2 3")).toBe("123");
  });
});

describe("field states", () => {
  test("every test card is complete and valid for its brand, and its brand's CVV length makes the form complete", () => {
    for (const card of TEST_CARDS) {
      const cvv = card.brand === "amex" ? "1234" : "123";
      const message = formMessage(card.number, cvv);
      expect(message).toEqual({
        complete: true,
        card_type: card.brand,
        number: { empty: false, complete: true, valid: true },
        cvv: { empty: false, complete: true, valid: true },
        cardType: liveCardType(card.brand),
        validNumber: true,
        validCvv: true,
      });
    }
  });

  test("a number of the right length that fails Luhn is complete but not valid", () => {
    expect(numberState("4111111111111112")).toEqual({ empty: false, complete: true, valid: false });
  });

  test("a partial number is neither complete nor valid; an empty one is empty", () => {
    expect(numberState("411111")).toEqual({ empty: false, complete: false, valid: false });
    expect(numberState("")).toEqual({ empty: true, complete: false, valid: false });
  });

  test("the CVV length follows the brand: 4 digits for Amex, 3 for the others", () => {
    expect(cvvState("1234", "amex").valid).toBe(true);
    expect(cvvState("123", "amex")).toEqual({ empty: false, complete: false, valid: false });
    expect(cvvState("123", "visa").valid).toBe(true);
    expect(cvvState("1234", "visa").valid).toBe(false);
    expect(formMessage("378282246310005", "123").complete).toBe(false);
  });
});

describe("card form events", () => {
  const complete = formMessage("4111111111111111", "123");
  const oneDigitShort = formMessage("411111111111111", "123");

  test("card_form_complete fires when the form becomes complete and valid", () => {
    expect(formEvent(oneDigitShort, complete)).toBe("card_form_complete");
  });

  test("card_form_uncomplete fires when a change leaves the form not complete", () => {
    expect(formEvent(complete, oneDigitShort)).toBe("card_form_uncomplete");
    expect(formEvent(formMessage("", ""), formMessage("4", ""))).toBe("card_form_uncomplete");
    expect(formEvent(formMessage("4111111111111111", ""), formMessage("4111111111111111", "1"))).toBe(
      "card_form_uncomplete",
    );
  });

  test("no event fires when the state did not change or the form stays complete", () => {
    expect(formEvent(formMessage("41", ""), formMessage("411", ""))).toBeNull();
    // Another complete card: the form stays complete, which card_form_complete already said.
    expect(formEvent(complete, formMessage("5555555555554444", "123"))).toBeNull();
    expect(formEvent(complete, formMessage("4111111111111111", "123"))).toBeNull();
    expect(formEvent(null, formMessage("", ""))).toBeNull();
  });

  test("the message says which field is incomplete and carries the brand", () => {
    expect(formMessage("37828224631000", "1234")).toEqual({
      complete: false,
      card_type: "amex",
      number: { empty: false, complete: false, valid: false },
      cvv: { empty: false, complete: true, valid: true },
      cardType: "american_express",
      validNumber: false,
      validCvv: true,
    });
  });

  test("cardType names each brand as the live library does; validNumber and validCvv mirror the field states", () => {
    expect(
      (["visa", "mastercard", "amex", "discover", "diners", "jcb"] as const).map((brand) => liveCardType(brand)),
    ).toEqual(["visa", "master", "american_express", "discover", "diners_club", "jcb"]);
    expect(liveCardType(null)).toBeNull();
    expect(formMessage("", "")).toMatchObject({ cardType: null, validNumber: false, validCvv: false });
    expect(formMessage("4111111111111111", "12")).toMatchObject({
      cardType: "visa",
      validNumber: true,
      validCvv: false,
    });
  });
});

/** A pay() card payment that passes every rule; each case below breaks one. */
const VALID_CARD = {
  method: "card",
  month: "12",
  year: String(new Date().getUTCFullYear() + 3),
  total: "10.50",
  firstname: "Ada",
  lastname: "Lovelace",
  email: "ada@example.com",
  phone: "5555550100",
  address_1: "1 Analytical Way",
  address_city: "Orlando",
  address_state: "FL",
  address_zip: "32822",
};
const VALID_BANK = {
  ...VALID_CARD,
  method: "bank",
  month: undefined,
  year: undefined,
  person_name: "Ada Lovelace",
  bank_account: "9876543210",
  bank_routing: "021000021",
  bank_type: "savings",
  bank_holder_type: "personal",
};
const NO_AVS: AvsSettings = { avs_zip: false, avs_street: false };
const now = new Date();
const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
const long = (n: number) => "x".repeat(n);

describe("client validation: one case per rule of docs/contract.md §7", () => {
  test("valid card and bank payments pass", () => {
    expect(validateExtraDetails(VALID_CARD, NO_AVS)).toEqual({});
    expect(validateExtraDetails(VALID_BANK, NO_AVS)).toEqual({});
  });

  const cases: [string, Record<string, unknown>, string, string, AvsSettings?][] = [
    ["firstname is at most 50 characters", { firstname: long(51) }, "firstname", MESSAGES.maxLength("firstname", 50)],
    ["lastname is at most 50 characters", { lastname: long(51) }, "lastname", MESSAGES.maxLength("lastname", 50)],
    ["firstname is required", { firstname: "" }, "firstname", MESSAGES.required("firstname")],
    ["lastname is required", { lastname: undefined }, "lastname", MESSAGES.required("lastname")],
    ["phone is at least 10 characters", { phone: "555" }, "phone", MESSAGES.minLength("phone", 10)],
    ["email must be valid", { email: "ada@" }, "email", MESSAGES.email],
    ["address_1 is at most 255", { address_1: long(256) }, "address_1", MESSAGES.maxLength("address_1", 255)],
    ["address_2 is at most 255", { address_2: long(256) }, "address_2", MESSAGES.maxLength("address_2", 255)],
    [
      "address_city is at most 255",
      { address_city: long(256) },
      "address_city",
      MESSAGES.maxLength("address_city", 255),
    ],
    ["address_state is at most 2", { address_state: "FLA" }, "address_state", MESSAGES.maxLength("address_state", 2)],
    [
      "address_country is exactly 3",
      { address_country: "US" },
      "address_country",
      MESSAGES.exactLength("address_country", 3),
    ],
    ["phone is required without customer_id", { phone: undefined }, "phone", MESSAGES.required("phone")],
    ["address_1 is required without customer_id", { address_1: "" }, "address_1", MESSAGES.required("address_1")],
    [
      "address_city is required without customer_id",
      { address_city: undefined },
      "address_city",
      MESSAGES.required("address_city"),
    ],
    [
      "address_state is required without customer_id",
      { address_state: undefined },
      "address_state",
      MESSAGES.required("address_state"),
    ],
    [
      "address_zip is required when the merchant has avs_zip",
      { address_zip: undefined },
      "address_zip",
      MESSAGES.required("address_zip"),
      { avs_zip: true, avs_street: false },
    ],
    [
      "address_1 is required when the merchant has avs_street, even with a customer_id",
      { customer_id: "c1", address_1: undefined },
      "address_1",
      MESSAGES.required("address_1"),
      { avs_zip: false, avs_street: true },
    ],
    ["method is card or bank", { method: "cash" }, "method", MESSAGES.oneOf("method", ["card", "bank"])],
    ["total is greater than 0", { total: 0 }, "total", MESSAGES.totalPositive],
    ["total has at most two decimals", { total: "10.505" }, "total", MESSAGES.totalDecimals],
    ["month is two digits 01-12", { month: "13" }, "month", MESSAGES.month],
    ["month must have two digits", { month: "1" }, "month", MESSAGES.month],
    ["year is four digits", { year: "30" }, "year", MESSAGES.year],
    [
      "the card is not expired",
      {
        month: String(lastMonth.getUTCMonth() + 1).padStart(2, "0"),
        year: String(lastMonth.getUTCFullYear()),
      },
      "year",
      MESSAGES.cardExpired,
    ],
    [
      "custom field id is required",
      { meta: { invoice_merchant_custom_fields: [{ name: "PO", value: "1" }] } },
      "meta.invoice_merchant_custom_fields.0.id",
      MESSAGES.customFieldId,
    ],
    [
      "custom field ids are unique",
      { meta: { invoice_merchant_custom_fields: [{ id: "po" }, { id: "po" }] } },
      "meta.invoice_merchant_custom_fields.1.id",
      MESSAGES.customFieldUnique("po"),
    ],
    [
      "custom field type is text",
      { meta: { invoice_merchant_custom_fields: [{ id: "po", type: "number" }] } },
      "meta.invoice_merchant_custom_fields.0.type",
      MESSAGES.customFieldType,
    ],
  ];
  for (const [rule, change, field, message, settings] of cases) {
    test(`card: ${rule}`, () => {
      const errors = validateExtraDetails({ ...VALID_CARD, ...change }, settings ?? NO_AVS);
      expect(errors[field]).toEqual([message]);
    });
  }

  const bankCases: [string, Record<string, unknown>, string, string][] = [
    ["person_name is at most 50", { person_name: long(51) }, "person_name", MESSAGES.maxLength("person_name", 50)],
    ["person_name is required", { person_name: "" }, "person_name", MESSAGES.required("person_name")],
    [
      "bank_type is checking or savings",
      { bank_type: "credit" },
      "bank_type",
      MESSAGES.oneOf("bank_type", ["checking", "savings"]),
    ],
    [
      "bank_holder_type is personal or business",
      { bank_holder_type: "joint" },
      "bank_holder_type",
      MESSAGES.oneOf("bank_holder_type", ["personal", "business"]),
    ],
    ["bank_routing is 9 digits", { bank_routing: "02100002" }, "bank_routing", MESSAGES.routingDigits],
    ["bank_routing has a valid ABA checksum", { bank_routing: "021000022" }, "bank_routing", MESSAGES.routingChecksum],
    ["bank_account is digits", { bank_account: "98765-43210" }, "bank_account", MESSAGES.accountDigits],
  ];
  for (const [rule, change, field, message] of bankCases) {
    test(`bank: ${rule}`, () => {
      expect(validateExtraDetails({ ...VALID_BANK, ...change }, NO_AVS)[field]).toEqual([message]);
    });
  }

  test("with a customer_id the customer fields are ignored; only the names stay required", () => {
    const errors = validateExtraDetails(
      { ...VALID_CARD, customer_id: "c1", phone: "1", address_1: undefined, address_state: "FLORIDA" },
      NO_AVS,
    );
    expect(errors).toEqual({});
  });
});

describe("PayJsError", () => {
  test("has the documented shape: name, code, message, and fields or invoice when given", () => {
    const error = new PayJsError("validation_error", "The phone must be at least 10 characters.", {
      fields: { phone: ["The phone must be at least 10 characters."] },
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("PayJsError");
    expect(error.code).toBe("validation_error");
    expect(error.fields).toEqual({ phone: ["The phone must be at least 10 characters."] });
    expect("invoice" in error).toBe(false);
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: "PayJsError",
      code: "validation_error",
      message: "The phone must be at least 10 characters.",
      fields: { phone: ["The phone must be at least 10 characters."] },
    });
  });

  test("a library failure carries only name, code and message", () => {
    const error = new PayJsError("missing_container", LIBRARY_MESSAGES.missingContainer("card-number"));
    expect(error.message).toBe('No element with id "card-number" to insert the card frame into.');
    expect(error.fields).toBeUndefined();
    expect(error.invoice).toBeUndefined();
  });

  test("a decline answer becomes payment_declined carrying the invoice", () => {
    const invoice = { id: "i1", status: "ATTEMPTED", payment_attempt_failed: true };
    const error = errorFromResponse(402, { message: "Card declined.", code: "payment_declined", invoice });
    expect(error.code).toBe("payment_declined");
    expect(error.message).toBe("Card declined.");
    expect(error.invoice as unknown).toEqual(invoice);
  });

  test("a decline answer's reason becomes declineCode and retryable", () => {
    const invoice = { id: "i1", status: "ATTEMPTED", payment_attempt_failed: true };
    const body = {
      message: "m",
      code: "payment_declined",
      decline_code: "issuer_unavailable",
      retryable: true,
      invoice,
    };
    const error = errorFromResponse(402, body);
    expect([error.declineCode, error.retryable]).toEqual(["issuer_unavailable", true]);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ declineCode: "issuer_unavailable", retryable: true });
    const stolen = errorFromResponse(402, { ...body, decline_code: "stolen_card", retryable: false });
    expect([stolen.declineCode, stolen.retryable]).toEqual(["stolen_card", false]);
    expect(errorFromResponse(422, { message: "m", code: "validation_error" }).declineCode).toBeUndefined();
  });

  test("a decline's error also reads as the invoice (the live library rejects with it), without changing its shape", () => {
    const invoice = {
      id: "i1",
      status: "ATTEMPTED",
      payment_attempt_failed: true,
      payment_attempt_message: "Do not honor",
      child_transactions: [{ message: "Do not honor" }],
    };
    const error = errorFromResponse(402, { message: "Card declined.", code: "payment_declined", invoice });
    expect(error.child_transactions?.[0]?.message).toBe("Do not honor");
    expect(error.payment_attempt_message).toBe("Do not honor");
    expect(error.status).toBe("ATTEMPTED");
    // The error's own members win, and only the documented ones are enumerable.
    expect(error.message).toBe("Card declined.");
    expect(Object.keys(error).sort()).toEqual(["code", "invoice", "name"]);
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: "PayJsError",
      code: "payment_declined",
      message: "Card declined.",
      invoice,
    });
  });

  test("a 422 answer becomes validation_error with the API's errors as fields", () => {
    const errors = { card_number: [MESSAGES.cardNumberNotTest] };
    const error = errorFromResponse(422, { message: MESSAGES.cardNumberNotTest, code: "validation_error", errors });
    expect(error.code).toBe("validation_error");
    expect(error.fields).toEqual(errors);
  });

  test("a 401 from a public route means the token is unknown", () => {
    const error = errorFromResponse(401, { message: "Unauthenticated.", code: "unauthenticated" });
    expect(error.code).toBe("unknown_token");
  });

  test("an answer that is not the API's envelope is a network_error; an unknown code is an internal_error", () => {
    expect(errorFromResponse(502, "<html>Bad gateway</html>").code).toBe("network_error");
    expect(errorFromResponse(500, null).code).toBe("network_error");
    expect(errorFromResponse(500, { message: "?", code: "teapot" }).code).toBe("internal_error");
  });

  test("every API code passes through unchanged", () => {
    for (const code of Object.keys(API_ERROR_STATUS)) {
      if (code === "unauthenticated") continue;
      expect(
        errorFromResponse(API_ERROR_STATUS[code as keyof typeof API_ERROR_STATUS], { message: "m", code }).code,
      ).toBe(code as never);
    }
  });

  test("the library's codes are exactly the documented ones", () => {
    expect([...LIBRARY_ERROR_CODES].sort()).toEqual([
      "form_not_ready",
      "frame_timeout",
      "missing_container",
      "network_error",
      "payment_in_progress",
      "unknown_token",
    ]);
  });
});

describe("message protocol", () => {
  test("a message is accepted only with the library tag and the receiver's instance id", () => {
    const message = tag("instance-a", { type: "ready", field: "number" });
    expect(isTagged(message, "instance-a")).toBe(true);
    expect(isTagged(message, "instance-b")).toBe(false);
    expect(isTagged({ ...message, library: "other" }, "instance-a")).toBe(false);
    expect(isTagged({ library: "payjs", instance: "instance-a" }, "instance-a")).toBe(false);
    expect(isTagged("payjs", "instance-a")).toBe(false);
  });

  test("the frame configuration survives the URL fragment and a malformed one is refused", () => {
    const config = {
      instance: "i",
      field: "number" as const,
      token: "t",
      origin: "http://shop.test",
      placeholder: "Card # & more",
      style: { fontSize: "16px" },
      format: "maskedFormat" as const,
    };
    expect(decodeFrameConfig(encodeFrameConfig(config))).toEqual(config);
    expect(decodeFrameConfig("#%7Bbroken")).toBeNull();
    expect(decodeFrameConfig(encodeFrameConfig({ ...config, field: "pin" as never }))).toBeNull();
  });

  test("the sandbox base comes from the script's own URL", () => {
    expect(sandboxBaseFromScript("http://localhost:7290/payjs.js", "http://shop.test/")).toBe("http://localhost:7290");
    expect(sandboxBaseFromScript("https://gw.test/sandbox/payjs.js?v=2", "http://shop.test/")).toBe(
      "https://gw.test/sandbox",
    );
    expect(sandboxBaseFromScript(null, "http://shop.test/")).toBe("http://shop.test/");
  });
});

describe("bundle and typings", () => {
  test("payjs.js and the frame script build from packages/payjs and packages/rules, minified, ≤ 13 KB gzipped together", async () => {
    const assets = browserAssets({ dev: false });
    const [library, frame] = await Promise.all([assets.get("payjs.js"), assets.get("frame.js")]);
    const text = new TextDecoder().decode(library.body);
    expect(text).toContain("PayJs");
    expect(text).toContain(MESSAGES.totalPositive);
    expect(text.split("\n").length).toBeLessThan(5);
    expect(library.gzip.byteLength + frame.gzip.byteLength).toBeLessThanOrEqual(13 * 1024);
  }, 30_000);

  test("the served typings stand alone and type-check an integrator's code, rejecting an unknown event", async () => {
    const [types, records, codes] = await Promise.all([
      Bun.file("packages/payjs/types.ts").text(),
      Bun.file("packages/payjs/records.ts").text(),
      Bun.file("packages/rules/codes.ts").text(),
    ]);
    const dir = mkdtempSync(join(tmpdir(), "payjs-dts-"));
    writeFileSync(join(dir, "payjs.d.ts"), typingsOf(types, records, codes));
    writeFileSync(
      join(dir, "good.ts"),
      `import type { Invoice, PayJsError, PaymentMethod } from "./payjs";
const payjs = new window.PayJs("token", { number: { id: "n", format: "maskedFormat" }, cvv: { id: "c" } });
payjs.on("card_form_complete", (m) => m.cvv.valid && m.card_type === "amex");
payjs.showCardForm().then((h) => h.setTestPan("4111111111111111"));
const paid: Promise<Invoice> = payjs.pay({ method: "bank", total: 1, firstname: "A", lastname: "B", person_name: "A B",
  bank_account: "1", bank_routing: "021000021", bank_type: "savings", bank_holder_type: "personal" });
paid.catch((e: PayJsError) => e.code === "frame_timeout" || e.code === "payment_declined");
paid.catch((e: PayJsError) => e.invoice?.payment_attempt_failed === true && e.invoice.payment_attempt_message.length > 0);
paid.catch((e: PayJsError) => e.child_transactions?.[0]?.message ?? e.payment_attempt_message);

// What the specification's table and live pages write: string styles, every type, card_form_incomplete, tokenize().
const live = new window.PayJs("token", {
  number: { id: "card-number", placeholder: "Card number", style: "width: 100%; height: 2em; font-size: 14px", type: "number", format: "prettyFormat" },
  cvv: { id: "card-cvv", placeholder: "CVV", style: { fontSize: "14px" }, type: "password" },
});
live.on("card_form_incomplete", (m) => m.validNumber || m.validCvv || m.cardType === "american_express");
live.on("card_form_uncomplete", (m) => m.cardType === "master" || m.cardType === null);
live.showCardForm().then((h) => {
  void h.setTestPan("378282246310005");
  void h.setTestCvv("1234");
});
const stored: Promise<PaymentMethod> = live.tokenize({ method: "card", month: "12", year: "2030", firstname: "A", lastname: "B" });
stored.then((pm) => pm.id + pm.customer_id + (pm.card_last_four ?? "") + pm.customer.firstname);

export {};
`,
    );
    // A page script (no imports) sees PayJs and PayJsError as globals.
    writeFileSync(
      join(dir, "page.ts"),
      `/// <reference path="./payjs.d.ts" />
const other = new PayJs("token", {});
const failure = new PayJsError("network_error", "offline");
void other.pay({ method: "card", month: "12", year: "2030", total: "1.00", firstname: "A", lastname: "B" }).catch(() => failure.code);
`,
    );
    writeFileSync(
      join(dir, "bad.ts"),
      `/// <reference path="./payjs.d.ts" />
new window.PayJs("t").on("card_form_done", () => {});
new window.PayJs("t").pay({ method: "card", total: 1, firstname: "A", lastname: "B" });
new window.PayJs("t", { number: { id: "n", style: 12 } });
new window.PayJs("t").on("card_form_complete", (m) => m.cardType === "amex");
export {};
`,
    );
    const tsc = (...files: string[]) =>
      Bun.spawnSync(
        [
          join(process.cwd(), "node_modules/.bin/tsc"),
          "--noEmit",
          "--strict",
          "--lib",
          "ESNext,DOM",
          "--module",
          "preserve",
          ...files,
        ],
        {
          cwd: dir,
        },
      );
    const good = tsc("good.ts", "page.ts");
    expect(good.stdout.toString() + good.stderr.toString()).toBe("");
    expect(good.exitCode).toBe(0);
    const bad = tsc("bad.ts").stdout.toString();
    expect(bad).toContain("card_form_done");
    expect(bad).toMatch(/month|year/);
    expect(bad).toContain("bad.ts(4,"); // a style that is neither a string nor an object
    expect(bad).toContain("bad.ts(5,"); // "amex" is card_type's name; cardType says "american_express"
  }, 60_000);
});
