/**
 * No response schema of the app holds a TypeBox Transform (Elysia's t.Integer, t.Numeric, t.Date
 * are Transforms: they coerce input). One Transform anywhere in a response schema makes Elysia
 * encode the whole answer with TypeBox's dynamic Encode instead of its compiled check: it was 38% of
 * GET /self's time and most of a list page's, and OpenAPI then told clients that counts and page
 * numbers might be strings. Records use `Integer` (src/domain/schemas/records.ts).
 */
import { describe, expect, test } from "bun:test";
import { TransformKind, type TSchema } from "@sinclair/typebox";
import { setup } from "../support/app";

/** The paths inside `schema` that are Transforms. */
function transformsIn(schema: unknown, path: string, found: string[] = [], seen = new Set<unknown>()): string[] {
  if (!schema || typeof schema !== "object" || seen.has(schema)) return found;
  seen.add(schema);
  if (TransformKind in schema) found.push(path);
  for (const [key, value] of Object.entries(schema)) transformsIn(value, `${path}.${key}`, found, seen);
  return found;
}

describe("response schemas", () => {
  test("no route of the app answers through a Transform", async () => {
    const ctx = await setup();
    const found: string[] = [];
    let schemas = 0;
    for (const route of ctx.app.routes) {
      const response = (route.hooks as { response?: TSchema | Record<string, TSchema> }).response;
      if (!response) continue;
      const byStatus = "type" in response || "anyOf" in response ? { all: response } : response;
      for (const [status, schema] of Object.entries(byStatus)) {
        schemas++;
        transformsIn(schema, `${route.method} ${route.path} ${status}`, found);
      }
    }
    expect(schemas).toBeGreaterThan(100);
    expect(found).toEqual([]);
  });

  test("OpenAPI says a page's numbers and a merchant's settlement days are integers", async () => {
    const ctx = await setup();
    const document = (await ctx.call("GET", "/openapi/json", { auth: false })).body;
    const schemas = document.components.schemas;
    expect(schemas.TransactionPage.properties.current_page).toEqual({ type: "integer" });
    expect(schemas.TransactionPage.properties.total).toEqual({ type: "integer" });
    expect(schemas.MerchantSettings.properties.ach_settlement_days).toEqual({ type: "integer" });
  });
});
