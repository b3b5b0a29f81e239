/**
 * The bench's `route` floor (bench/ceiling.ts) stands for POST /charge without the sandbox's own
 * JavaScript, so its answer must be the sandbox's: the same members, nested alike, and valid
 * against the route's response schema. Both servers charge one seeded file's payment method.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { TransactionRecord } from "../../src/domain/schemas/records";
import { API_KEY, BUN, parseArgs, PM_PREFIX, ROOT } from "../../scripts/bench/options";
import { startServer, stopChild } from "../../scripts/bench/processes";
import { seed } from "../../scripts/bench/seed";

/** Every member's path, nested objects followed (arrays by their first item), sorted. */
function shape(value: unknown, at = ""): string[] {
  if (Array.isArray(value)) return value.length ? shape(value[0], `${at}[]`) : [`${at}[]`];
  if (value === null || typeof value !== "object") return [at];
  return Object.entries(value)
    .flatMap(([key, member]) => [`${at}.${key}`, ...shape(member, `${at}.${key}`).filter((p) => p !== `${at}.${key}`)])
    .sort();
}

describe("the bench's route floor", () => {
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-route-floor-"));
  let servers: Awaited<ReturnType<typeof startServer>>[] = [];

  beforeAll(async () => {
    const seeded = join(dir, "seeded.sqlite");
    await seed(seeded, { ...parseArgs([]), rows: 10, methods: 10 });
    for (const name of ["sandbox", "route"]) copyFileSync(seeded, join(dir, `${name}.sqlite`));
    servers = [
      await startServer(BUN, ["src/entry/server.ts", "--port", "0", "--db", join(dir, "sandbox.sqlite")]),
      await startServer(BUN, [join(ROOT, "bench/ceiling.ts"), "route", join(dir, "route.sqlite")], "/"),
    ];
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => stopChild(server.child)));
    rmSync(dir, { recursive: true, force: true });
  });

  test("answers POST /charge with the sandbox's record, member for member, valid against its schema", async () => {
    const charge = (url: string) =>
      fetch(`${url}/charge`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${API_KEY}` },
        body: JSON.stringify({ payment_method_id: `${PM_PREFIX}000000000003`, total: 10.5 }),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }));
    const [sandbox, route] = await Promise.all([charge(servers[0]!.url), charge(servers[1]!.url)]);
    expect(sandbox.status).toBe(200);
    expect(route.status).toBe(200);
    expect(Value.Check(TransactionRecord, route.body)).toBe(true);
    expect(shape(route.body)).toEqual(shape(sandbox.body));
    expect(route.body).toMatchObject({
      payment_method_id: sandbox.body.payment_method_id,
      customer_id: sandbox.body.customer_id,
      type: "charge",
      success: true,
      total: 10.5,
    });
  }, 60_000);
});
