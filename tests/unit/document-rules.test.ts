/**
 * Rules the OpenAPI document states for the service to check (src/domain/schemas) judge requests
 * as the shared rules do (packages/rules/validation.ts), under ajv: the validator Stoplight Prism
 * runs (tests/http/openapi-proxy.test.ts), with Prism's options. The money schema especially: a
 * bare `multipleOf: 0.01` refuses one valid total in seven in a validator that divides in binary
 * floating point, so every cent value of a wide range is tried.
 */
import { describe, expect, test } from "bun:test";
import Ajv from "ajv";
import fc from "fast-check";
import { parseTotalCents, validateCustomerFields } from "../../packages/rules/validation";
import { MoneyInput } from "../../src/domain/schemas/records";
import { PublicInvoiceBody } from "../../src/domain/schemas/invoices";
import { CustomerBody } from "../../src/domain/schemas/customers";
import { TokenizeBody } from "../../src/domain/schemas/webpayment";
import { PriceInput } from "../../src/domain/schemas/items";
import { SurchargeSettingsFields } from "../../src/domain/schemas/surcharges";
import { parseSurchargeRate } from "../../src/domain/surcharge";
import { priceCents } from "../../src/services/catalog/items";

/** A schema as the document states it (TypeBox's symbols dropped), compiled as Prism compiles one. */
function compile(schema: unknown) {
  const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, allowMatchingProperties: true, strict: false });
  ajv.addFormat("email", true);
  return ajv.compile(JSON.parse(JSON.stringify(schema)));
}

const money = compile(MoneyInput("a total", []));
const accepts = (value: unknown) => money(value) === true;
const serverAccepts = (value: unknown) => "cents" in parseTotalCents(value);

describe("a total in the document", () => {
  test("every cent value to 10,000.00, and every 97th to 1,000,000.00, passes as a JSON number", () => {
    const refused: number[] = [];
    for (let cents = 1; cents <= 100_000_000; cents += cents < 1_000_000 ? 1 : 97) {
      if (!accepts(cents / 100)) refused.push(cents / 100);
    }
    expect(refused).toEqual([]);
  });

  test("cent values up to the largest, 99,999,999.99, pass; the ones a bare multipleOf: 0.01 refuses too", () => {
    const bare = compile({ type: "number", multipleOf: 0.01 });
    expect([19.99, 0.07, 1.13, 4.35].map((v) => [bare(v), accepts(v)])).toEqual([
      [false, true],
      [false, true],
      [false, true],
      [false, true],
    ]);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9_999_999_999 }), (cents) => accepts(cents / 100)),
      { numRuns: 50_000 },
    );
    expect(accepts(99_999_999.99)).toBe(true);
  });

  test("a third decimal, 0, a negative or more than 99,999,999.99 is refused, as at the server", () => {
    const passed: number[] = [];
    for (let thousandths = 1; thousandths <= 200_000; thousandths++) {
      if (thousandths % 10 !== 0 && accepts(thousandths / 1000)) passed.push(thousandths / 1000);
    }
    expect(passed).toEqual([]);
    for (const value of [0, -0, -0.01, -5, 100_000_000, 99_999_999.991, 1e-7, 19.9900001, 0.30000001]) {
      expect({ value, document: accepts(value), server: serverAccepts(value) }).toEqual({
        value,
        document: false,
        server: false,
      });
    }
  });

  test("any number written with up to 15 significant digits is judged as the server judges it", () => {
    const decimal = fc
      .tuple(fc.integer({ min: -1, max: 100_000_000 }), fc.integer({ min: 0, max: 6 }), fc.nat(999_999))
      .map(([whole, places, digits]) =>
        Number(`${whole}${places ? `.${String(digits).padStart(6, "0").slice(0, places)}` : ""}`),
      );
    fc.assert(
      fc.property(decimal, (value) => accepts(value) === serverAccepts(value)),
      { numRuns: 30_000 },
    );
  });

  test("a numeric string is judged by the pattern as the server's parser judges it", () => {
    const text = fc.string({ unit: fc.constantFrom("0", "1", "5", "9", ".", "-", " ", "e", "+"), maxLength: 14 });
    fc.assert(
      fc.property(text, (value) => accepts(value) === serverAccepts(value)),
      { numRuns: 30_000 },
    );
    for (const value of ["19.99", " 7.10 ", "10.500", "0.01", "00012", "99999999.99", "0.5"]) {
      expect({ value, document: accepts(value), server: serverAccepts(value) }).toEqual({
        value,
        document: true,
        server: true,
      });
    }
    for (const value of ["0", "0.00", "-1", "19.999", "1e3", "123456789", ".5", "5.", ""]) {
      expect({ value, document: accepts(value), server: serverAccepts(value) }).toEqual({
        value,
        document: false,
        server: false,
      });
    }
  });

  test("neither form takes anything else", () => {
    for (const value of [null, true, [], {}, Number.NaN]) expect(accepts(value)).toBe(false);
  });
});

