import { beforeEach, describe, expect, test } from "bun:test";
import { MAX_ADVANCE_SECONDS } from "../../src/http/routes/sandbox";
import { STATE_MESSAGES } from "../../src/services/transactions";
import type { SandboxEvent } from "../../src/domain/events";
import { otherMerchant, setup, tokenize, waitFor, type TestContext } from "../support/app";
import { date, DAY, HOUR, startWeek, ts, type Week } from "../support/settlement";

let ctx: TestContext;
let events: SandboxEvent[];
let week: Week;
let monday: number;
let midnight: Week["midnight"];
let advance: Week["advance"];
let goTo: Week["goTo"];
let pay: Week["pay"];
let get: Week["get"];

beforeEach(async () => {
  ctx = await setup();
  events = [];
  ctx.deps.events.on((_ex, event) => void events.push(event));
  week = await startWeek(ctx);
  ({ monday, midnight, advance, goTo, pay, get } = week);
});

const deposits = async (query = "") => (await ctx.call("GET", `/query/deposit${query}`)).body;
const detail = async (batchId: string) =>
  (await ctx.call("GET", `/query/depositDetail?batch_id=${batchId}&per_page=200`)).body;

describe("GET /_sandbox/clock and POST /_sandbox/clock/advance", () => {
  test("a new merchant's clock is real time", async () => {
    const other = await otherMerchant(ctx);
    const res = await ctx.call("GET", "/_sandbox/clock", { auth: other.api_key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ merchant_id: other.id, offset_seconds: 0, next_settlement_at: null });
    expect(Math.abs(Date.parse(`${res.body.now}Z`) - Date.parse(`${res.body.real_now}Z`))).toBeLessThanOrEqual(1000);
  });

  test("advance moves only the acting merchant's clock, and never back", async () => {
    const other = await otherMerchant(ctx);
    const before = (await ctx.call("GET", "/_sandbox/clock", { auth: other.api_key })).body;
    const moved = await advance(3 * 86_400 + 60);
    expect(moved.merchant_id).toBe(ctx.merchantId);
    expect(moved.offset_seconds).toBeGreaterThan(3 * 86_400);
    expect(moved.now).toBe(ts(monday + 3 * DAY + 60_000).slice(0, 16) + moved.now.slice(16));
    const after = (await ctx.call("GET", "/_sandbox/clock", { auth: other.api_key })).body;
    expect(after.offset_seconds).toBe(before.offset_seconds);
    // Records are stamped with the merchant's clock.
    const sale = await pay(1);
    expect(sale.created_at.slice(0, 16)).toBe(moved.now.slice(0, 16));
  });

  test("without an API key it acts on the default merchant; a bad key is a 401", async () => {
    const res = await ctx.call("GET", "/_sandbox/clock", { auth: false });
    expect(res.body.merchant_id).toBe(ctx.merchantId);
    expect((await ctx.call("GET", "/_sandbox/clock", { auth: "nope" })).status).toBe(401);
    expect((await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds: 1 }, auth: "nope" })).status).toBe(
      401,
    );
  });

  test("bad advances are 422s that move nothing", async () => {
    const before = (await ctx.call("GET", "/_sandbox/clock")).body.offset_seconds;
    for (const body of [{}, { seconds: -1 }, { seconds: "soon" }, { seconds: MAX_ADVANCE_SECONDS + 1 }]) {
      const res = await ctx.call("POST", "/_sandbox/clock/advance", { body });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe("validation_error");
      expect(res.body.errors.seconds).toBeDefined();
    }
    expect((await ctx.call("GET", "/_sandbox/clock")).body.offset_seconds).toBe(before);
  });

  test("advance reports the jobs it ran and the next one due", async () => {
    await pay(10);
    const pending = (await ctx.call("GET", "/_sandbox/clock")).body;
    expect(pending.next_settlement_at).toBe(ts(midnight(1)));
    const first = await advance(86_400);
    expect(first.ran).toEqual({ batches: 1, settled: 1, deposits: 0 });
    expect(first.next_settlement_at).toBe(ts(midnight(2)));
    const second = await advance(86_400);
    expect(second.ran).toEqual({ batches: 0, settled: 0, deposits: 1 });
    expect(second.next_settlement_at).toBeNull();
  });
});

