import { describe, expect, test } from "bun:test";
import { constantTimeEqual } from "./crypto";

describe("constantTimeEqual", () => {
  test("equal strings only: a difference anywhere, in length or beyond ASCII, is unequal", () => {
    const key = "sk_sandbox_3f9Qx-_a";
    expect(constantTimeEqual(key, `sk_sandbox_${"3f9Qx-_a"}`)).toBe(true);
    expect(constantTimeEqual("", "")).toBe(true);
    expect(constantTimeEqual(key, "Sk_sandbox_3f9Qx-_a")).toBe(false); // the first unit
    expect(constantTimeEqual(key, "sk_sandbox_3f9Qx-_b")).toBe(false); // the last unit
    expect(constantTimeEqual(key, `${key}x`)).toBe(false);
    expect(constantTimeEqual(`${key}x`, key)).toBe(false);
    expect(constantTimeEqual(key, "")).toBe(false);
    expect(constantTimeEqual("clé", "cle\u0301")).toBe(false); // same text to a reader, other code units
    expect(constantTimeEqual("clé", "clé")).toBe(true);
    expect(constantTimeEqual("a😀", "a😁")).toBe(false); // a surrogate pair differing in its low half
  });
});
