import { beforeEach, describe, expect, test } from "bun:test";
import { STATE_MESSAGES } from "../../src/services/transactions";
import type { SandboxEvent } from "../../src/domain/events";
import { BANK, charge, otherMerchant, setup, tokenize, type TestContext } from "../support/app";

let ctx: TestContext;
let events: SandboxEvent[];
beforeEach(async () => {
  ctx = await setup();
  events = [];
  ctx.deps.events.on((_ex, event) => void events.push(event));
});

const DECLINED_VISA = "4012888888881881";

async function approved(total: number | string = 10, overrides: Record<string, unknown> = {}) {
  const res = await charge(ctx, total, overrides);
  expect(res.status).toBe(200);
  return res.body;
}

async function preAuth(total: number | string = 10) {
  const pm = await tokenize(ctx);
  const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total, pre_auth: true } });
  expect(res.status).toBe(200);
  return res.body;
}

/** Moves the sandbox clock a day ahead: every card transaction made so far settles. */
async function nextDay() {
  const res = await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds: 86_400 } });
  expect(res.status).toBe(200);
}

const post = (id: string, action: string, body?: unknown, headers?: Record<string, string>) =>
  ctx.call("POST", `/transaction/${id}/${action}`, { body, headers });
const get = async (id: string) => (await ctx.call("GET", `/transaction/${id}`)).body;

function expectInvalidState(res: { status: number; body: any }, message: string) {
  expect(res.status).toBe(422);
  expect(res.body).toEqual({ code: "invalid_state", message });
}

function expectTotalError(res: { status: number; body: any }, message: string) {
  expect(res.status).toBe(422);
  expect(res.body).toMatchObject({ code: "validation_error", message, errors: { total: [message] } });
}

describe("POST /transaction/{id}/capture", () => {
  test("captures a pre_auth in full: a capture child, and the parent shows is_captured", async () => {
    const auth = await preAuth(25);
    expect(auth).toMatchObject({ type: "pre_auth", pre_auth: true, is_captured: false, is_voidable: true });
    const res = await post(auth.id, "capture");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: auth.id, type: "pre_auth", is_captured: true, is_refundable: false });
    expect(res.body.child_transactions).toHaveLength(1);
    expect(res.body.child_transactions[0]).toMatchObject({
      type: "capture",
      parent_id: auth.id,
      success: true,
      total: 25,
      method: "card",
      last_four: "1111",
      is_refundable: false,
      is_voidable: false,
    });
    expect(await get(auth.id)).toEqual(res.body);
  });

  test("captures less than the authorized amount, and only once", async () => {
    const auth = await preAuth(25);
    const res = await post(auth.id, "capture", { total: "10.50" });
    expect(res.status).toBe(200);
    expect(res.body.child_transactions[0].total).toBe(10.5);
    expectInvalidState(await post(auth.id, "capture", { total: 1 }), STATE_MESSAGES.alreadyCaptured);
    expect((await get(auth.id)).child_transactions).toHaveLength(1);
  });

  test("capturing exactly the authorized amount works; one cent more is a 422 on total", async () => {
    const over = await preAuth(25);
    expectTotalError(await post(over.id, "capture", { total: 25.01 }), STATE_MESSAGES.captureTooMuch("25.00"));
    expect(await get(over.id)).toMatchObject({ is_captured: false, child_transactions: [] });
    const res = await post(over.id, "capture", { total: 25 });
    expect(res.status).toBe(200);
    expect(res.body.child_transactions[0].total).toBe(25);
  });

  test("a charge, a failed pre_auth or a voided pre_auth cannot be captured", async () => {
    const sale = await approved(10);
    expectInvalidState(await post(sale.id, "capture"), STATE_MESSAGES.captureNotPreAuth);

    const pm = await tokenize(ctx, { card_number: DECLINED_VISA });
    const declined = await ctx.call("POST", "/charge", {
      body: { payment_method_id: pm.id, total: 5, pre_auth: true },
    });
    expect(declined.status).toBe(402);
    expectInvalidState(await post(declined.body.transaction.id, "capture"), STATE_MESSAGES.failed("capture"));

    const auth = await preAuth(10);
    expect((await post(auth.id, "void")).status).toBe(200);
    expectInvalidState(await post(auth.id, "capture"), STATE_MESSAGES.voided("capture"));
  });

  test("bad totals are 422s that write nothing", async () => {
    const auth = await preAuth(10);
    for (const total of ["abc", 0, -1, 1.001, null]) {
      const res = await post(auth.id, "capture", { total });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe("validation_error");
      expect(res.body.errors.total).toBeDefined();
    }
    expect(await get(auth.id)).toMatchObject({ is_captured: false, child_transactions: [] });
  });
});