describe("card settlement", () => {
  test("card transactions batch when the clock crosses midnight UTC, not before", async () => {
    const a = await pay(10);
    const b = await pay(20);
    await goTo(midnight(1) - 1000);
    expect(await get(a.id)).toMatchObject({ batch_id: null, settled_at: null, is_voidable: true });
    await advance(2);
    const [sa, sb] = [await get(a.id), await get(b.id)];
    expect(sa.settled_at).toBe(ts(midnight(1)));
    expect(sa.batch_id).toEqual(expect.any(String));
    expect(sb.batch_id).toBe(sa.batch_id);
    expect(sa).toMatchObject({ is_voidable: false, is_refundable: true });
    // A charge after midnight goes into the next day's batch.
    const c = await pay(5);
    await goTo(midnight(2) + 1000);
    const sc = await get(c.id);
    expect(sc.settled_at).toBe(ts(midnight(2)));
    expect(sc.batch_id).not.toBe(sa.batch_id);
  });

  test("the deposit lands the next day with fees of 2.9% + 0.30 per sale, rounded half up to the cent", async () => {
    // 10.00 → 0.29 + 0.30; 5.00 → 0.145 rounds up to 0.15, + 0.30; 0.01 → 0.0003 rounds to 0, + 0.30.
    for (const total of [10, 5, 0.01]) await pay(total);
    await goTo(midnight(1) + 1000);
    const batchId = (await ctx.call("GET", "/transaction")).body.data[0].batch_id;
    expect((await deposits()).data).toEqual([]);
    // A pending batch already has its detail.
    expect((await detail(batchId)).deposit).toMatchObject({ deposited_at: null, deposit_date: date(midnight(2)) });

    await goTo(midnight(2) + 1000);
    const list = await deposits();
    expect(list.total).toBe(1);
    expect(list.data[0]).toEqual({
      id: expect.any(String),
      batch_id: batchId,
      display_batch_id: `CARD-${date(midnight(1)).replaceAll("-", "")}`,
      batched_at: ts(midnight(1)),
      last_transaction: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      method: "card",
      settled_at: ts(midnight(1)),
      deposit_date: date(midnight(2)),
      deposited_at: ts(midnight(2)),
      count: 3,
      // The amounts 10.00, 5.00 and 0.01: their sum, mean, extremes and population deviation.
      sum: 15.01,
      avg: 5,
      min: 0.01,
      max: 10,
      std: 4.08,
      gross: 15.01,
      refunds: 0,
      fees: 1.34,
      adjustments: 0,
      net: 13.67,
      created_at: ts(midnight(1)),
    });
    const items = (await detail(batchId)).data;
    expect(items.map((t: any) => [t.total, t.fee, t.net])).toEqual([
      [10, 0.59, 9.41],
      [5, 0.45, 4.55],
      [0.01, 0.3, -0.29],
    ]);
  });

  test("pre_auths settle through their capture; uncaptured and voided ones never settle", async () => {
    const pm = await tokenize(ctx);
    const auth = async (total: number) =>
      (await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total, pre_auth: true } })).body;
    const captured = await auth(40);
    const open = await auth(30);
    const voided = await pay(20);
    await ctx.call("POST", `/transaction/${captured.id}/capture`, { body: { total: 25 } });
    await ctx.call("POST", `/transaction/${voided.id}/void`);
    await goTo(midnight(2) + 1000);
    const [c, o, v] = [await get(captured.id), await get(open.id), await get(voided.id)];
    expect(c.settled_at).toBe(ts(midnight(1)));
    expect(c.child_transactions[0]).toMatchObject({ type: "capture", settled_at: ts(midnight(1)) });
    expect(o.settled_at).toBeNull();
    expect(v.settled_at).toBeNull();
    const [deposit] = (await deposits()).data;
    expect(deposit).toMatchObject({ count: 1, gross: 25, fees: 1.03, net: 23.97 });
    const items = (await detail(deposit.batch_id)).data;
    expect(items.map((t: any) => [t.id, t.type])).toEqual([[c.child_transactions[0].id, "capture"]]);
  });

  test("a refund enters the deposit of the batch it settles in, without a fee, and the sale's fee stays", async () => {
    const sale = await pay(100);
    await goTo(midnight(1) + HOUR);
    await ctx.call("POST", `/transaction/${sale.id}/refund`, { body: { total: 40 } });
    await goTo(midnight(3) + 1000);
    const list = (await deposits()).data.sort((a: any, b: any) => a.settled_at.localeCompare(b.settled_at));
    expect(list.map((d: any) => [d.settled_at, d.count, d.gross, d.refunds, d.fees, d.net])).toEqual([
      [ts(midnight(1)), 1, 100, 0, 3.2, 96.8],
      [ts(midnight(2)), 1, 0, 40, 0, -40],
    ]);
    const refund = (await get(sale.id)).child_transactions[0];
    expect(refund).toMatchObject({ type: "refund", settled_at: ts(midnight(2)), batch_id: list[1].batch_id });
    expect((await detail(list[1].batch_id)).data[0]).toMatchObject({ id: refund.id, fee: 0, net: -40 });
  });
});

