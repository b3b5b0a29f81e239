import { describe, expect, test } from "bun:test";
import { ApiError } from "../../domain/errors";
import { MAX_BODY_BYTES, readBody } from "./body";

/** A chunked body (no Content-Length) that yields `chunks`, and records whether it was cancelled. */
function chunked(chunks: string[]) {
  const state = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[state.pulled++];
      if (next === undefined) controller.close();
      else controller.enqueue(new TextEncoder().encode(next));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  const request = new Request("http://localhost/", { method: "POST", body: stream });
  return { request, state };
}

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  return (error as ApiError).code;
};

describe("readBody", () => {
  test("a declared body is read whole; no body is the empty text", async () => {
    const request = new Request("http://localhost/", {
      method: "POST",
      headers: { "content-length": "10" },
      body: '{"a":"é"}',
    });
    expect(await readBody(request)).toBe('{"a":"é"}');
    expect(await readBody(new Request("http://localhost/"))).toBe("");
  });

  test("a declared length over the limit is refused before the body is read", async () => {
    const request = new Request("http://localhost/", {
      method: "POST",
      headers: { "content-length": String(MAX_BODY_BYTES + 1) },
      body: "{}",
    });
    expect(await refusal(readBody(request))).toBe("payload_too_large");
    expect(request.bodyUsed).toBe(false);
  });

  test("a chunked body is joined; one over the limit is refused as soon as it passes it, and cancelled", async () => {
    expect(await readBody(chunked(['{"a":', "1}"]).request)).toBe('{"a":1}');
    const { request, state } = chunked(["x".repeat(600), "y".repeat(600), "z".repeat(600), "never read"]);
    expect(await refusal(readBody(request, 1000))).toBe("payload_too_large");
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBeLessThan(4);
  });

  test("the limit counts bytes, not characters", async () => {
    const request = new Request("http://localhost/", { method: "POST", body: "é".repeat(6) }); // 12 bytes
    expect(await refusal(readBody(request, 10))).toBe("payload_too_large");
  });
});
