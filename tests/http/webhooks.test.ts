import { describe, expect, test } from "bun:test";
import { sql } from "../../src/storage/database";
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from "../../src/domain/webhook-policy";
import { verifyPaySandboxSignature } from "../../packages/webhooks/verify";
import { charge, otherMerchant, setup, waitFor, type TestContext } from "../support/app";
import { webhookHarness } from "../support/webhook-harness";
import { startReceiver } from "../support/webhook-receiver";

const { start, receiver } = webhookHarness();

async function subscribe(c: TestContext, target_url: string, event = "*", auth?: string) {
  const res = await c.call("POST", "/webhook", { body: { target_url, event }, auth });
  expect(res.status).toBe(200);
  return res.body as { id: string; target_url: string; event: string; deleted_at: string | null };
}

async function createCustomer(c: TestContext, fields: Record<string, unknown> = {}) {
  const res = await c.call("POST", "/customer", {
    body: { firstname: "Grace", lastname: "Hopper", email: "grace@example.com", ...fields },
  });
  expect(res.status).toBe(200);
  return res.body as { id: string; notes: string | null };
}

async function deliveries(c: TestContext, webhookId: string, query = "") {
  const res = await c.call("GET", `/webhook/${webhookId}/deliveries${query}`);
  expect(res.status).toBe(200);
  return res.body.data as any[];
}

async function secretOf(c: TestContext, auth?: string): Promise<string> {
  return (await c.call("GET", "/self", { auth })).body.webhook_secret;
}

const advance = (c: TestContext, ms: number, merchantId = c.merchantId) => c.deps.clock.advance(merchantId, ms);

