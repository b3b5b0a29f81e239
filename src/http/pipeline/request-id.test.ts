import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { memoryLogger } from "../../lib/logger";
import { errorEnvelope } from "./error-envelope";
import { requestIdOf } from "./request-id";

describe("requestIdOf", () => {
  test("one id per request state, made on first read", () => {
    const first = {};
    const id = requestIdOf(first);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdOf(first)).toBe(id);
    expect(requestIdOf({})).not.toBe(id);
  });

  test("a request's hooks share it: the 500's body, its x-request-id header and the log name one id", async () => {
    const log = memoryLogger();
    let seenByHook = "";
    const app = new Elysia()
      .onRequest(({ set }) => {
        seenByHook = requestIdOf(set);
      })
      .use(errorEnvelope({ log }))
      .get("/bug", () => {
        throw new TypeError("a bug");
      });
    const response = await app.handle(new Request("http://localhost/bug"));
    const body = (await response.json()) as { request_id: string };
    expect(response.status).toBe(500);
    expect(body.request_id).toBe(seenByHook);
    expect(response.headers.get("x-request-id")).toBe(seenByHook);
    expect(log.lines.filter((line) => line.includes(seenByHook))).toHaveLength(2);
    // The next request gets another.
    const first = seenByHook;
    const again = await app.handle(new Request("http://localhost/bug"));
    expect(again.headers.get("x-request-id")).toBe(seenByHook);
    expect(seenByHook).not.toBe(first);
  });
});
