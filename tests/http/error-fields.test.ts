/**
 * 422 bodies as clients written for the real service read them: each failing field's messages
 * at the top level (`{"card_number": ["…"]}`), beside the sandbox's own message, code and errors.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MESSAGES } from "../../packages/rules/messages";
import { ApiError, ValidationFailed } from "../../src/domain/errors";
import { CARD, setup } from "../support/app";

describe("422 validation bodies", () => {
  test("carry every failing field's messages at the top level, equal to errors[field]", async () => {
    const ctx = await setup();
    const res = await ctx.call("POST", `/webpayment/${ctx.token}/tokenize`, {
      body: { ...CARD, card_number: "4111111111111112", phone: "123", email: "nope" },
      auth: false,
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_error");
    expect(typeof res.body.message).toBe("string");
    expect(Object.keys(res.body.errors).sort()).toEqual(["card_number", "email", "phone"]);
    for (const [field, messages] of Object.entries(res.body.errors)) expect(res.body[field]).toEqual(messages);
    expect(res.body.card_number).toEqual([MESSAGES.cardNumberInvalid]);
    // Exactly the envelope plus the fields: nothing else appears at the top level.
    expect(Object.keys(res.body).sort()).toEqual(["card_number", "code", "email", "errors", "message", "phone"]);
  });

  test("the README's error example is exactly what the API answers", async () => {
    const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## Errors"));
    const example = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]!);
    const ctx = await setup();
    const res = await ctx.call("POST", "/customer", { body: { firstname: "Ada", phone: "123" } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(example);
  });

  test("schema failures (a missing or mistyped field) are reported the same way", async () => {
    const ctx = await setup();
    const res = await ctx.call("POST", "/charge", { body: { total: 5 } });
    expect(res.status).toBe(422);
    expect(res.body.payment_method_id).toEqual([MESSAGES.required("payment_method_id")]);
    expect(res.body.errors.payment_method_id).toEqual(res.body.payment_method_id);
  });

  test("a field named like an envelope member stays in errors only; the envelope member wins", () => {
    // Parsed, as field names arrive: an object literal's __proto__ would set the prototype instead.
    const errors = JSON.parse(`{
      "message": ["The message field is required."],
      "code": ["The code is invalid."],
      "errors": ["The errors field is not allowed."],
      "__proto__": ["The __proto__ field is not allowed."],
      "card_cvv": ["The card_cvv must be 3 digits."]
    }`);
    const body = new ValidationFailed(errors).toBody();
    expect(body.code).toBe("validation_error");
    expect(typeof body.message).toBe("string");
    expect(Object.keys(body.errors!).sort()).toEqual(["__proto__", "card_cvv", "code", "errors", "message"]);
    expect(body.card_cvv).toEqual(["The card_cvv must be 3 digits."]);
    // "__proto__" is a plain member of the answer, never the object's prototype.
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(body)).__proto__).toEqual(["The __proto__ field is not allowed."]);
  });

  test("other error codes have no field members", async () => {
    const ctx = await setup();
    const res = await ctx.call("POST", "/charge", { body: { payment_method_id: "nope", total: 5 } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: "Payment method not found.", code: "not_found", param: "payment_method_id" });
    expect(new ApiError("invalid_state", "No.").toBody()).toEqual({ message: "No.", code: "invalid_state" });
  });
});
