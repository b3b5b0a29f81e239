/**
 * --fixtures FILE: a fixture document applied to the default merchant at start, once — a restart
 * with the same file finds it applied and adds nothing; a document that fails stops the start,
 * naming the step and the field, with nothing of it kept.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FROM_SOURCES, ROOT, runToExit, startServer } from "../support/process";
import { EXAMPLE_STATES } from "../support/fixture-examples";

const dir = mkdtempSync(join(tmpdir(), "paysandbox-fixtures-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EXAMPLE = join(ROOT, "examples/fixtures/settled-charge-and-refund.json");

async function customers(url: string): Promise<{ total: number; data: { id: string }[] }> {
  const res = await fetch(`${url}/customer`, { headers: { authorization: "Bearer sandbox_api_key" } });
  return (await res.json()) as { total: number; data: { id: string }[] };
}

describe("--fixtures FILE", () => {
  test("applies the document to the default merchant at start, and a restart with it adds nothing", async () => {
    const db = join(dir, "once.sqlite");
    const first = await startServer([...FROM_SOURCES, "--port", "0", "--db", db, "--fixtures", EXAMPLE]);
    const made = await customers(first.url);
    const transactions = await (
      await fetch(`${first.url}/transaction`, { headers: { authorization: "Bearer sandbox_api_key" } })
    ).json();
    expect(await first.stop()).toBe(0);
    expect(made.total).toBe(1);
    expect(transactions.data[0]).toMatchObject({ total: 40, total_refunded: 15 });
    expect(first.stderr()).toContain("applied to the default merchant");

    const second = await startServer([...FROM_SOURCES, "--port", "0", "--db", db], {});
    expect(await customers(second.url)).toEqual(made);
    await second.stop();
    const again = await startServer([...FROM_SOURCES, "--port", "0", "--db", db, "--fixtures", EXAMPLE]);
    expect(await customers(again.url)).toEqual(made);
    expect(again.stderr()).toContain("was applied before");
    await again.stop();
  }, 60_000);

  test("a document with a failing step stops the start, naming the step and the field; nothing is kept", async () => {
    const db = join(dir, "failing.sqlite");
    const file = join(dir, "failing.json");
    writeFileSync(
      file,
      JSON.stringify({
        steps: [
          { name: "bad", method: "POST", path: "/customer", body: { firstname: "Ada" } },
          { name: "charge", method: "POST", path: "/charge", body: { payment_method_id: "${bad:id}", total: -1 } },
        ],
      }),
    );
    const failed = await runToExit([...FROM_SOURCES, "--port", "0", "--db", db, "--fixtures", file], {
      timeoutMs: 30_000,
    });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("--fixtures");
    expect(failed.stderr).toContain('Step 2 ("charge")');
    expect(failed.stderr).toContain("steps[1].body.");
    const started = await startServer([...FROM_SOURCES, "--port", "0", "--db", db]);
    expect((await customers(started.url)).total).toBe(0);
    await started.stop();

    const missing = await runToExit([...FROM_SOURCES, "--port", "0", "--db", db, "--fixtures", join(dir, "nope.json")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("cannot read the fixture document");
  }, 60_000);

  for (const [file, check] of Object.entries(EXAMPLE_STATES))
    test(`examples/fixtures/${file} at start: the default merchant is in its state`, async () => {
      const db = join(dir, `${file}.sqlite`);
      const server = await startServer([
        ...FROM_SOURCES,
        "--port",
        "0",
        "--db",
        db,
        "--fixtures",
        join(ROOT, "examples/fixtures", file),
      ]);
      try {
        await check(async (path) => {
          const res = await fetch(`${server.url}${path}`, { headers: { authorization: "Bearer sandbox_api_key" } });
          return { status: res.status, body: await res.json() };
        });
      } finally {
        await server.stop();
      }
    }, 60_000);
});
