/**
 * What a phone on a bad network meets, made real with a misbehaving HTTP proxy in front of the
 * served sandbox: lost answers, 5xx, 429 with Retry-After, no answer at all, cancellation.
 * Retries always carry the same Idempotency-Key, so one tokenize never makes two payment methods.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PaymentApi, PaymentConfiguration, testCreditCard, type PaymentConfigurationOptions } from "paysandbox-mobile";
import { serve, setup, type TestContext } from "../support/app";
import { waitFor } from "../support/wait";
import { proxy, type Behaviour, type Proxy } from "./proxy";

let ctx: TestContext;
let sandbox: ReturnType<typeof serve>;
const proxies: Proxy[] = [];

beforeAll(async () => {
  ctx = await setup();
  sandbox = serve(ctx);
});

afterAll(async () => {
  for (const p of proxies) await p.stop();
  await sandbox.stop();
});

function through(behave: Behaviour, options: PaymentConfigurationOptions = {}) {
  const p = proxy(sandbox.url, behave);
  proxies.push(p);
  const api = new PaymentApi({
    configuration: new PaymentConfiguration({ webPaymentsToken: ctx.token, baseUrl: p.url, ...options }),
  });
  return { proxy: p, api };
}

async function paymentMethodsOf(customerId: string): Promise<{ id: string }[]> {
  const res = await ctx.call("GET", `/customer/${customerId}/payment-method`);
  expect(res.status).toBe(200);
  return res.body;
}

describe("retries", () => {
  test("an answer lost after the sandbox tokenized is retried with the same key and replayed: one payment method", async () => {
    const { proxy: p, api } = through(async (n, forward) => {
      const answer = await forward();
      // The first answer is lost on the way back, as when a phone drops off the network.
      return n === 0 ? new Response("<html>Bad gateway</html>", { status: 502 }) : answer;
    });
    const response = await api.tokenize(testCreditCard());
    expect(response.ok).toBe(true);
    expect(p.seen).toHaveLength(2);
    const keys = p.seen.map((r) => r.headers["idempotency-key"]);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(p.seen[1]!.body).toBe(p.seen[0]!.body);
    // The sandbox made the payment method once and replayed it to the retry.
    expect(p.upstream.map((u) => u.status)).toEqual([200, 200]);
    expect(p.upstream[1]!.body.id).toBe(p.upstream[0]!.body.id);
    expect(response.paymentMethod!.id).toBe(p.upstream[0]!.body.id);
    expect(await paymentMethodsOf(response.paymentMethod!.customer_id)).toHaveLength(1);
  });

  test("each tokenize call gets its own Idempotency-Key, so two taps make two payment methods", async () => {
    const { proxy: p, api } = through((_n, forward) => forward());
    const first = await api.tokenize(testCreditCard());
    const second = await api.tokenize(testCreditCard());
    expect(p.seen[0]!.headers["idempotency-key"]).not.toBe(p.seen[1]!.headers["idempotency-key"]);
    expect(first.paymentMethod!.id).not.toBe(second.paymentMethod!.id);
  });

  test("a given idempotencyKey is sent as is, and reusing it with another card is an idempotency_conflict", async () => {
    const { proxy: p, api } = through((_n, forward) => forward());
    const key = `order-${crypto.randomUUID()}`;
    const first = await api.tokenize(testCreditCard(), undefined, { idempotencyKey: key });
    const again = await api.tokenize(testCreditCard(), undefined, { idempotencyKey: key });
    expect(p.seen.map((r) => r.headers["idempotency-key"])).toEqual([key, key]);
    expect(again.paymentMethod!.id).toBe(first.paymentMethod!.id);
    const other = testCreditCard();
    other.cardNumber = "5555555555554444";
    const conflict = await api.tokenize(other, undefined, { idempotencyKey: key });
    expect(conflict.error?.code).toBe("idempotency_conflict");
    expect(conflict.error?.status).toBe(409);
  });

  test("a 5xx with the sandbox's error envelope is retried up to maxRetries, then returned as internal_error", async () => {
    const envelope = { message: "Internal error; see the sandbox log for request x.", code: "internal_error" };
    const { proxy: p, api } = through(() => Response.json(envelope, { status: 500 }), { maxRetries: 2 });
    const response = await api.tokenize(testCreditCard());
    expect(p.seen).toHaveLength(3);
    expect(response.error?.code).toBe("internal_error");
    expect(response.error?.status).toBe(500);
  });

  test("maxRetries 0 sends exactly one request", async () => {
    const { proxy: p, api } = through(() => new Response("down", { status: 503 }), { maxRetries: 0 });
    const response = await api.tokenize(testCreditCard());
    expect(p.seen).toHaveLength(1);
    expect(response.error?.code).toBe("invalid_response");
    expect(response.error?.status).toBe(503);
  });

  test("a validation error is final: never retried", async () => {
    const { proxy: p, api } = through((_n, forward) => forward(), { maxRetries: 3 });
    const card = testCreditCard();
    card.cardNumber = "4242424242424242";
    const response = await api.tokenize(card);
    expect(response.error?.code).toBe("validation_error");
    expect(p.seen).toHaveLength(1);
  });
});

describe("rate limits", () => {
  test("a 429 with a short Retry-After is waited out and retried", async () => {
    const { proxy: p, api } = through((n, forward) =>
      n === 0
        ? Response.json(
            { message: "Too many requests; retry after 1 second.", code: "rate_limited" },
            { status: 429, headers: { "retry-after": "1" } },
          )
        : forward(),
    );
    const response = await api.tokenize(testCreditCard());
    expect(response.ok).toBe(true);
    expect(p.seen).toHaveLength(2);
  });

  test("a 429 with a long Retry-After comes back as rate_limited with retryAfterSeconds, not retried", async () => {
    const { proxy: p, api } = through(() =>
      Response.json(
        { message: "Too many requests; retry after 60 seconds.", code: "rate_limited" },
        { status: 429, headers: { "retry-after": "60" } },
      ),
    );
    const response = await api.tokenize(testCreditCard());
    expect(p.seen).toHaveLength(1);
    expect(response.error?.code).toBe("rate_limited");
    expect(response.error?.retryAfterSeconds).toBe(60);
    expect(response.error?.status).toBe(429);
  });
});

describe("no answer, bad answers, cancellation", () => {
  test("a sandbox that never answers is a timeout after timeoutMs, retried, then returned", async () => {
    const { proxy: p, api } = through(() => new Promise<Response>(() => {}), { timeoutMs: 150, maxRetries: 1 });
    const response = await api.tokenize(testCreditCard());
    expect(response.error?.code).toBe("timeout");
    expect(response.error?.message).toContain("did not answer within 150 ms");
    expect(p.seen).toHaveLength(2);
  });

  test("a 200 that is not a payment method is an invalid_response, not a success", async () => {
    const { api } = through(() => Response.json({ hello: "world" }), { maxRetries: 0 });
    const response = await api.tokenize(testCreditCard());
    expect(response.ok).toBe(false);
    expect(response.error?.code).toBe("invalid_response");
    expect(response.error?.status).toBe(200);
  });

  test("an HTML error page from a proxy is an invalid_response with its status", async () => {
    const { api } = through(() => new Response("<h1>502 Bad Gateway</h1>", { status: 502 }), { maxRetries: 0 });
    const response = await api.tokenize(testCreditCard());
    expect(response.error?.code).toBe("invalid_response");
    expect(response.error?.status).toBe(502);
  });

  test("aborting the signal while the request hangs answers cancelled, and stops the retries", async () => {
    const { proxy: p, api } = through(() => new Promise<Response>(() => {}), { maxRetries: 3 });
    const controller = new AbortController();
    const pending = api.tokenize(testCreditCard(), undefined, { signal: controller.signal });
    // Abort once the request has reached the proxy.
    await waitFor(() => p.seen.length > 0, { intervalMs: 10, what: "the request at the proxy" });
    expect(p.seen).toHaveLength(1);
    controller.abort();
    const response = await pending;
    expect(response.error?.code).toBe("cancelled");
    expect(p.seen).toHaveLength(1);
  });

  test("an already aborted signal sends nothing", async () => {
    const { proxy: p, api } = through((_n, forward) => forward());
    const response = await api.tokenize(testCreditCard(), undefined, { signal: AbortSignal.abort() });
    expect(response.error?.code).toBe("cancelled");
    expect(p.seen).toHaveLength(0);
  });
});
