import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildDeps, composeApp } from "../../src/entry/app";
import { STATE_MESSAGES } from "../../src/services/transactions";
import { openSqlite } from "../../src/storage/sqlite/database";
import { SandboxClock } from "../../src/services/clock";
import { memoryLogger } from "../../src/lib/logger";
import { CARD, serve, setup, type TestContext } from "../support/app";
import { DAY } from "../support/settlement";

/** A settled 100.00 card sale. */
async function settledSale(ctx: TestContext, total = 100) {
  const pm = (await ctx.call("POST", `/webpayment/${ctx.token}/tokenize`, { body: CARD, auth: false })).body;
  const sale = (await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total } })).body;
  await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds: 86_400 } });
  return sale;
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe("concurrent refunds never over-refund", () => {
  test("50 simultaneous refunds of 3.00 on 100.00 through app.handle: exactly 33 succeed", async () => {
    const ctx = await setup();
    const sale = await settledSale(ctx);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => ctx.call("POST", `/transaction/${sale.id}/refund`, { body: { total: 3 } })),
    );
    const statuses = results.map((r) => r.status);
    expect(count(statuses, 200)).toBe(33);
    expect(count(statuses, 422)).toBe(17);
    expect(new Set(results.filter((r) => r.status === 422).map((r) => r.body.code))).toEqual(
      new Set(["validation_error"]),
    );
    const after = (await ctx.call("GET", `/transaction/${sale.id}`)).body;
    expect(after.total_refunded).toBe(99);
    expect(after.child_transactions).toHaveLength(33);

    // The last 1.00: ten "refund the rest" requests at once, one wins.
    const rest = await Promise.all(
      Array.from({ length: 10 }, () => ctx.call("POST", `/transaction/${sale.id}/refund`)),
    );
    expect(
      count(
        rest.map((r) => r.status),
        200,
      ),
    ).toBe(1);
    for (const r of rest.filter((r) => r.status !== 200)) {
      expect(r.body).toEqual({ code: "invalid_state", message: STATE_MESSAGES.fullyRefunded });
    }
    const final = (await ctx.call("GET", `/transaction/${sale.id}`)).body;
    expect(final).toMatchObject({ total_refunded: 100, is_refundable: false });
    expect(
      final.child_transactions.map((c: any) => Math.round(c.total * 100)).reduce((a: number, b: number) => a + b),
    ).toBe(10_000);
  });

  test("40 simultaneous refund and void-or-refund requests over real HTTP: the sum never passes the total", async () => {
    const ctx = await setup();
    const sale = await settledSale(ctx);
    const server = serve(ctx);
    try {
      const send = (i: number) =>
        fetch(`${server.url}/transaction/${sale.id}/${i % 2 ? "refund" : "void-or-refund"}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${ctx.apiKey}` },
          body: JSON.stringify({ total: "7.00" }),
        }).then((r) => r.status);
      const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => send(i)));
      expect(count(statuses, 200)).toBe(14);
      expect(count(statuses, 422)).toBe(26);
    } finally {
      await server.stop();
    }
    const after = (await ctx.call("GET", `/transaction/${sale.id}`)).body;
    expect(after.total_refunded).toBe(98);
    expect(after.child_transactions).toHaveLength(14);
  });
});

describe("concurrent refunds from separate processes on one database file", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  test("four processes refunding 5.00 ten times each on 100.00: exactly 20 succeed", async () => {
    dir = mkdtempSync(join(tmpdir(), "paysandbox-refunds-"));
    const path = join(dir, "sandbox.db");
    // SQLite in both test passes: this is SQLite's multi-process case (processes sharing one file
    // through its lock); PostgreSQL's concurrency is the in-process tests above on its own pass.
    const db = await openSqlite(path);
    // Settle the sale by starting the database's clock a day ahead (the offset is stored).
    const clock = new SandboxClock(db);
    const app = composeApp(await buildDeps({ db, clock, log: memoryLogger() }));
    const call = async (path: string, body?: unknown) =>
      (await (
        await app.handle(
          new Request(`http://localhost${path}`, {
            method: body === undefined ? "GET" : "POST",
            headers: { "content-type": "application/json", authorization: "Bearer sandbox_api_key" },
            body: body === undefined ? undefined : JSON.stringify(body),
          }),
        )
      ).json()) as any;
    const pm = await call("/webpayment/sandbox_web_payments_token/tokenize", CARD);
    const sale = await call("/charge", { payment_method_id: pm.id, total: 100 });
    const merchantId = (await call("/_sandbox/clock")).merchant_id;
    await clock.advance(merchantId, DAY);
    expect((await call(`/transaction/${sale.id}`)).is_refundable).toBe(true);
    await db.close();

    const worker = join(import.meta.dir, "money-concurrency-worker.ts");
    const processes = Array.from({ length: 4 }, () =>
      Bun.spawn([process.execPath, worker, path, sale.id, "5", "10"], { stdout: "pipe", stderr: "pipe" }),
    );
    const outputs = await Promise.all(
      processes.map(async (p) => {
        const timer = setTimeout(() => p.kill(), 30_000);
        const text = await new Response(p.stdout).text();
        await p.exited;
        clearTimeout(timer);
        expect(p.exitCode).toBe(0);
        return JSON.parse(text) as number[];
      }),
    );
    const statuses = outputs.flat();
    expect(statuses).toHaveLength(40);
    expect(count(statuses, 200)).toBe(20);
    expect(count(statuses, 422)).toBe(20);

    const check = await openSqlite(path);
    try {
      const row = check.raw
        .query<{ refunded: number; children: number; sum: number }, [string]>(
          `SELECT total_refunded_cents AS refunded,
                  (SELECT COUNT(*) FROM transactions WHERE parent_id = t.id) AS children,
                  (SELECT SUM(total_cents) FROM transactions WHERE parent_id = t.id) AS sum
             FROM transactions t WHERE id = ?`,
        )
        .get(sale.id)!;
      expect(row).toEqual({ refunded: 10_000, children: 20, sum: 10_000 });
    } finally {
      await check.close();
    }
  });
});