describe("ACH settlement", () => {
  test("settles after ach_settlement_days business days (default 2): a Monday payment when Wednesday ends", async () => {
    const debit = await pay(100, "bank");
    await goTo(midnight(3) - 1000);
    expect(await get(debit.id)).toMatchObject({ settled_at: null, is_voidable: true, is_refundable: false });
    expect((await ctx.call("POST", `/transaction/${debit.id}/refund`)).body.message).toBe(
      STATE_MESSAGES.refundUnsettled(debit.id),
    );
    await advance(2);
    const settled = await get(debit.id);
    expect(settled).toMatchObject({ settled_at: ts(midnight(3)), is_refundable: true, is_voidable: false });
    // ACH funds are available when they settle: the deposit lands at once, 0.8% fee.
    expect((await deposits()).data).toEqual([
      expect.objectContaining({
        batch_id: settled.batch_id,
        method: "bank",
        settled_at: ts(midnight(3)),
        deposit_date: date(midnight(3)),
        deposited_at: ts(midnight(3)),
        gross: 100,
        fees: 0.8,
        net: 99.2,
      }),
    ]);
  });

  test("weekends are not business days: a Friday payment settles when Tuesday ends", async () => {
    await goTo(monday + 4 * DAY);
    const debit = await pay(10, "bank");
    // Friday is day 4; Monday (7) and Tuesday (8) are its two business days; Tuesday ends at midnight(9).
    expect(new Date(midnight(8)).getUTCDay()).toBe(2);
    await goTo(midnight(9) - 1000);
    expect((await get(debit.id)).settled_at).toBeNull();
    await goTo(midnight(9) + 1000);
    expect((await get(debit.id)).settled_at).toBe(ts(midnight(9)));
  });

  test("the merchant's ach_settlement_days is honoured (0: the next midnight)", async () => {
    const res = await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
      body: { ach_settlement_days: 0 },
    });
    expect(res.status).toBe(200);
    const debit = await pay(10, "bank");
    await goTo(midnight(1) + 1000);
    expect((await get(debit.id)).settled_at).toBe(ts(midnight(1)));
  });

  test("the ACH fee is capped at 5.00 per sale", async () => {
    await pay(1000, "bank");
    await pay(400, "bank");
    await goTo(midnight(3) + 1000);
    const [deposit] = (await deposits()).data;
    expect(deposit).toMatchObject({ count: 2, gross: 1400, fees: 8.2, net: 1391.8 });
    expect((await detail(deposit.batch_id)).data.map((t: any) => t.fee)).toEqual([5, 3.2]);
  });
});

