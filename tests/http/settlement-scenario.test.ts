import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildDeps, composeApp } from "../../src/entry/app";
import { STATE_MESSAGES } from "../../src/services/transactions";
import { openSqlite } from "../../src/storage/sqlite/database";
import { SandboxClock } from "../../src/services/clock";
import { memoryLogger } from "../../src/lib/logger";
import { CARD, BANK, setup } from "../support/app";
import { date, DAY, HOUR, nextMondayNoon, startWeek, ts } from "../support/settlement";

const cents = (amount: number) => Math.round(amount * 100);
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe("a week of money movement", () => {
  test("cards and bank charged, two midnights and ACH settlement crossed, a partial refund and voids: deposits reconcile to the cent", async () => {
    const ctx = await setup();
    const { midnight, goTo, pay, get } = await startWeek(ctx);
    const post = (id: string, action: string, body?: unknown) =>
      ctx.call("POST", `/transaction/${id}/${action}`, { body });

    // Monday: three card sales and two bank debits; one card sale is voided the same day.
    const a = await pay(100);
    const b = await pay(50);
    const c = await pay(20);
    const x = await pay(200, "bank");
    const y = await pay(1000, "bank");
    expect((await post(c.id, "void")).status).toBe(200);

    // First midnight: the card batch closes (a and b); bank debits are still in flight.
    await goTo(midnight(1) + HOUR);
    expect(await get(a.id)).toMatchObject({ settled_at: ts(midnight(1)), is_refundable: true });
    expect((await post(a.id, "refund", { total: 30 })).body).toMatchObject({ total_refunded: 30, is_refundable: true });
    const early = await post(x.id, "refund", { total: 10 });
    expect(early.status).toBe(422);
    expect(early.body).toEqual({ code: "invalid_state", message: STATE_MESSAGES.refundUnsettled(x.id) });
    // An unsettled ACH debit can still be voided.
    expect((await post(y.id, "void")).body).toMatchObject({ is_voided: true, method: "bank" });

    // Second midnight: the refund's batch closes, the first deposit lands.
    await goTo(midnight(2) + HOUR);
    expect((await ctx.call("GET", "/query/deposit")).body.total).toBe(1);

    // Third midnight (Wednesday ends): x settles, its deposit and the refund batch's deposit land.
    await goTo(midnight(3) + HOUR);

    const list = (await ctx.call("GET", "/query/deposit")).body;
    expect(list.total).toBe(3);
    const byBatch = [...list.data].sort(
      (p: any, q: any) => p.settled_at.localeCompare(q.settled_at) || p.method.localeCompare(q.method),
    );
    expect(
      byBatch.map((d: any) => [d.method, d.settled_at, d.deposit_date, d.count, d.gross, d.refunds, d.fees, d.net]),
    ).toEqual([
      ["card", ts(midnight(1)), date(midnight(2)), 2, 150, 0, 4.95, 145.05],
      ["card", ts(midnight(2)), date(midnight(3)), 1, 0, 30, 0, -30],
      ["bank", ts(midnight(3)), date(midnight(3)), 1, 200, 0, 1.6, 198.4],
    ]);
    // Everything that moved, net of fees, and nothing that was voided.
    expect(sum(list.data.map((d: any) => cents(d.net)))).toBe(cents(150 + 200 - 30 - 4.95 - 1.6));

    const seen = new Set<string>();
    for (const deposit of list.data) {
      const res = await ctx.call("GET", `/query/depositDetail?batch_id=${deposit.batch_id}&per_page=200`);
      expect(res.status).toBe(200);
      const items: any[] = res.body.data;
      expect(res.body.deposit).toEqual(deposit);
      expect(res.body.total).toBe(deposit.count);
      expect(items).toHaveLength(deposit.count);
      for (const item of items) {
        expect(item).toMatchObject({
          batch_id: deposit.batch_id,
          settled_at: deposit.settled_at,
          method: deposit.method,
        });
        seen.add(item.id);
      }
      const sales = items.filter((t) => t.type !== "refund");
      const refunds = items.filter((t) => t.type === "refund");
      expect(sum(sales.map((t) => cents(t.total)))).toBe(cents(deposit.gross));
      expect(sum(refunds.map((t) => cents(t.total)))).toBe(cents(deposit.refunds));
      expect(sum(items.map((t) => cents(t.fee)))).toBe(cents(deposit.fees));
      expect(sum(items.map((t) => cents(t.net)))).toBe(cents(deposit.net));
      expect(cents(deposit.gross) - cents(deposit.refunds) - cents(deposit.fees)).toBe(cents(deposit.net));
    }
    const refundOfA = (await get(a.id)).child_transactions[0];
    expect([...seen].sort()).toEqual([a.id, b.id, x.id, refundOfA.id].sort());

    // The voided ones never settled; the refunded one still has 70.00 to refund.
    expect(await get(c.id)).toMatchObject({ is_voided: true, settled_at: null, batch_id: null });
    expect(await get(y.id)).toMatchObject({ is_voided: true, settled_at: null, batch_id: null });
    expect(await get(a.id)).toMatchObject({ total_refunded: 30, is_refundable: true, is_voidable: false });
    expect(await get(x.id)).toMatchObject({ settled_at: ts(midnight(3)), is_refundable: true });

    // The listing shows the five sales with their children under them.
    const listed = (await ctx.call("GET", "/transaction?per_page=50")).body;
    expect(listed.total).toBe(5);
    const children = Object.fromEntries(
      listed.data.map((t: any) => [t.id, t.child_transactions.map((child: any) => child.type)]),
    );
    expect(children).toEqual({ [a.id]: ["refund"], [b.id]: [], [c.id]: ["void"], [x.id]: [], [y.id]: ["void"] });

    // Deposit dates filter inclusively.
    const thursday = date(midnight(3));
    const onThursday = (await ctx.call("GET", `/query/deposit?startDate=${thursday}&endDate=${thursday}`)).body;
    expect(onThursday.data.map((d: any) => d.settled_at).sort()).toEqual([ts(midnight(2)), ts(midnight(3))]);
  });
});

