/**
 * What the dashboard's webhook and key controls stand on, through the API: editing, disabling
 * and test-firing an endpoint, the headers an attempt logs, regenerating keys, and attempt
 * timestamps that stay on the event's timeline when the sandbox clock is advanced.
 */
import { describe, expect, test } from "bun:test";
import { parseTimestamp } from "../../src/domain/time";
import { verifyPaySandboxSignature } from "../../packages/webhooks/verify";
import { charge, setup, waitFor, type TestContext } from "../support/app";
import { webhookHarness } from "../support/webhook-harness";

const { start, receiver } = webhookHarness();

async function subscribe(c: TestContext, target_url: string, event = "*") {
  const res = await c.call("POST", "/webhook", { body: { target_url, event } });
  expect(res.status).toBe(200);
  return res.body as { id: string; disabled_at: string | null };
}

describe("managing a webhook endpoint", () => {
  test("PUT /webhook/{id} changes the URL and event; a bad URL is a 422 naming the field and changes nothing", async () => {
    const c = await setup();
    const hook = await subscribe(c, "https://example.com/a", "create_transaction");
    const edited = await c.call("PUT", `/webhook/${hook.id}`, {
      body: { target_url: "https://example.com/b", event: "update_transaction" },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ target_url: "https://example.com/b", event: "update_transaction" });
    const bad = await c.call("PUT", `/webhook/${hook.id}`, { body: { target_url: "ftp://example.com" } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.target_url).toBeArray();
    expect((await c.call("GET", `/webhook/${hook.id}`)).body.target_url).toBe("https://example.com/b");
    const unknownEvent = await c.call("PUT", `/webhook/${hook.id}`, { body: { event: "nope" } });
    expect(unknownEvent.status).toBe(422);
    expect(unknownEvent.body.errors.event).toBeArray();
  });

  test("a disabled webhook receives nothing new; enabled again, it receives the next event", async () => {
    const c = await start();
    const r = receiver();
    const hook = await subscribe(c, r.url, "create_transaction");
    const off = await c.call("PUT", `/webhook/${hook.id}`, { body: { disabled: true } });
    expect(off.status).toBe(200);
    expect(off.body.disabled_at).toBeString();
    expect((await charge(c, 5)).status).toBe(200);
    const none = await c.call("GET", `/webhook/${hook.id}/deliveries`);
    expect(none.body.total).toBe(0);
    const test = await c.call("POST", `/webhook/${hook.id}/test`);
    expect(test.status).toBe(422);
    const on = await c.call("PUT", `/webhook/${hook.id}`, { body: { disabled: false } });
    expect(on.body.disabled_at).toBeNull();
    const paid = await charge(c, 6);
    await waitFor(() => r.delivered().length === 1, 5000, "the delivery after enabling");
    expect(r.delivered()[0]!.json.id).toBe(paid.body.id);
  });

  test("a test event is signed like every other and its attempt logs the request and response headers", async () => {
    const c = await start();
    const r = receiver();
    const hook = await subscribe(c, r.url, "create_invoice");
    const sent = await c.call("POST", `/webhook/${hook.id}/test`);
    expect(sent.status).toBe(200);
    expect(sent.body.event).toBe("test");
    expect(sent.body.status).toBe("pending"); // the delivery as created, however fast the receiver answers
    await waitFor(() => r.delivered().length === 1, 5000, "the test delivery");
    const got = r.delivered()[0]!;
    expect(got.event).toBe("test");
    expect(got.json.test).toBe(true);
    const secret = (await c.call("GET", "/self")).body.webhook_secret;
    expect(verifyPaySandboxSignature(got.raw, got.headers, secret)).toBe(true);
    const delivery = await waitFor(async () => {
      const d = (await c.call("GET", `/_sandbox/webhook-deliveries/${sent.body.id}`)).body;
      return d.status === "delivered" ? d : null;
    });
    const attempt = delivery.attempt_log[0];
    expect(attempt.request_headers["PaySandbox-Signature"]).toBe(got.signature);
    expect(attempt.request_headers["PaySandbox-Event-Name"]).toBe("test");
    expect(attempt.response_headers["content-type"]).toContain("text/plain");
  });
});

describe("attempt timestamps and the sandbox clock", () => {
  test("a retry the clock advance jumps over is stamped when it fell due, not a day later", async () => {
    const c = await start();
    // The first attempt fails; the retry falls due 10 s later, and a one-day advance jumps over it.
    const r = receiver((_, n) => (n === 1 ? 500 : 200));
    await subscribe(c, r.url, "create_customer");
    const created = await c.call("POST", "/customer", { body: { firstname: "Ada", email: "ada@example.com" } });
    expect(created.status).toBe(200);
    await waitFor(() => r.received.length === 1, 5000, "the first attempt");
    const first = await waitFor(async () => {
      const d = (await c.call("GET", "/_sandbox/webhook-deliveries")).body.data[0];
      return d?.attempts === 1 ? d : null;
    });
    await c.deps.clock.advance(c.merchantId, 86_400_000);
    const delivery = await waitFor(async () => {
      const d = (await c.call("GET", `/_sandbox/webhook-deliveries/${first.id}`)).body;
      return d.status === "delivered" ? d : null;
    });
    const eventAt = parseTimestamp(created.body.created_at).getTime();
    const [a1, a2] = delivery.attempt_log.map((a: { started_at: string }) => parseTimestamp(a.started_at).getTime());
    expect(a1 - eventAt).toBeLessThan(60_000);
    // Due 10 s after the first attempt; a minute of slack for a loaded machine, far from the day jumped.
    expect(a2 - a1).toBeGreaterThanOrEqual(10_000);
    expect(a2 - a1).toBeLessThan(70_000);
    expect(parseTimestamp(delivery.delivered_at).getTime() - a1).toBeLessThan(70_000);
  });
});

describe("regenerating a merchant's keys", () => {
  test("the old API key and token stop working at once and the new ones work", async () => {
    const c = await setup();
    const other = (await c.call("POST", "/_sandbox/merchants", { body: { name: "Rotating" }, auth: false })).body;
    expect((await c.call("GET", "/self", { auth: other.api_key })).status).toBe(200);
    const res = await c.call("POST", `/_sandbox/merchants/${other.id}/regenerate-keys`, { body: {}, auth: false });
    expect(res.status).toBe(200);
    expect(res.body.api_key).not.toBe(other.api_key);
    expect(res.body.web_payments_token).not.toBe(other.web_payments_token);
    expect(res.body.webhook_secret).toBe(other.webhook_secret);
    expect((await c.call("GET", "/self", { auth: other.api_key })).status).toBe(401);
    expect((await c.call("GET", "/self", { auth: res.body.api_key })).status).toBe(200);
    const oldToken = await c.call("POST", `/webpayment/${other.web_payments_token}/tokenize`, {
      body: {},
      auth: false,
    });
    expect(oldToken.status).toBe(401);
    const secret = await c.call("POST", `/_sandbox/merchants/${other.id}/regenerate-keys`, {
      body: { keys: ["webhook_secret"] },
      auth: false,
    });
    expect(secret.body.webhook_secret).not.toBe(other.webhook_secret);
    expect(secret.body.api_key).toBe(res.body.api_key);
    const bad = await c.call("POST", `/_sandbox/merchants/${other.id}/regenerate-keys`, {
      body: { keys: ["password"] },
      auth: false,
    });
    expect(bad.status).toBe(422);
    expect((await c.call("POST", "/_sandbox/merchants/nope/regenerate-keys", { body: {}, auth: false })).status).toBe(
      404,
    );
  });
});
