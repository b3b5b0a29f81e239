/**
 * The NUL character (U+0000): PostgreSQL text cannot hold it (SQLite's can), so it is refused
 * before any query, the same on both databases — never a 500 (the fuzzer found it on PostgreSQL).
 */
import { describe, expect, test } from "bun:test";
import { countRows } from "../support/database";
import { setup, tokenize } from "../support/app";

describe("text with a NUL character", () => {
  test("in a path is a 404 in the error envelope", async () => {
    const ctx = await setup();
    for (const [method, path] of [
      ["GET", "/transaction/%00"],
      ["POST", "/transaction/%00/void-or-refund"],
      ["DELETE", "/payment-method/a%00b"],
      ["GET", "/webhook/%00/deliveries"],
    ] as const) {
      const res = await ctx.call(method, path, { body: method === "GET" ? undefined : {} });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("not_found");
    }
  });

  test("in a query parameter is a 422 naming the parameter", async () => {
    const ctx = await setup();
    const res = await ctx.call("GET", "/customer?keywords=ada%00");
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ keywords: ["Text may not contain the NUL character (\\u0000)."] });
    expect((await ctx.call("GET", "/customer?keywords=ada")).status).toBe(200);
  });

  test("in a JSON body is a 422 that writes nothing; an escaped backslash before u0000 is just text", async () => {
    const ctx = await setup();
    const refused = await ctx.call("POST", "/customer", { body: { firstname: "Ada\u0000", email: "ada@example.com" } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ body: ["Text may not contain the NUL character (\\u0000)."] });
    const inKey = await ctx.call("POST", "/customer", { raw: '{"firstname":"Ada","meta":{"a\\u0000":1}}' });
    expect(inKey.status).toBe(422);
    expect(await countRows(ctx.deps.db, "customers")).toBe(0);
    const literal = await ctx.call("POST", "/customer", { raw: '{"firstname":"back\\\\u0000slash"}' });
    expect(literal.status).toBe(200);
    expect(literal.body.firstname).toBe("back\\u0000slash");
    const pm = await tokenize(ctx);
    const charge = await ctx.call("POST", "/charge", {
      body: { payment_method_id: pm.id, total: 1, meta: { note: "\u0000" } },
    });
    expect(charge.status).toBe(422);
    expect(await countRows(ctx.deps.db, "transactions")).toBe(0);
  });
});
