import { describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { ApiError } from "../../domain/errors";
import { memoryLogger } from "../../lib/logger";
import { errorEnvelope } from "./error-envelope";
import { jsonBody } from "./json";

function appWith() {
  const log = memoryLogger();
  const app = new Elysia()
    .use(jsonBody())
    .use(errorEnvelope({ log }))
    .get("/refused", () => {
      throw new ApiError("forbidden", "Not for you.", {}, { "retry-after": "3" });
    })
    .get("/bug", () => {
      throw new Error("secret detail");
    })
    .post("/typed", ({ body }) => body, { body: t.Object({ total: t.Number(), name: t.String() }) });
  const call = async (method: string, path: string, body?: string) => {
    const response = await app.handle(
      new Request(`http://localhost${path}`, { method, body, headers: { "content-type": "application/json" } }),
    );
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };
  return { log, call };
}

describe("errorEnvelope", () => {
  test("an ApiError answers its status, message, code and headers, with the request id", async () => {
    const { call, log } = appWith();
    const { status, headers, body } = await call("GET", "/refused");
    expect(status).toBe(403);
    expect(body).toEqual({ message: "Not for you.", code: "forbidden" });
    expect(headers.get("retry-after")).toBe("3");
    expect(headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(log.lines).toEqual([]); // a 4xx is an answer, not a log line
  });

  test("a bug is a 500 internal_error naming the request id; the detail goes to the log only", async () => {
    const { call, log } = appWith();
    const { status, body } = await call("GET", "/bug");
    expect(status).toBe(500);
    expect(body.code).toBe("internal_error");
    expect(JSON.stringify(body)).not.toContain("secret detail");
    expect(log.lines.some((line) => line.includes("secret detail") && line.includes(body.request_id))).toBe(true);
    expect(log.lines).toContain(`GET /bug 500 request ${body.request_id}`);
  });

  test("Elysia's own errors: a schema mismatch is a 422 per field, an unknown route a 404", async () => {
    const { call } = appWith();
    const invalid = await call("POST", "/typed", '{"total":"ten"}');
    expect(invalid.status).toBe(422);
    expect(invalid.body.code).toBe("validation_error");
    expect(Object.keys(invalid.body.errors).sort()).toEqual(["name", "total"]);
    expect(invalid.body.errors.name).toEqual(["The name field is required."]);
    const missing = await call("GET", "/nowhere");
    expect([missing.status, missing.body.code, missing.body.message]).toEqual([
      404,
      "not_found",
      "No route for GET /nowhere.",
    ]);
  });
});