describe("POST /transaction/{id}/void", () => {
  test("voids an unsettled charge in full: a void child, and the parent is voided and no longer voidable", async () => {
    const sale = await approved(42.5);
    expect(sale).toMatchObject({ is_voidable: true, is_refundable: false, is_voided: false });
    const res = await post(sale.id, "void");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: sale.id, is_voided: true, is_voidable: false, is_refundable: false });
    expect(res.body.child_transactions).toHaveLength(1);
    expect(res.body.child_transactions[0]).toMatchObject({
      type: "void",
      total: 42.5,
      success: true,
      parent_id: sale.id,
    });
  });

  test("a total other than the full amount is refused rather than voided in full", async () => {
    const sale = await approved(10);
    expectTotalError(await post(sale.id, "void", { total: 4 }), STATE_MESSAGES.voidPartial("10.00"));
    expect(await get(sale.id)).toMatchObject({ is_voided: false, child_transactions: [] });
    expect((await post(sale.id, "void", { total: "10.00" })).body.is_voided).toBe(true);
  });

  test("voids an unsettled bank payment", async () => {
    const res = await charge(ctx, 30, BANK);
    expect((await post(res.body.id, "void")).body).toMatchObject({ is_voided: true, method: "bank" });
  });

  test("a voided transaction never settles and cannot be voided or refunded again", async () => {
    const sale = await approved(10);
    await post(sale.id, "void");
    expectInvalidState(await post(sale.id, "void"), STATE_MESSAGES.voided("void"));
    await nextDay();
    const after = await get(sale.id);
    expect(after).toMatchObject({ settled_at: null, batch_id: null, is_refundable: false });
    expectInvalidState(await post(sale.id, "refund"), STATE_MESSAGES.voided("refund"));
    expect(after.child_transactions).toHaveLength(1);
  });

  test("a settled transaction cannot be voided: the 422 says to refund instead", async () => {
    const sale = await approved(10);
    await nextDay();
    expectInvalidState(await post(sale.id, "void"), STATE_MESSAGES.voidSettled(sale.id));
    expect(STATE_MESSAGES.voidSettled(sale.id)).toContain("refund");
  });

  test("a failed charge cannot be voided", async () => {
    const res = await charge(ctx, 10, { card_number: DECLINED_VISA });
    expect(res.status).toBe(402);
    expect(res.body.transaction).toMatchObject({ is_voidable: false, is_refundable: false });
    expectInvalidState(await post(res.body.transaction.id, "void"), STATE_MESSAGES.failed("void"));
  });

  test("voiding a captured pre_auth voids its capture too, for the captured amount", async () => {
    const auth = await preAuth(20);
    await post(auth.id, "capture", { total: 15 });
    const res = await post(auth.id, "void");
    expect(res.status).toBe(200);
    const [capture, voided] = res.body.child_transactions;
    expect(capture).toMatchObject({ type: "capture", is_voided: true });
    expect(voided).toMatchObject({ type: "void", total: 15 });
    await nextDay();
    expect(await get(auth.id)).toMatchObject({ settled_at: null });
  });

  test("an uncaptured pre_auth is voided for its full amount (the authorization is released)", async () => {
    const auth = await preAuth(20);
    const res = await post(auth.id, "void");
    expect(res.body.child_transactions[0]).toMatchObject({ type: "void", total: 20 });
  });
});