describe("catching up after a restart", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  test("jobs missed while the server was down run at start, dated when they were due", async () => {
    dir = mkdtempSync(join(tmpdir(), "paysandbox-settlement-"));
    const path = join(dir, "sandbox.db");
    const monday = nextMondayNoon(Date.now());
    const boot = async (now: number) => {
      // SQLite in both test passes: a restart on the same file (the catch-up logic is the same code
      // on PostgreSQL, covered there by the settlement suite).
      const db = await openSqlite(path);
      const deps = await buildDeps({ db, clock: new SandboxClock(db, () => now), log: memoryLogger() });
      return { db, deps, app: composeApp(deps) };
    };
    const call = async (app: ReturnType<typeof composeApp>, path: string, body?: unknown, key = "sandbox_api_key") => {
      const res = await app.handle(
        new Request(`http://localhost${path}`, {
          method: body === undefined ? "GET" : "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
      return (await res.json()) as any;
    };

    // Monday: a card sale and a bank debit, then the server stops.
    const first = await boot(monday);
    const token = (await first.deps.services.merchants.getDefault()).web_payments_token;
    const card = await call(first.app, `/webpayment/${token}/tokenize`, CARD);
    const bank = await call(first.app, `/webpayment/${token}/tokenize`, BANK);
    const sale = await call(first.app, "/charge", { payment_method_id: card.id, total: 10 });
    const debit = await call(first.app, "/charge", { payment_method_id: bank.id, total: 20 });
    expect(sale.settled_at).toBeNull();
    await first.db.close();

    // Friday: the server starts again; the clock worker's first tick catches up.
    const midnight = (days: number) => monday - 12 * HOUR + days * DAY;
    const second = await boot(monday + 4 * DAY);
    const worker = second.deps.workers.find((w) => w.name === "clock")!;
    worker.start();
    await worker.stop();
    try {
      expect((await call(second.app, `/transaction/${sale.id}`)).settled_at).toBe(ts(midnight(1)));
      expect((await call(second.app, `/transaction/${debit.id}`)).settled_at).toBe(ts(midnight(3)));
      const deposits = (await call(second.app, "/query/deposit")).data;
      expect(deposits.map((d: any) => [d.method, d.deposited_at]).sort()).toEqual([
        ["bank", ts(midnight(3))],
        ["card", ts(midnight(2))],
      ]);
    } finally {
      await second.db.close();
    }
  });
});