describe("webhook subscriptions", () => {
  test("a merchant subscribes a URL to an event, lists it in the page envelope, reads it and deletes it softly", async () => {
    const c = await setup();
    const created = await subscribe(c, "https://example.com/hooks", "create_transaction");
    expect(created).toMatchObject({ target_url: "https://example.com/hooks", event: "create_transaction" });
    expect(created.deleted_at).toBeNull();
    await subscribe(c, "http://127.0.0.1:9/all", "*");

    const list = await c.call("GET", "/webhook?per_page=1");
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ current_page: 1, per_page: 1, total: 2, last_page: 2, from: 1, to: 1 });
    expect(list.body.data[0].event).toBe("*");
    expect(list.body.next_page_url).toContain("page=2");

    const deleted = await c.call("DELETE", `/webhook/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect((await c.call("GET", `/webhook/${created.id}`)).body.deleted_at).toBe(deleted.body.deleted_at);
    const after = await c.call("GET", "/webhook");
    expect(after.body.total).toBe(1);
    expect(after.body.data.map((w: { id: string }) => w.id)).not.toContain(created.id);
  });

  test("an unknown event, a non-http URL, missing fields and a duplicate subscription are refused with 422", async () => {
    const c = await setup();
    const badEvent = await c.call("POST", "/webhook", {
      body: { target_url: "https://example.com/h", event: "charge" },
    });
    expect(badEvent.status).toBe(422);
    expect(badEvent.body.code).toBe("validation_error");
    expect(badEvent.body.errors.event[0]).toContain("create_transaction");

    for (const target_url of ["ftp://example.com/h", "not a url", "javascript:alert(1)", ""]) {
      const res = await c.call("POST", "/webhook", { body: { target_url, event: "*" } });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toContain("target_url");
    }
    const missing = await c.call("POST", "/webhook", { body: {} });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors).sort()).toEqual(["event", "target_url"]);

    await subscribe(c, "https://example.com/h", "update_invoice");
    const duplicate = await c.call("POST", "/webhook", {
      body: { target_url: "https://example.com/h", event: "update_invoice" },
    });
    expect(duplicate.status).toBe(422);
    expect((await c.call("GET", "/webhook")).body.total).toBe(1);
  });

  test("the same subscription sent eight times at once is made once; the rest are refused as duplicates", async () => {
    // On PostgreSQL each create checked the live webhooks before the others committed: all eight were made.
    const c = await setup();
    const body = { target_url: "https://example.com/parallel", event: "create_transaction" };
    const answers = await Promise.all(Array.from({ length: 8 }, () => c.call("POST", "/webhook", { body })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 422, 422, 422, 422, 422, 422, 422]);
    expect((await c.call("GET", "/webhook")).body.total).toBe(1);
  });

  test("webhooks need the API key and are invisible to other merchants", async () => {
    const c = await setup();
    const hook = await subscribe(c, "https://example.com/h");
    expect(
      (await c.call("POST", "/webhook", { body: { target_url: "https://x.test", event: "*" }, auth: false })).status,
    ).toBe(401);
    expect((await c.call("GET", "/webhook", { auth: c.token })).status).toBe(403);
    const other = await otherMerchant(c);
    for (const [method, path] of [
      ["GET", `/webhook/${hook.id}`],
      ["DELETE", `/webhook/${hook.id}`],
      ["GET", `/webhook/${hook.id}/deliveries`],
    ] as const) {
      const res = await c.call(method, path, { auth: other.api_key });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("not_found");
    }
    expect((await c.call("GET", "/webhook", { auth: other.api_key })).body.total).toBe(0);
    expect((await c.call("GET", `/webhook/${hook.id}`)).body.deleted_at).toBeNull();
  });
});

describe("the webhook outbox", () => {
  test("a change writes its delivery in the same transaction, with the record as the API returned it", async () => {
    const c = await setup(); // no dispatcher running: the row waits in the outbox
    const hook = await subscribe(c, "http://127.0.0.1:9/hooks");
    const customer = await createCustomer(c);
    const rows = await deliveries(c, hook.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      webhook_id: hook.id,
      event: "create_customer",
      record_id: customer.id,
      status: "pending",
      attempts: 0,
      max_attempts: MAX_ATTEMPTS,
      attempt_log: [],
    });
    expect(rows[0].payload).toEqual(customer);
    expect(rows[0].next_attempt_at).toMatch(/^\d{4}-/);
  });

  test("a change that fails or rolls back leaves no delivery behind", async () => {
    const c = await setup();
    const hook = await subscribe(c, "http://127.0.0.1:9/hooks");
    const refused = await c.call("POST", "/customer", { body: { email: "not-an-email" } });
    expect(refused.status).toBe(422);
    expect(
      c.deps.db.transaction(async (tx) => {
        await c.deps.events.emit(tx, {
          merchantId: c.merchantId,
          name: "create_customer",
          record: { id: "rolled-back" },
        });
        throw new Error("the change failed after emitting");
      }),
    ).rejects.toThrow("the change failed");
    expect(await deliveries(c, hook.id)).toEqual([]);
  });

  test("the record is frozen when the event happens: later changes do not alter a queued body", async () => {
    const c = await setup();
    const hook = await subscribe(c, "http://127.0.0.1:9/hooks", "create_customer");
    const customer = await createCustomer(c, { notes: "first" });
    expect((await c.call("PUT", `/customer/${customer.id}`, { body: { notes: "second" } })).status).toBe(200);
    const [row] = await deliveries(c, hook.id);
    expect(row.payload.notes).toBe("first");
  });

  test("a webhook gets only the event it subscribed to; * gets every event", async () => {
    const c = await setup();
    const onlyCustomers = await subscribe(c, "http://127.0.0.1:9/a", "create_customer");
    const everything = await subscribe(c, "http://127.0.0.1:9/b", "*");
    const paid = await charge(c, 12.5);
    expect(paid.status).toBe(200);
    expect((await deliveries(c, onlyCustomers.id)).map((d) => d.event)).toEqual(["create_customer"]);
    const all = (await deliveries(c, everything.id)).map((d) => d.event);
    expect(all).toContain("create_customer");
    expect(all).toContain("create_transaction");
  });
});

describe("webhook delivery to a real receiver", () => {
  test("a receiver gets each event once, signed with the merchant's webhook_secret, with the documented headers", async () => {
    const c = await start();
    const r = receiver();
    const hook = await subscribe(c, r.url);
    const paid = await charge(c, 10.25);
    expect(paid.status).toBe(200);
    const transaction = paid.body;

    await waitFor(() => r.delivered().length >= 3, 5000, "three deliveries");
    const secret = await secretOf(c);
    const events = r.received.map((x) => x.event);
    expect(events).toContain("create_customer");
    expect(events).toContain("create_transaction");
    expect(events).toContain("create_payment_method");
    for (const got of r.received) {
      expect(got.contentType).toContain("application/json");
      expect(got.deliveryId).toMatch(/^[0-9a-f-]{36}$/);
      expect(got.signature).toMatch(/^t=\d+,v2=[0-9a-f]{64}$/);
      expect(verifyPaySandboxSignature(got.raw, got.headers, secret)).toBe(true);
      // Signed with this merchant's secret and this body, nothing else.
      expect(verifyPaySandboxSignature(got.raw, got.headers, secret + "x")).toBe(false);
      expect(verifyPaySandboxSignature(got.raw + " ", got.headers, secret)).toBe(false);
    }
    const sent = r.received.find((x) => x.event === "create_transaction")!;
    expect(sent.json).toEqual(transaction);
    expect(sent.json).toEqual((await c.call("GET", `/transaction/${transaction.id}`)).body);

    await waitFor(async () => (await deliveries(c, hook.id)).every((d) => d.status === "delivered"), 5000, "log");
    const log = await deliveries(c, hook.id);
    expect(log.map((d) => d.id).sort()).toEqual(r.received.map((x) => x.deliveryId).sort());
    for (const d of log) {
      expect(d).toMatchObject({ attempts: 1, last_status_code: 200, last_error: null, next_attempt_at: null });
      expect(d.delivered_at).toMatch(/^\d{4}-/);
      expect(d.attempt_log).toHaveLength(1);
      expect(d.attempt_log[0]).toMatchObject({ attempt: 1, success: true, status_code: 200, response_snippet: "ok" });
      expect(d.attempt_log[0].latency_ms).toBeGreaterThanOrEqual(0);
    }
  });

  test("a record's events reach the receiver in order even when an earlier one needs a retry", async () => {
    const c = await start();
    // The first request (create of customer A) fails; everything else succeeds.
    const r = receiver((_req, n) => (n === 1 ? 500 : 200));
    const hook = await subscribe(c, r.url, "*");
    const a = await createCustomer(c, { email: "a@example.com" });
    await waitFor(() => r.received.length >= 1, 5000, "the first attempt");
    for (const notes of ["one", "two", "three"]) {
      expect((await c.call("PUT", `/customer/${a.id}`, { body: { notes } })).status).toBe(200);
    }
    // Another record is not held up by A's failed delivery.
    const b = await createCustomer(c, { email: "b@example.com" });
    await waitFor(() => r.delivered().some((x) => x.json.id === b.id), 5000, "customer B's event");
    expect(r.delivered().filter((x) => x.json.id === a.id)).toEqual([]);
    const waiting = await deliveries(c, hook.id, `?record_id=${a.id}`);
    expect(waiting.map((d) => d.status)).toEqual(["pending", "pending", "pending", "pending"]);

    await advance(c, RETRY_DELAYS_MS[0]!);
    await waitFor(() => r.delivered().filter((x) => x.json.id === a.id).length === 4, 5000, "A's four events");
    const forA = r.received.filter((x) => x.json.id === a.id);
    expect(forA.map((x) => [x.event, x.json.notes, x.answered])).toEqual([
      ["create_customer", null, 500],
      ["create_customer", null, 200],
      ["update_customer", "one", 200],
      ["update_customer", "two", 200],
      ["update_customer", "three", 200],
    ]);
    // The retry is the same delivery: same id, same body.
    expect(forA[1]!.deliveryId).toBe(forA[0]!.deliveryId!);
    expect(forA[1]!.raw).toBe(forA[0]!.raw);
  });

  test("a receiver that fails twice then succeeds gets exactly one successful delivery after three attempts", async () => {
    const c = await start();
    const r = receiver((_req, n) => (n <= 2 ? 503 : 200));
    const hook = await subscribe(c, r.url, "create_customer");
    await createCustomer(c);
    await waitFor(() => r.received.length === 1, 5000, "attempt 1");
    await waitFor(async () => (await deliveries(c, hook.id))[0].attempts === 1, 5000, "attempt 1 logged");
    await advance(c, RETRY_DELAYS_MS[0]!);
    await waitFor(async () => (await deliveries(c, hook.id))[0].attempts === 2, 5000, "attempt 2 logged");
    await advance(c, RETRY_DELAYS_MS[1]!);
    await waitFor(async () => (await deliveries(c, hook.id))[0].status === "delivered", 5000, "attempt 3");

    expect(r.received).toHaveLength(3);
    expect(r.delivered()).toHaveLength(1);
    expect(new Set(r.received.map((x) => x.deliveryId)).size).toBe(1);
    const [d] = await deliveries(c, hook.id);
    expect(d).toMatchObject({ status: "delivered", attempts: 3, last_status_code: 200, last_error: null });
    expect(d.attempt_log.map((a: any) => [a.attempt, a.success, a.status_code, a.error])).toEqual([
      [1, false, 503, "HTTP 503"],
      [2, false, 503, "HTTP 503"],
      [3, true, 200, null],
    ]);
    expect(d.attempt_log[0].response_snippet).toBe("nope 503");
    // Nothing more is sent, however far the clock goes.
    await advance(c, 24 * 3600_000);
    const more = await c.call("GET", "/_sandbox/webhook-deliveries?status=pending", { auth: false });
    expect(more.body.total).toBe(0);
    expect((await deliveries(c, hook.id))[0].attempt_log).toHaveLength(3);
    expect(r.received).toHaveLength(3);
  });

  test("a retry is not sent before its backoff has passed on the merchant's sandbox clock", async () => {
    const c = await start();
    const r = receiver(() => 500);
    const hook = await subscribe(c, r.url, "create_customer");
    await createCustomer(c);
    await waitFor(async () => (await deliveries(c, hook.id))[0].attempts === 1, 5000, "attempt 1 logged");
    const [first] = await deliveries(c, hook.id);
    const due = Date.parse(first.next_attempt_at.replace(" ", "T") + "Z");
    const now = c.deps.clock.now(c.merchantId).getTime();
    expect(due - now).toBeGreaterThan(RETRY_DELAYS_MS[0]! - 5000);
    expect(due - now).toBeLessThanOrEqual(RETRY_DELAYS_MS[0]!);
    await advance(c, 1000); // not yet due: the tick runs and starts no attempt (attempts start synchronously)
    expect((await deliveries(c, hook.id))[0].attempt_log).toHaveLength(1);
    await advance(c, RETRY_DELAYS_MS[0]!);
    await waitFor(() => r.received.length === 2, 5000, "attempt 2");
  });

  test("a receiver that never answers is given up after 5 attempts and shows as failed", async () => {
    const c = await start({ webhookTimeoutMs: 100 });
    const r = receiver(() => "hang");
    const hook = await subscribe(c, r.url, "create_customer");
    await createCustomer(c);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      await waitFor(async () => (await deliveries(c, hook.id))[0].attempts === attempt, 5000, `attempt ${attempt}`);
      if (attempt < MAX_ATTEMPTS) await advance(c, RETRY_DELAYS_MS[attempt - 1]!);
    }
    const [d] = await deliveries(c, hook.id);
    expect(d.status).toBe("failed");
    expect(d.attempts).toBe(MAX_ATTEMPTS);
    expect(d.next_attempt_at).toBeNull();
    expect(d.last_status_code).toBeNull();
    expect(d.last_error).toContain("timeout");
    expect(d.attempt_log).toHaveLength(MAX_ATTEMPTS);
    expect(d.attempt_log.every((a: any) => a.success === false && a.status_code === null)).toBe(true);
    // On a loaded machine an attempt can time out before its request reaches the receiver.
    expect(r.received.length).toBeGreaterThanOrEqual(1);
    expect(r.received.length).toBeLessThanOrEqual(MAX_ATTEMPTS);
    await advance(c, 7 * 24 * 3600_000);
    expect((await deliveries(c, hook.id))[0].attempt_log).toHaveLength(MAX_ATTEMPTS);
    const failed = await c.call("GET", "/_sandbox/webhook-deliveries?status=failed", { auth: false });
    expect(failed.body.data.map((x: any) => x.id)).toEqual([d.id]);
  });

  test("a receiver that is down or redirects counts as a failed attempt with the reason logged", async () => {
    const c = await start();
    const down = startReceiver();
    const downUrl = down.url;
    await down.stop();
    const redirecting = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => new Response(null, { status: 302, headers: { location: "http://127.0.0.1:9/elsewhere" } }),
    });
    try {
      const refused = await subscribe(c, downUrl, "create_customer");
      const moved = await subscribe(c, `http://127.0.0.1:${redirecting.port}/h`, "create_customer");
      await createCustomer(c);
      await waitFor(
        async () =>
          (await deliveries(c, refused.id))[0].attempts === 1 && (await deliveries(c, moved.id))[0].attempts === 1,
        5000,
        "both attempts",
      );
      const [r1] = await deliveries(c, refused.id);
      expect(r1).toMatchObject({ status: "pending", last_status_code: null, last_error: "Connection refused." });
      const [r2] = await deliveries(c, moved.id);
      expect(r2).toMatchObject({ status: "pending", last_status_code: 302, last_error: "HTTP 302" });
    } finally {
      await redirecting.stop(true);
    }
  });

  test("a deleted webhook stops receiving, and its pending deliveries are cancelled", async () => {
    const c = await start();
    const gone = receiver(() => 500);
    const kept = receiver();
    // Customers only: the other's create_webhook and delete_webhook are not what this test counts.
    const deletedHook = await subscribe(c, gone.url, "create_customer");
    const keptHook = await subscribe(c, kept.url, "create_customer");
    await createCustomer(c, { email: "first@example.com" });
    await waitFor(() => gone.received.length === 1 && kept.delivered().length === 1, 5000, "first event");
    await waitFor(async () => (await deliveries(c, deletedHook.id))[0].attempts === 1, 5000, "attempt logged");

    expect((await c.call("DELETE", `/webhook/${deletedHook.id}`)).status).toBe(200);
    const [cancelled] = await deliveries(c, deletedHook.id);
    expect(cancelled).toMatchObject({ status: "cancelled", next_attempt_at: null });

    await createCustomer(c, { email: "second@example.com" });
    await waitFor(() => kept.delivered().length === 2, 5000, "second event at the kept webhook");
    await advance(c, 24 * 3600_000); // the cancelled retry would have been due long ago
    await createCustomer(c, { email: "third@example.com" });
    await waitFor(() => kept.delivered().length === 3, 5000, "third event at the kept webhook");
    expect(gone.received).toHaveLength(1);
    expect(await deliveries(c, deletedHook.id)).toHaveLength(1);
    expect(await deliveries(c, keptHook.id)).toHaveLength(3);
  });
});