describe("settlement events and time order", () => {
  test("settling emits update_transaction_settled per transaction, then create_deposit with the deposit record", async () => {
    const card = await pay(10);
    const bank = await pay(20, "bank");
    events.length = 0;
    await goTo(midnight(3) + 1000);
    const names = events.map((e) => [e.name, e.record.id]);
    const cardDeposit = (await deposits()).data.find((d: any) => d.method === "card");
    const bankDeposit = (await deposits()).data.find((d: any) => d.method === "bank");
    expect(names).toEqual([
      ["update_transaction_settled", card.id],
      ["create_deposit", cardDeposit.id],
      ["update_transaction_settled", bank.id],
      ["create_deposit", bankDeposit.id],
    ]);
    expect(events[0]!.record).toMatchObject({ settled_at: ts(midnight(1)), batch_id: cardDeposit.batch_id });
    expect(events[1]!.record).toEqual(cardDeposit);
  });

  test("one long advance runs each crossed midnight in turn, exactly as day-by-day advances do", async () => {
    const stops: string[] = [];
    ctx.deps.clock.onTick((merchantId, now) => {
      if (merchantId === ctx.merchantId) stops.push(ts(now.getTime()).slice(0, 13));
    });
    await pay(10);
    await goTo(midnight(4) + HOUR);
    expect(stops).toEqual(
      [1, 2, 3, 4].map((d) => ts(midnight(d)).slice(0, 13)).concat(ts(midnight(4) + HOUR).slice(0, 13)),
    );
    const [deposit] = (await deposits()).data;
    expect(deposit).toMatchObject({ settled_at: ts(midnight(1)), deposited_at: ts(midnight(2)) });
  });

  test("a job that fails during an advance leaves the clock at its target, and the next tick catches up", async () => {
    const sale = await pay(10);
    let failures = 1;
    const remove = ctx.deps.clock.onTick(() => {
      if (failures-- > 0) throw new Error("a failing job");
    });
    const target = midnight(2) + HOUR;
    expect(
      ctx.deps.clock.advance(ctx.merchantId, target - ctx.deps.clock.now(ctx.merchantId).getTime()),
    ).rejects.toThrow("a failing job");
    remove();
    expect(Math.abs(ctx.deps.clock.now(ctx.merchantId).getTime() - target)).toBeLessThan(5000);
    await ctx.deps.clock.tick();
    expect(await get(sale.id)).toMatchObject({ settled_at: ts(midnight(1)) });
    expect((await deposits()).data[0]).toMatchObject({ deposited_at: ts(midnight(2)) });
  });

  test("jobs run on real time while the server is up, through the clock worker", async () => {
    const { SandboxClock } = await import("../../src/services/clock");
    const { openTestDatabase } = await import("../support/database");
    const { buildDeps, composeApp } = await import("../../src/entry/app");
    let fakeNow = monday;
    const db = await openTestDatabase();
    const deps = await buildDeps({ db, clock: new SandboxClock(db, () => fakeNow), log: ctx.log });
    const app = composeApp(deps);
    const merchant = await deps.services.merchants.getDefault();
    const call = (method: string, path: string, body?: unknown, auth = merchant.api_key) =>
      app
        .handle(
          new Request(`http://localhost${path}`, {
            method,
            headers: { "content-type": "application/json", authorization: `Bearer ${auth}` },
            body: body === undefined ? undefined : JSON.stringify(body),
          }),
        )
        .then((r) => r.json() as Promise<any>);
    const pm = await call("POST", `/webpayment/${merchant.web_payments_token}/tokenize`, {
      method: "card",
      card_number: "4111111111111111",
      card_cvv: "123",
      card_exp: "1230",
      person_name: "Ada Lovelace",
      phone: "5555550100",
      address_1: "1 Way",
      address_city: "London",
      address_state: "LN",
      address_zip: "32822",
    });
    const sale = await call("POST", "/charge", { payment_method_id: pm.id, total: 10 });
    const worker = deps.workers.find((w) => w.name === "clock")!;
    worker.start();
    try {
      fakeNow = midnight(1) + 500;
      const settled = await waitFor(
        async () => (await call("GET", `/transaction/${sale.id}`)).settled_at,
        5000,
        "settled_at",
      );
      expect(settled).toBe(ts(midnight(1)));
    } finally {
      await worker.stop();
    }
  });
});
