/**
 * Compiled TypeBox checks shared by every app of a process (src/http/compiled-checks.ts): a second
 * app compiles nothing for routes the first already answered, and a shared check judges exactly as
 * a fresh one would, however alike two schemas print.
 */
import { describe, expect, test } from "bun:test";
import { Kind, Type, TypeRegistry, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { checkFunctionOf, shareCompiledChecks, sharedCheckCount } from "../../src/http/compiled-checks";
import { setup, tokenize } from "../support/app";

shareCompiledChecks();

const record = () => Type.Object({ id: Type.String(), total: Type.Union([Type.Number(), Type.Null()]) });

describe("compiled checks shared by the apps of a process", () => {
  test("two schemas of the same content are compiled once; each caller gets its own TypeCheck", () => {
    const before = sharedCheckCount();
    const first = TypeCompiler.Compile(record());
    const second = TypeCompiler.Compile(record());
    expect(sharedCheckCount()).toBe(before + 1);
    expect(second).not.toBe(first);
    expect(checkFunctionOf(second)).toBe(checkFunctionOf(first));
    for (const value of [{ id: "a", total: 1 }, { id: "a", total: null }, { id: 1, total: 1 }, { total: 1 }, null]) {
      expect(second.Check(value)).toBe(first.Check(value));
    }
    expect(second.Check({ id: "a", total: "1" })).toBe(false);
  });

  test("a schema closed in place after its first compile gets a new check that refuses extra members", () => {
    const schema = Type.Object({ id: Type.String() });
    expect(TypeCompiler.Compile(schema).Check({ id: "a", extra: 1 })).toBe(true);
    schema.additionalProperties = false;
    const closed = TypeCompiler.Compile(schema);
    expect(closed.Check({ id: "a", extra: 1 })).toBe(false);
    expect(closed.Check({ id: "a" })).toBe(true);
  });

  test("schemas that differ only in their TypeBox kind or optional marks are not shared", () => {
    if (!TypeRegistry.Has("PaysandboxEven")) {
      TypeRegistry.Set("PaysandboxEven", (_schema, value) => typeof value === "number" && value % 2 === 0);
    }
    const even = { [Kind]: "PaysandboxEven" } as TSchema;
    expect(TypeCompiler.Compile(Type.Unknown()).Check(3)).toBe(true);
    expect(TypeCompiler.Compile(even).Check(3)).toBe(false);
    expect(TypeCompiler.Compile(even).Check(4)).toBe(true);
    const required = Type.Object({ a: Type.Array(Type.String()) });
    const optional = Type.Object({ a: Type.Optional(Type.Array(Type.String())) });
    expect(TypeCompiler.Compile(required).Check({})).toBe(false);
    expect(TypeCompiler.Compile(optional).Check({})).toBe(true);
  });

  test("a second app compiles nothing for the routes the first answered, and still refuses bad input", async () => {
    const exercise = async () => {
      const ctx = await setup();
      const pm = await tokenize(ctx);
      const charged = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: "5.00" } });
      expect(charged.status).toBe(200);
      const refused = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: "5.00", meta: 5 } });
      expect(refused.status).toBe(422);
      const listed = await ctx.call("GET", "/transaction?per_page=0");
      expect(listed.status).toBe(422);
      expect((await ctx.call("GET", "/transaction")).status).toBe(200);
    };
    await exercise();
    const afterFirst = sharedCheckCount();
    await exercise();
    expect(sharedCheckCount()).toBe(afterFirst);
  });
});