describe("webhook delivery under load", () => {
  // The stalled receiver never answers: its requests end only by the webhook timeout (then the
  // waiting deliveries go out). The timeout is far longer than the test, so "exactly eight" holds
  // however slow the machine is; stopping the app aborts the requests still out.
  test("one merchant's stalled receiver holds at most 8 requests and does not hold up another merchant", async () => {
    const c = await start({ webhookTimeoutMs: 60_000 });
    const stalled = receiver(() => "hang");
    const healthy = receiver();
    await subscribe(c, stalled.url, "create_customer");
    const other = await otherMerchant(c);
    await subscribe(c, healthy.url, "create_customer", other.api_key);
    for (let i = 0; i < 12; i++) await createCustomer(c, { email: `busy${i}@example.com` });
    await waitFor(() => stalled.received.length === 8, 15_000, "eight requests at the stalled receiver").catch(
      async (error) => {
        // What the dispatcher had done, so a failure says where it stopped.
        const deliveries = await c.deps.db.all(
          sql`SELECT status, attempts, claimed_by, next_attempt_at_ms FROM webhook_deliveries WHERE merchant_id = ${c.merchantId}`,
        );
        const attempts = await c.deps.db.all(
          sql`SELECT delivery_id, finished, error FROM webhook_attempts WHERE merchant_id = ${c.merchantId}`,
        );
        const dispatchers = await c.deps.db.all(sql`SELECT * FROM webhook_dispatchers`);
        throw new Error(
          `${(error as Error).message}: the receiver got ${stalled.received.length}; deliveries ${JSON.stringify(deliveries)}; attempts ${JSON.stringify(attempts)}; dispatchers ${JSON.stringify(dispatchers)}; now ${Date.now()}`,
        );
      },
    );
    const out = (await c.deps.db.get<{ n: number }>(
      sql`SELECT COUNT(*) AS n FROM webhook_attempts WHERE merchant_id = ${c.merchantId} AND finished = 0`,
    ))!.n;
    expect(out).toBe(8);
    const theirs = await c.call("POST", "/customer", { body: { email: "other@example.com" }, auth: other.api_key });
    await waitFor(() => healthy.delivered().length === 1, 15_000, "the other merchant's delivery");
    expect(healthy.received[0]!.json.id).toBe(theirs.body.id);
    expect(stalled.received).toHaveLength(8);
  });
});

