/**
 * Fuzzing every route with fast-check (fixed seed here; `npm run fuzz` for a long random run):
 * never a 5xx, always the error envelope, nothing written by a rejected request. The route list
 * comes from /openapi/json, so routes added later are covered automatically. See scripts/fuzz.ts.
 */
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../src/domain/errors";
import { MAX_JSON_DEPTH } from "../../src/http/pipeline/json";
import { fuzz } from "../../scripts/fuzz";
import { setup, tokenize } from "../support/app";
import { sql } from "../../src/storage/database";
import { countRows } from "../support/database";

const SEED = 20261121;
const RUNS = Number(process.env.PAYSANDBOX_FUZZ_RUNS ?? 2000);

describe("fuzzing every route", () => {
  test(`${RUNS} random and mutated requests (seed ${SEED}): no 5xx, every error is the envelope, rejected requests write nothing`, async () => {
    const report = await fuzz({ seed: SEED, runs: RUNS });
    if (report.failures.length) console.error(JSON.stringify(report.failures, null, 2));
    expect(report.failures).toEqual([]);
    expect(report.requests).toBe(RUNS);
    // The route list really came from the OpenAPI document, later routes included.
    expect(report.routes.length).toBeGreaterThan(40);
    for (const route of [
      "POST /charge",
      "POST /webpayment/{token}/tokenize",
      "GET /transaction",
      "POST /_sandbox/reset",
    ])
      expect(report.routes).toContain(route);
    // Both accepted and refused requests were exercised.
    expect(report.statuses["200"]).toBeGreaterThan(50);
    for (const status of ["400", "401", "404", "413", "422"]) expect(report.statuses[status]).toBeGreaterThan(0);
  }, 60_000);

  test("the fuzzer catches what it looks for: a 500, a bare error answer, and a rejected request that wrote a row", async () => {
    const ctx = await setup();
    ctx.app
      .get("/fuzz-probe/crash/:id", () => {
        throw new Error("a deliberate bug");
      })
      .get("/fuzz-probe/bare", () => new Response("nope", { status: 418 }))
      // A GET, like the crash probe: every request the fuzzer draws for it reaches the handler (a
      // POST's drawn bodies are mostly refused before it, so whether one got through was luck).
      .get("/fuzz-probe/write/:id", async ({ deps }) => {
        await deps.db.run(sql`INSERT INTO sandbox_settings (name, value) VALUES (${crypto.randomUUID()}, 'x')`);
        throw new ApiError("validation_error", "Refused after writing.");
      });
    // Request i goes to route i mod n: eight rounds over every route, however many the app has.
    const runs = 8 * (ctx.app as unknown as { routes: unknown[] }).routes.length;
    const report = await fuzz({ seed: SEED, runs, context: ctx });
    const problems = report.failures.map((f) => `${f.problem} @ ${f.request.split(" ")[1]?.split("?")[0]}`);
    expect(problems.some((p) => p.startsWith("answered 500 @ http://localhost/fuzz-probe/crash/"))).toBe(true);
    expect(problems).toContain("non-2xx answer is not JSON @ http://localhost/fuzz-probe/bare");
    expect(
      problems.some((p) => p.startsWith("rejected with 422 but wrote rows @ http://localhost/fuzz-probe/write/")),
    ).toBe(true);
  }, 30_000);
});

describe("what the fuzzer found, fixed at the root", () => {
  test(`a JSON body nested deeper than ${MAX_JSON_DEPTH} levels is a 422, not a stack overflow (it was a 500 with an Idempotency-Key)`, async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx);
    const depth = 100_000;
    const meta = '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
    const res = await ctx.call("POST", "/charge", {
      raw: `{"payment_method_id":"${pm.id}","total":1,"meta":${meta}}`,
      headers: { "idempotency-key": "deep" },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_error");
    expect(res.body.errors.body[0]).toContain(`${MAX_JSON_DEPTH} levels`);
    const deepArray = await ctx.call("POST", "/charge", { raw: "[".repeat(depth) + "]".repeat(depth) });
    expect(deepArray.status).toBe(422);
    expect(await countRows(ctx.deps.db, "transactions")).toBe(0);
    // Nesting within the limit is kept as given.
    const ok = '{"a":'.repeat(MAX_JSON_DEPTH - 2) + "1" + "}".repeat(MAX_JSON_DEPTH - 2);
    const kept = await ctx.call("POST", "/charge", {
      raw: `{"payment_method_id":"${pm.id}","total":1,"meta":${ok}}`,
      headers: { "idempotency-key": "shallow" },
    });
    expect(kept.status).toBe(200);
  });
});
