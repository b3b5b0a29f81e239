/**
 * Idempotency under real concurrency: 100 requests with one Idempotency-Key in flight at once
 * against a real server on loopback (not app.handle), for /charge, tokenize and the pay() steps.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { CARD, serve, setup, tokenize, type TestContext } from "../support/app";
import { sql } from "../../src/storage/database";
import { countRows } from "../support/database";

const N = 100;
/** pay()'s extra details without the card fields: what the invoice step receives. */
const { card_number: _n, card_cvv: _c, card_exp: _e, method: _m, ...CUSTOMER } = CARD;
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

async function served(): Promise<{ ctx: TestContext; url: string }> {
  const ctx = await setup();
  const { url, stop } = serve(ctx);
  stops.push(stop);
  return { ctx, url };
}

const count = (ctx: TestContext, table: string) => countRows(ctx.deps.db, table);

/** Fires all requests at once over separate connections and collects status and raw body. */
async function burst(requests: { url: string; init: RequestInit }[]) {
  return Promise.all(
    requests.map(async ({ url, init }) => {
      const res = await fetch(url, { ...init, keepalive: false });
      return { status: res.status, text: await res.text(), replayed: res.headers.get("idempotent-replayed") };
    }),
  );
}

const post = (url: string, body: unknown, headers: Record<string, string>) => ({
  url,
  init: { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) },
});

describe("100 concurrent requests with one Idempotency-Key", () => {
  test("identical POST /charge bodies make one transaction and 100 identical responses", async () => {
    const { ctx, url } = await served();
    const pm = await tokenize(ctx);
    const headers = { authorization: `Bearer ${ctx.apiKey}`, "idempotency-key": "order-concurrent" };
    const results = await burst(
      Array.from({ length: N }, () => post(`${url}/charge`, { payment_method_id: pm.id, total: 25.5 }, headers)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(N).fill(200));
    expect(new Set(results.map((r) => r.text)).size).toBe(1);
    expect(results.filter((r) => r.replayed === null).length).toBe(1);
    expect(await count(ctx, "transactions")).toBe(1);
    expect(JSON.parse(results[0]!.text).total).toBe(25.5);
  });

  test("a declined charge replays as 100 identical 402s with one failed transaction", async () => {
    const { ctx, url } = await served();
    const pm = await tokenize(ctx, { card_number: "4012888888881881" });
    const headers = { authorization: `Bearer ${ctx.apiKey}`, "idempotency-key": "declined-concurrent" };
    const results = await burst(
      Array.from({ length: N }, () => post(`${url}/charge`, { payment_method_id: pm.id, total: 3 }, headers)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(N).fill(402));
    expect(new Set(results.map((r) => r.text)).size).toBe(1);
    expect(await count(ctx, "transactions")).toBe(1);
  });

  test("differing bodies: exactly one succeeds, the other 99 are 409 idempotency_conflict, one transaction", async () => {
    const { ctx, url } = await served();
    const pm = await tokenize(ctx);
    const headers = { authorization: `Bearer ${ctx.apiKey}`, "idempotency-key": "order-conflict" };
    const results = await burst(
      Array.from({ length: N }, (_, i) => post(`${url}/charge`, { payment_method_id: pm.id, total: 1 + i }, headers)),
    );
    const ok = results.filter((r) => r.status === 200);
    const conflicts = results.filter((r) => r.status === 409);
    expect(ok.length).toBe(1);
    expect(conflicts.length).toBe(N - 1);
    for (const conflict of conflicts) expect(JSON.parse(conflict.text).code).toBe("idempotency_conflict");
    expect(await count(ctx, "transactions")).toBe(1);
    const stored = (await ctx.deps.db.get<{ total_cents: number }>(sql`SELECT total_cents FROM transactions`))!;
    expect(stored.total_cents).toBe(Math.round(JSON.parse(ok[0]!.text).total * 100));
  });

  test("identical tokenize requests make one payment method and one customer", async () => {
    const { ctx, url } = await served();
    const results = await burst(
      Array.from({ length: N }, () =>
        post(`${url}/webpayment/${ctx.token}/tokenize`, CARD, { "idempotency-key": "tokenize-concurrent" }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(N).fill(200));
    expect(new Set(results.map((r) => r.text)).size).toBe(1);
    expect(await count(ctx, "payment_methods")).toBe(1);
    expect(await count(ctx, "customers")).toBe(1);
  });

  test("the pay() steps (invoice, then pay) each run once: one invoice, one charge, 100 identical PAID answers", async () => {
    const { ctx, url } = await served();
    const pm = await tokenize(ctx);
    const key = { "idempotency-key": "pay-concurrent" };
    const invoices = await burst(
      Array.from({ length: N }, () =>
        post(
          `${url}/webpayment/${ctx.token}/invoice`,
          { ...CUSTOMER, payment_method_id: pm.id, total: 42, meta: { reference: "R-1" } },
          key,
        ),
      ),
    );
    expect(invoices.map((r) => r.status)).toEqual(Array(N).fill(200));
    expect(new Set(invoices.map((r) => r.text)).size).toBe(1);
    expect(await count(ctx, "invoices")).toBe(1);
    const invoiceId = JSON.parse(invoices[0]!.text).id;
    const pays = await burst(
      Array.from({ length: N }, () =>
        post(`${url}/webpayment/${ctx.token}/invoice/${invoiceId}/pay`, { payment_method_id: pm.id }, key),
      ),
    );
    expect(pays.map((r) => r.status)).toEqual(Array(N).fill(200));
    expect(new Set(pays.map((r) => r.text)).size).toBe(1);
    expect(JSON.parse(pays[0]!.text).status).toBe("PAID");
    expect(await count(ctx, "transactions")).toBe(1);
  });
});