describe("other amounts with at most two decimals", () => {
  test("a surcharge rate and an item's price: 2.99 and 7.11 pass, 2.999 and 7.111 are refused", () => {
    const rate = compile(SurchargeSettingsFields.cnp_credit_surcharge_rate);
    expect([2.99, 0.07, 3, null].map((value) => rate(value))).toEqual([true, true, true, true]);
    expect([2.999, 0, 3.01].map((value) => rate(value))).toEqual([false, false, false]);
    expect("error" in parseSurchargeRate(2.999)).toBe(true);
    const price = compile(PriceInput);
    expect([7.11, 19.99, 0, "7.11"].map((value) => price(value))).toEqual([true, true, true, true]);
    expect([7.111, -1].map((value) => price(value))).toEqual([false, false]);
    expect(priceCents(7.111)).toBeUndefined();
  });
});

describe("pay()'s invoice step in the document (POST /webpayment/{token}/invoice)", () => {
  const body = compile(PublicInvoiceBody);
  const FIELDS = ["customer_id", "firstname", "lastname", "phone", "address_1", "address_city", "address_state"];
  const VALUES = [undefined, "", "  ", "Ada", "5555550100", "FL", "x".repeat(51)];

  /** The customer-field rules of validatePublicInvoice (src/services/invoices/rules.ts), without the database. */
  function serverErrors(input: Record<string, unknown>): string[] {
    const hasCustomer = typeof input.customer_id === "string" && input.customer_id.trim() !== "";
    const fields = hasCustomer ? { firstname: input.firstname, lastname: input.lastname } : input;
    return Object.keys(validateCustomerFields(fields, { requireNames: true, requireContact: !hasCustomer }));
  }

  test("names always, the contact without a customer_id: the document refuses what the rules refuse", () => {
    const record = fc.record(Object.fromEntries(FIELDS.map((field) => [field, fc.constantFrom(...VALUES)])));
    fc.assert(
      fc.property(record, (fields) => {
        const input = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
        const valid = body({ payment_method_id: "pm", total: 5, ...input }) === true;
        return valid === (serverErrors(input).length === 0);
      }),
      { numRuns: 5_000 },
    );
  });

  test("with a customer_id, a short phone or a bad e-mail is ignored, as the service ignores them", () => {
    const names = { payment_method_id: "pm", total: 5, firstname: "Ada", lastname: "Lovelace" };
    expect(body({ ...names, customer_id: "c", phone: "555", email: "not-an-address" })).toBe(true);
    expect(body({ ...names, phone: "555", address_1: "1 Way", address_city: "London", address_state: "LN" })).toBe(
      false,
    );
  });
});

describe("the customer fields in the document (POST /customer, tokenize)", () => {
  const FIELDS = ["firstname", "phone", "address_state", "address_country", "email"];
  const VALUES = [undefined, "", "Ada", "555", "5555550100", "FL", "USA", "a@b.co", "x".repeat(51)];
  const fields = fc
    .record(Object.fromEntries(FIELDS.map((field) => [field, fc.constantFrom(...VALUES)])))
    .map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)));
  const ruleErrors = (input: Record<string, unknown>) =>
    Object.keys(validateCustomerFields(input, { requireNames: false, requireContact: false }));

  test("a customer's lengths and formats: the document refuses what the rules refuse", () => {
    const customer = compile(CustomerBody);
    fc.assert(
      fc.property(fields, (input) => (customer(input) === true) === (ruleErrors(input).length === 0)),
      { numRuns: 5_000 },
    );
  });

  test("tokenize checks them only without a customer_id, as the service does", () => {
    const tokenize = compile(TokenizeBody);
    const card = { method: "card", person_name: "Ada", card_number: "4111111111111111", card_exp: "1230" };
    fc.assert(
      fc.property(fields, fc.constantFrom(undefined, "", "c"), (input, customerId) => {
        const body = customerId === undefined ? { ...card, ...input } : { ...card, ...input, customer_id: customerId };
        const checked = customerId === undefined || customerId === "";
        return (tokenize(body) === true) === (!checked || ruleErrors(input).length === 0);
      }),
      { numRuns: 5_000 },
    );
  });
});
