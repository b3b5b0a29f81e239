import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { memoryLogger } from "../../lib/logger";
import { errorEnvelope } from "./error-envelope";
import { jsonBody, MAX_JSON_DEPTH } from "./json";
import { NOT_AN_OBJECT_MESSAGE } from "./messages";

const app = new Elysia()
  .use(jsonBody())
  .use(errorEnvelope({ log: memoryLogger() }))
  .post("/echo", ({ body }) => ({ got: body }));

async function post(body: string, contentType = "application/json") {
  const response = await app.handle(
    new Request("http://localhost/echo", { method: "POST", headers: { "content-type": contentType }, body }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe("jsonBody", () => {
  test("parses JSON whatever the content type says; an empty body is {}", async () => {
    expect(await post('{"a":[1,{"b":null}]}')).toEqual({ status: 200, body: { got: { a: [1, { b: null }] } } });
    expect((await post('{"a":1}', "text/plain")).body).toEqual({ got: { a: 1 } });
    expect((await post("  ")).body).toEqual({ got: {} });
  });

  test("malformed JSON is a 400 malformed_json", async () => {
    const { status, body } = await post('{"a":');
    expect(status).toBe(400);
    expect(body.code).toBe("malformed_json");
  });

  test(`nesting deeper than ${MAX_JSON_DEPTH} levels is a 422; ${MAX_JSON_DEPTH} levels pass`, async () => {
    // The body itself is the first level.
    const nested = (depth: number) => `{"a":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;
    expect((await post(nested(MAX_JSON_DEPTH))).status).toBe(200);
    const deep = await post(nested(MAX_JSON_DEPTH + 1));
    expect(deep.status).toBe(422);
    expect(deep.body.errors.body[0]).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
  });

  test("JSON that is not an object is a 422 naming the body; an empty body is still {}", async () => {
    for (const text of ['"hello"', "[]", "[{}]", "42", "null", "true"]) {
      const { status, body } = await post(text);
      expect([status, body.code]).toEqual([422, "validation_error"]);
      expect(body.errors.body).toEqual([NOT_AN_OBJECT_MESSAGE]);
    }
    expect((await post("")).status).toBe(200);
  });

  test("a NUL character in any string or key is a 422; an escaped backslash before u0000 is not NUL", async () => {
    for (const text of ['{"a":"x\\u0000"}', '{"a":{"k\\u0000":1}}', '{"a":["ok","\\u0000"]}']) {
      const { status, body } = await post(text);
      expect([status, body.code]).toEqual([422, "validation_error"]);
      expect(body.errors.body).toEqual(["Text may not contain the NUL character (\\u0000)."]);
    }
    expect(await post('{"a":"\\\\u0000"}')).toEqual({ status: 200, body: { got: { a: "\\u0000" } } });
  });
});