describe("POST /transaction/{id}/refund", () => {
  test("before settlement it is a 422 invalid_state that says to void instead", async () => {
    const sale = await approved(10);
    const res = await post(sale.id, "refund");
    expectInvalidState(res, STATE_MESSAGES.refundUnsettled(sale.id));
    expect(res.body.message).toContain("void it instead");
    expect(await get(sale.id)).toMatchObject({ total_refunded: 0, child_transactions: [] });
  });

  test("refunds part of a settled charge, then exactly the remainder; nothing more", async () => {
    const sale = await approved(100);
    await nextDay();
    expect(await get(sale.id)).toMatchObject({ is_refundable: true, is_voidable: false });

    const first = await post(sale.id, "refund", { total: 30.25 });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total_refunded: 30.25, is_refundable: true, is_voidable: false });
    expect(first.body.child_transactions[0]).toMatchObject({ type: "refund", total: 30.25, parent_id: sale.id });

    expectTotalError(await post(sale.id, "refund", { total: 69.76 }), STATE_MESSAGES.refundTooMuch("69.75"));

    const rest = await post(sale.id, "refund", { total: 69.75 });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ total_refunded: 100, is_refundable: false, is_voidable: false });
    expect(rest.body.child_transactions.map((c: { total: number }) => c.total)).toEqual([30.25, 69.75]);

    expectInvalidState(await post(sale.id, "refund", { total: 0.01 }), STATE_MESSAGES.fullyRefunded);
    expectInvalidState(await post(sale.id, "refund"), STATE_MESSAGES.fullyRefunded);
  });

  test("without a total it refunds all that remains", async () => {
    const sale = await approved(12.34);
    await nextDay();
    await post(sale.id, "refund", { total: 2 });
    const res = await post(sale.id, "refund");
    expect(res.body.child_transactions[1].total).toBe(10.34);
    expect(res.body).toMatchObject({ total_refunded: 12.34, is_refundable: false });
  });

  test("one cent over the whole amount is refused, and nothing is written", async () => {
    const sale = await approved(10);
    await nextDay();
    expectTotalError(await post(sale.id, "refund", { total: "10.01" }), STATE_MESSAGES.refundTooMuch("10.00"));
    expect(await get(sale.id)).toMatchObject({ total_refunded: 0, child_transactions: [] });
  });

  test("a failed charge cannot be refunded", async () => {
    const res = await charge(ctx, 10, { card_number: DECLINED_VISA });
    await nextDay();
    expectInvalidState(await post(res.body.transaction.id, "refund"), STATE_MESSAGES.failed("refund"));
  });

  test("a refund, capture or void child is not itself operable: the 422 points to the original", async () => {
    const sale = await approved(10);
    await nextDay();
    const refunded = await post(sale.id, "refund", { total: 1 });
    const child = refunded.body.child_transactions[0];
    expectInvalidState(await post(child.id, "refund"), STATE_MESSAGES.child("refund", sale.id, "refund"));
    expectInvalidState(await post(child.id, "void"), STATE_MESSAGES.child("refund", sale.id, "void"));
  });

  test("a captured pre_auth is refundable after settlement, up to the captured amount", async () => {
    const auth = await preAuth(50);
    await post(auth.id, "capture", { total: 40 });
    expectInvalidState(await post(auth.id, "refund"), STATE_MESSAGES.refundUnsettled(auth.id));
    await nextDay();
    const settled = await get(auth.id);
    expect(settled).toMatchObject({ is_refundable: true, is_voidable: false });
    expect(settled.settled_at).not.toBeNull();
    expect(settled.child_transactions[0].settled_at).toBe(settled.settled_at);
    expectTotalError(await post(auth.id, "refund", { total: 40.01 }), STATE_MESSAGES.refundTooMuch("40.00"));
    expect((await post(auth.id, "refund")).body).toMatchObject({ total_refunded: 40, is_refundable: false });
  });

  test("an uncaptured pre_auth has nothing to refund: the 422 says to void it", async () => {
    const auth = await preAuth(50);
    await nextDay();
    expectInvalidState(await post(auth.id, "refund"), STATE_MESSAGES.refundUncaptured(auth.id));
    expect(await get(auth.id)).toMatchObject({ settled_at: null, is_voidable: true });
  });

  test("an Idempotency-Key replays the same refund instead of refunding twice", async () => {
    const sale = await approved(10);
    await nextDay();
    const headers = { "idempotency-key": "refund-once" };
    const first = await post(sale.id, "refund", { total: 4 }, headers);
    const again = await post(sale.id, "refund", { total: 4 }, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await get(sale.id)).toMatchObject({ total_refunded: 4 });
    expect((await post(sale.id, "refund", { total: 5 }, headers)).status).toBe(409);
  });
});

