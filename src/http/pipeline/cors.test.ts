import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { CORS_HEADERS, cors } from "./cors";

describe("cors", () => {
  let handled = 0;
  const app = new Elysia().use(cors()).all("/*", () => {
    handled++;
    return "handled";
  });
  const call = (method: string, path: string) => app.handle(new Request(`http://localhost${path}`, { method }));

  test("the public prefixes get the CORS headers on every answer", async () => {
    for (const path of ["/webpayment/tok/tokenize", "/payjs.js", "/payjs/frame.html"]) {
      const response = await call("POST", path);
      expect(await response.text()).toBe("handled");
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("access-control-expose-headers")).toBe(CORS_HEADERS["access-control-expose-headers"]);
    }
  });

  test("a preflight under them is answered 204 at once, without the handler", async () => {
    handled = 0;
    const response = await call("OPTIONS", "/webpayment/tok/tokenize");
    expect(response.status).toBe(204);
    expect(Object.fromEntries(response.headers)).toMatchObject(CORS_HEADERS);
    expect(handled).toBe(0);
  });

  test("every other route gets no CORS header, preflight or not", async () => {
    for (const [method, path] of [
      ["POST", "/charge"],
      ["OPTIONS", "/charge"],
      ["GET", "/_sandbox/clock"],
      ["GET", "/webpaymentx"],
    ] as const) {
      const response = await call(method, path);
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
    }
  });
});