describe("the sandbox delivery log and redelivery", () => {
  test("/_sandbox/webhook-deliveries lists the acting merchant's deliveries with filters, and no one else's", async () => {
    const c = await setup();
    const hook = await subscribe(c, "http://127.0.0.1:9/h", "*");
    await charge(c, 5);
    const all = await c.call("GET", "/_sandbox/webhook-deliveries", { auth: false });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.data.map((d: any) => d.event)).toEqual([
      "create_transaction",
      "create_payment_method",
      "create_customer",
    ]);
    expect(all.body.data[0].target_url).toBe("http://127.0.0.1:9/h");
    const filtered = await c.call("GET", `/_sandbox/webhook-deliveries?event=create_customer&webhook_id=${hook.id}`, {
      auth: false,
    });
    expect(filtered.body.data.map((d: any) => d.event)).toEqual(["create_customer"]);
    const one = await c.call("GET", `/_sandbox/webhook-deliveries/${filtered.body.data[0].id}`, { auth: false });
    expect(one.body).toEqual(filtered.body.data[0]);

    const other = await otherMerchant(c);
    const theirs = await c.call("GET", "/_sandbox/webhook-deliveries", { auth: other.api_key });
    expect(theirs.body.total).toBe(0);
    const notTheirs = await c.call("POST", `/_sandbox/webhook-deliveries/${one.body.id}/redeliver`, {
      auth: other.api_key,
    });
    expect(notTheirs.status).toBe(404);
    expect((await c.call("GET", "/_sandbox/webhook-deliveries?status=bogus", { auth: false })).status).toBe(422);
  });

  test("/_sandbox/reset removes the acting merchant's webhooks and deliveries, and only theirs", async () => {
    const c = await setup();
    const other = await otherMerchant(c);
    await subscribe(c, "http://127.0.0.1:9/mine");
    const theirs = await subscribe(c, "http://127.0.0.1:9/theirs", "*", other.api_key);
    await createCustomer(c);
    await c.call("POST", "/customer", { body: { email: "t@example.com" }, auth: other.api_key });
    const reset = await c.call("POST", "/_sandbox/reset", { auth: c.apiKey });
    expect(reset.status).toBe(200);
    expect(reset.body.deleted).toMatchObject({ webhooks: 1, webhook_deliveries: 1 });
    expect((await c.call("GET", "/webhook")).body.total).toBe(0);
    expect((await c.call("GET", "/_sandbox/webhook-deliveries")).body.total).toBe(0);
    expect((await c.call("GET", "/webhook", { auth: other.api_key })).body.total).toBe(1);
    expect((await c.call("GET", `/webhook/${theirs.id}/deliveries`)).status).toBe(404);
    const stillTheirs = await c.call("GET", `/webhook/${theirs.id}/deliveries`, { auth: other.api_key });
    expect(stillTheirs.body.total).toBe(1);
  });

  test("redeliver sends the same body again as a new, signed delivery", async () => {
    const c = await start();
    const r = receiver();
    const other = await otherMerchant(c);
    const hook = await subscribe(c, r.url, "create_customer", other.api_key);
    const customer = await c.call("POST", "/customer", { body: { email: "re@example.com" }, auth: other.api_key });
    await waitFor(() => r.delivered().length === 1, 5000, "first delivery");
    const first = r.received[0]!;

    const res = await c.call("POST", `/_sandbox/webhook-deliveries/${first.deliveryId}/redeliver`, {
      auth: other.api_key,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ redelivery_of: first.deliveryId, status: "pending", webhook_id: hook.id });
    expect(res.body.id).not.toBe(first.deliveryId);
    await waitFor(() => r.delivered().length === 2, 5000, "redelivery");
    const again = r.received[1]!;
    expect(again.deliveryId).toBe(res.body.id);
    expect(again.raw).toBe(first.raw);
    expect(again.json.id).toBe(customer.body.id);
    expect(verifyPaySandboxSignature(again.raw, again.headers, await secretOf(c, other.api_key))).toBe(true);
    expect(verifyPaySandboxSignature(again.raw, again.headers, await secretOf(c))).toBe(false);

    const missing = await c.call("POST", "/_sandbox/webhook-deliveries/nope/redeliver", { auth: other.api_key });
    expect(missing.status).toBe(404);
    await c.call("DELETE", `/webhook/${hook.id}`, { auth: other.api_key });
    const afterDelete = await c.call("POST", `/_sandbox/webhook-deliveries/${first.deliveryId}/redeliver`, {
      auth: other.api_key,
    });
    expect(afterDelete.status).toBe(422);
    expect(afterDelete.body.code).toBe("invalid_state");
  });
});