describe("POST /transaction/{id}/void-or-refund", () => {
  test("voids before settlement and refunds after", async () => {
    const early = await approved(10);
    const voided = await post(early.id, "void-or-refund");
    expect(voided.body).toMatchObject({ is_voided: true, total_refunded: 0 });
    expect(voided.body.child_transactions[0].type).toBe("void");

    const late = await approved(10);
    await nextDay();
    const refunded = await post(late.id, "void-or-refund", { total: 2.5 });
    expect(refunded.body).toMatchObject({ is_voided: false, total_refunded: 2.5 });
    expect(refunded.body.child_transactions[0]).toMatchObject({ type: "refund", total: 2.5 });
  });

  test("before settlement a partial amount is refused, since a void is always in full", async () => {
    const sale = await approved(10);
    expectTotalError(await post(sale.id, "void-or-refund", { total: 5 }), STATE_MESSAGES.voidPartial("10.00"));
    expect((await post(sale.id, "void-or-refund", { total: 10 })).body.is_voided).toBe(true);
  });

  test("a failed or voided transaction is refused", async () => {
    const declined = await charge(ctx, 10, { card_number: DECLINED_VISA });
    expectInvalidState(await post(declined.body.transaction.id, "void-or-refund"), STATE_MESSAGES.failed("refund"));
    const sale = await approved(10);
    await post(sale.id, "void");
    expectInvalidState(await post(sale.id, "void-or-refund"), STATE_MESSAGES.voided("refund"));
  });
});

describe("money routes: access and events", () => {
  test("another merchant's transaction is a 404, and unknown ids are 404s", async () => {
    const sale = await approved(10);
    const other = await otherMerchant(ctx);
    for (const action of ["capture", "void", "refund", "void-or-refund"]) {
      const res = await ctx.call("POST", `/transaction/${sale.id}/${action}`, { auth: other.api_key });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("not_found");
      expect((await post("no-such-id", action)).status).toBe(404);
    }
    expect(await get(sale.id)).toMatchObject({ is_voided: false, child_transactions: [] });
  });

  test("no API key is a 401 and the public web payments token a 403", async () => {
    const sale = await approved(10);
    expect((await ctx.call("POST", `/transaction/${sale.id}/void`, { auth: false })).status).toBe(401);
    expect((await ctx.call("POST", `/transaction/${sale.id}/void`, { auth: ctx.token })).status).toBe(403);
    expect(await get(sale.id)).toMatchObject({ is_voided: false });
  });

  test("the events carry the parent with its new child, in order, for every operation", async () => {
    const auth = await preAuth(30);
    const sale = await approved(10);
    events.length = 0;
    await post(auth.id, "capture");
    await post(sale.id, "void");
    await nextDay();
    await post(auth.id, "refund", { total: 5 });
    const updates = events
      .filter((e) => e.name === "update_transaction")
      .map((e) => {
        const record = e.record as any;
        return { id: record.id, child: record.child_transactions.at(-1).type, count: record.child_transactions.length };
      });
    expect(updates).toEqual([
      { id: auth.id, child: "capture", count: 1 },
      { id: sale.id, child: "void", count: 1 },
      { id: auth.id, child: "refund", count: 2 },
    ]);
    // No child is announced as a transaction of its own.
    expect(events.filter((e) => e.name === "create_transaction")).toHaveLength(0);
  });
});

describe("money routes under arbitrary input", () => {
  test("any body or id gets a 2xx or a 4xx in the error envelope, never a 5xx", async () => {
    const fc = await import("fast-check");
    const sale = await approved(50);
    const auth = await preAuth(50);
    const ids = fc.constantFrom(sale.id, auth.id, "nope", "%20", "../charge", "x".repeat(300));
    const actions = fc.constantFrom("capture", "void", "refund", "void-or-refund");
    const totals = fc.oneof(
      fc.double(),
      fc.integer(),
      fc.string(),
      fc.constantFrom("1e400", "0.001", "-0", "99999999.99", "100000000", " 5 ", "", null, true, [], {}),
    );
    const bodies = fc.oneof(
      fc.record({ total: totals }, { requiredKeys: [] }),
      fc.record({ total: totals, idempotency_id: fc.string() }),
      fc.jsonValue(),
    );
    await fc.assert(
      fc.asyncProperty(ids, actions, bodies, async (id, action, body) => {
        const res = await ctx.call("POST", `/transaction/${encodeURIComponent(id)}/${action}`, { body });
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(typeof res.body.message).toBe("string");
      }),
      { numRuns: 150 },
    );
    // Whatever happened, the money adds up.
    for (const id of [sale.id, auth.id]) {
      const record = await get(id);
      expect(record.total_refunded).toBeLessThanOrEqual(record.total);
    }
  });
});
