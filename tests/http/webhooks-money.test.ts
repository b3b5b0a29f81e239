/**
 * Money movement as a webhook receiver sees it: voids, captures and refunds arrive as
 * update_transaction on the parent with the new child, ACH settlement as
 * update_transaction_settled and card deposits as create_deposit — signed, in order per record.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { startWorkers, stopWorkers } from "../../src/entry/app";
import { verifyPaySandboxSignature } from "../../packages/webhooks/verify";
import { BANK, setup, tokenize, waitFor, type TestContext } from "../support/app";
import { startReceiver, type Receiver } from "../support/webhook-receiver";

let ctx: TestContext | undefined;
let receiver: Receiver | undefined;

afterEach(async () => {
  if (ctx) await stopWorkers(ctx.deps);
  await receiver?.stop();
  ctx = undefined;
  receiver = undefined;
});

async function start(): Promise<{ c: TestContext; r: Receiver; secret: string }> {
  const c = (ctx = await setup());
  const r = (receiver = startReceiver());
  startWorkers(c.deps);
  expect((await c.call("POST", "/webhook", { body: { target_url: r.url, event: "*" } })).status).toBe(200);
  const secret = (await c.call("GET", "/self")).body.webhook_secret;
  return { c, r, secret };
}

/** The events the receiver got for one record, in arrival order, once `count` have arrived. */
async function eventsFor(r: Receiver, id: string, count: number) {
  await waitFor(() => r.delivered().filter((x) => x.json?.id === id).length >= count, 5000, `${count} events`);
  return r.delivered().filter((x) => x.json?.id === id);
}

const advanceDays = (c: TestContext, days: number) =>
  c.call("POST", "/_sandbox/clock/advance", { body: { seconds: days * 86_400 } });

describe("money movement webhooks", () => {
  test("a void arrives as update_transaction on the parent with the void child, after its create_transaction", async () => {
    const { c, r, secret } = await start();
    const pm = await tokenize(c);
    const sale = await c.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 20 } });
    expect(sale.status).toBe(200);
    const voided = await c.call("POST", `/transaction/${sale.body.id}/void`, { body: {} });
    expect(voided.status).toBe(200);

    const got = await eventsFor(r, sale.body.id, 2);
    expect(got.map((x) => x.event)).toEqual(["create_transaction", "update_transaction"]);
    const update = got[1]!.json;
    expect(update.is_voided).toBe(true);
    expect(update.child_transactions.map((t: { type: string }) => t.type)).toEqual(["void"]);
    expect(update).toEqual((await c.call("GET", `/transaction/${sale.body.id}`)).body);
    for (const x of got) expect(verifyPaySandboxSignature(x.raw, x.headers, secret)).toBe(true);
  });

  test("a capture arrives as update_transaction on the pre_auth with the capture child", async () => {
    const { c, r } = await start();
    const pm = await tokenize(c);
    const auth = await c.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 30, pre_auth: true } });
    expect(auth.status).toBe(200);
    const captured = await c.call("POST", `/transaction/${auth.body.id}/capture`, { body: { total: 25 } });
    expect(captured.status).toBe(200);
    const got = await eventsFor(r, auth.body.id, 2);
    expect(got.map((x) => x.event)).toEqual(["create_transaction", "update_transaction"]);
    expect(got[1]!.json.is_captured).toBe(true);
    const children = got[1]!.json.child_transactions;
    expect(children.map((t: { type: string; total: number }) => [t.type, t.total])).toEqual([["capture", 25]]);
  });

  test("a card sale settles into a deposit (create_deposit) and a refund arrives as update_transaction with the refund child", async () => {
    const { c, r } = await start();
    const pm = await tokenize(c);
    const sale = await c.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 40 } });
    expect(sale.status).toBe(200);
    expect((await advanceDays(c, 3)).status).toBe(200);
    await waitFor(() => r.delivered().some((x) => x.event === "create_deposit"), 5000, "create_deposit");

    const refund = await c.call("POST", `/transaction/${sale.body.id}/refund`, { body: { total: 15 } });
    expect(refund.status).toBe(200);
    await waitFor(
      () => r.delivered().some((x) => x.event === "update_transaction" && x.json.id === sale.body.id),
      5000,
      "the refund's update_transaction",
    );
    const got = r.delivered().filter((x) => x.json.id === sale.body.id);
    const last = got[got.length - 1]!;
    expect(got[0]!.event).toBe("create_transaction");
    expect(last.event).toBe("update_transaction");
    expect(last.json.total_refunded).toBe(15);
    expect(last.json.child_transactions.map((t: { type: string }) => t.type)).toContain("refund");
  });

  test("ACH settlement arrives as update_transaction_settled with settled_at set", async () => {
    const { c, r } = await start();
    const pm = await tokenize(c, BANK);
    const sale = await c.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 50 } });
    expect(sale.status).toBe(200);
    expect(sale.body.settled_at).toBeNull();
    expect((await advanceDays(c, 7)).status).toBe(200);
    await waitFor(
      () => r.delivered().some((x) => x.event === "update_transaction_settled" && x.json.id === sale.body.id),
      5000,
      "update_transaction_settled",
    );
    const got = r.delivered().filter((x) => x.json.id === sale.body.id);
    expect(got[0]!.event).toBe("create_transaction");
    const settled = got.find((x) => x.event === "update_transaction_settled")!;
    expect(settled.json.settled_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });
});
