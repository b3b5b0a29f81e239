/**
 * The real service's events for records the sandbox has (issue 28): create_payment_method on
 * tokenize and POST /payment-method, create_webhook and delete_webhook — into a real receiver.
 */
import { describe, expect, test } from "bun:test";
import { BANK, CARD, tokenize, waitFor, type TestContext } from "../support/app";
import { webhookHarness } from "../support/webhook-harness";
import type { Receiver } from "../support/webhook-receiver";

const { start, receiver } = webhookHarness();

async function subscribe(c: TestContext, url: string, event = "*") {
  const res = await c.call("POST", "/webhook", { body: { target_url: url, event } });
  expect(res.status).toBe(200);
  return res.body;
}

const named = (r: Receiver, event: string) => r.delivered().filter((x) => x.event === event);

describe("create_payment_method", () => {
  test("tokenize and POST /payment-method each send the payment method's record, after its customer", async () => {
    const c = await start();
    const r = receiver();
    await subscribe(c, r.url);
    const emitted: string[] = [];
    c.deps.events.on((_ex, event) => void emitted.push(event.name));
    const card = await tokenize(c);
    const customer = (await c.call("POST", "/customer", { body: { firstname: "Bo", email: "bo@example.com" } })).body;
    const bank = await c.call("POST", "/payment-method", { body: { ...BANK, customer_id: customer.id } });
    expect(bank.status).toBe(200);
    await waitFor(() => named(r, "create_payment_method").length === 2, 5000, "two create_payment_method");
    // Different records' deliveries are independent: found by id, not by arrival.
    const sent = (id: string) => named(r, "create_payment_method").find((x) => x.json.id === id)?.json;
    expect(sent(card.id)).toEqual((await c.call("GET", `/payment-method/${card.id}`)).body);
    expect(sent(bank.body.id)).toEqual((await c.call("GET", `/payment-method/${bank.body.id}`)).body);
    // The new customer is announced first; the card number is in no body.
    expect(emitted).toEqual(["create_customer", "create_payment_method", "create_customer", "create_payment_method"]);
    for (const x of r.delivered()) expect(x.raw).not.toContain(CARD.card_number);
  });
});

describe("create_webhook and delete_webhook", () => {
  test("the merchant's other webhooks hear of a webhook created and deleted; it never hears of itself", async () => {
    const c = await start();
    const watcher = receiver();
    const other = receiver();
    const watching = await subscribe(c, watcher.url, "*");
    const added = await subscribe(c, other.url, "*");
    await waitFor(() => named(watcher, "create_webhook").length === 1, 5000, "create_webhook");
    expect(named(watcher, "create_webhook")[0]!.json).toEqual((await c.call("GET", `/webhook/${added.id}`)).body);

    expect((await c.call("DELETE", `/webhook/${added.id}`)).status).toBe(200);
    await waitFor(() => named(watcher, "delete_webhook").length === 1, 5000, "delete_webhook");
    const deleted = named(watcher, "delete_webhook")[0]!.json;
    expect(deleted.id).toBe(added.id);
    expect(deleted.deleted_at).not.toBeNull();

    // Deleting the watcher tells nobody left; a new webhook's own creation is not sent to it.
    expect((await c.call("DELETE", `/webhook/${watching.id}`)).status).toBe(200);
    const late = receiver();
    await subscribe(c, late.url, "create_webhook");
    await tokenize(c);
    await c.call("POST", "/_sandbox/clock/advance", { body: { seconds: 3600 } });
    expect(other.received).toEqual([]);
    expect(late.received).toEqual([]);
    expect(named(watcher, "delete_webhook")).toHaveLength(1);
    const log = (await c.call("GET", `/webhook/${watching.id}/deliveries`)).body.data;
    expect(log.map((d: { event: string }) => d.event).sort()).toEqual(["create_webhook", "delete_webhook"]);
  });
});
