import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { memoryLogger } from "../../lib/logger";
import { errorEnvelope } from "./error-envelope";
import { pathOf, urlNulCheck } from "./url";

describe("pathOf", () => {
  test("is what the URL standard says the path is, for plain and unusual paths alike", () => {
    for (const href of [
      "http://localhost:7290/charge",
      "http://localhost:7290/charge?x=1#y",
      "http://localhost:7290",
      "http://localhost:7290/",
      "http://localhost:7290/a/../_sandbox/reset",
      "http://localhost:7290/a/%2e%2e/_sandbox",
      "http://localhost:7290/x%41?q",
      "http://[::1]:7290/dashboard#top",
    ]) {
      expect(pathOf(href)).toBe(new URL(href).pathname);
    }
  });
});

describe("urlNulCheck", () => {
  const app = new Elysia()
    .use(urlNulCheck())
    .use(errorEnvelope({ log: memoryLogger() }))
    .get("/*", () => "reached");
  const get = async (path: string) => {
    const response = await app.handle(new Request(`http://localhost${path}`));
    return { status: response.status, body: await response.text() };
  };

  test("NUL in the path is a 404, in the query a 422 naming the parameter; other escapes pass", async () => {
    expect((await get("/transaction/ab%00c")).status).toBe(404);
    const query = await get("/transactions?status=a%00b");
    expect(query.status).toBe(422);
    expect(JSON.parse(query.body).errors).toEqual({ status: ["Text may not contain the NUL character (\\u0000)."] });
    expect(await get("/transactions?status=a%20b&x=%0A")).toEqual({ status: 200, body: "reached" });
  });
});
