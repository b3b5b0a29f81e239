import { beforeEach, describe, expect, test } from "bun:test";
import { CARD, setup, tokenize, type TestContext } from "../support/app";
import { countRows } from "../support/database";

let ctx: TestContext;
beforeEach(async () => {
  ctx = await setup();
});

const count = (table: string) => countRows(ctx.deps.db, table);

describe("Idempotency-Key", () => {
  test("the same key and body answer the original response, marked as replayed", async () => {
    const pm = await tokenize(ctx);
    const body = { payment_method_id: pm.id, total: 12 };
    const first = await ctx.call("POST", "/charge", { body, headers: { "idempotency-key": "order-1" } });
    const again = await ctx.call("POST", "/charge", { body, headers: { "idempotency-key": "order-1" } });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await count("transactions")).toBe(1);
  });

  test("the same key with a different body is a 409 and charges nothing", async () => {
    const pm = await tokenize(ctx);
    await ctx.call("POST", "/charge", {
      body: { payment_method_id: pm.id, total: 12 },
      headers: { "idempotency-key": "k" },
    });
    const res = await ctx.call("POST", "/charge", {
      body: { payment_method_id: pm.id, total: 13 },
      headers: { "idempotency-key": "k" },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("idempotency_conflict");
    expect(await count("transactions")).toBe(1);
  });

  test("the body's key order does not matter", async () => {
    const pm = await tokenize(ctx);
    const headers = { "idempotency-key": "k" };
    await ctx.call("POST", "/charge", { raw: `{"payment_method_id":"${pm.id}","total":5}`, headers });
    const res = await ctx.call("POST", "/charge", { raw: `{"total":5,"payment_method_id":"${pm.id}"}`, headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("idempotent-replayed")).toBe("true");
  });

  test("idempotency_id in the body works like the header", async () => {
    const pm = await tokenize(ctx);
    const body = { payment_method_id: pm.id, total: 4, idempotency_id: "abc" };
    const a = await ctx.call("POST", "/charge", { body });
    const b = await ctx.call("POST", "/charge", { body });
    expect(b.body.id).toBe(a.body.id);
    expect(await count("transactions")).toBe(1);
  });

  test("a declined charge is replayed as the same 402", async () => {
    const pm = await tokenize(ctx, { card_number: "4012888888881881" });
    const body = { payment_method_id: pm.id, total: 9 };
    const a = await ctx.call("POST", "/charge", { body, headers: { "idempotency-key": "d" } });
    const b = await ctx.call("POST", "/charge", { body, headers: { "idempotency-key": "d" } });
    expect(a.status).toBe(402);
    expect(b.status).toBe(402);
    expect(b.body).toEqual(a.body);
    expect(await count("transactions")).toBe(1);
  });

  test("a rejected request stores nothing, so the key can be used again with a fixed body", async () => {
    const pm = await tokenize(ctx);
    const headers = { "idempotency-key": "fix-me" };
    const bad = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: -1 }, headers });
    expect(bad.status).toBe(422);
    const good = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 1 }, headers });
    expect(good.status).toBe(200);
  });

  test("keys are per merchant and per route", async () => {
    const pm = await tokenize(ctx, {}, ctx.token);
    const headers = { "idempotency-key": "shared" };
    const tokenized = await ctx.call("POST", `/webpayment/${ctx.token}/tokenize`, { body: CARD, headers, auth: false });
    expect(tokenized.status).toBe(200);
    const charged = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 2 }, headers });
    expect(charged.status).toBe(200);
  });

  test("tokenize honours the key: a retried tokenize creates one payment method", async () => {
    const headers = { "idempotency-key": "pay-1" };
    const a = await ctx.call("POST", `/webpayment/${ctx.token}/tokenize`, { body: CARD, headers, auth: false });
    const b = await ctx.call("POST", `/webpayment/${ctx.token}/tokenize`, { body: CARD, headers, auth: false });
    expect(b.body.id).toBe(a.body.id);
    expect(await count("payment_methods")).toBe(1);
  });

  test("50 concurrent duplicates create exactly one transaction and all get the same answer", async () => {
    const pm = await tokenize(ctx);
    const body = { payment_method_id: pm.id, total: 25 };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => ctx.call("POST", "/charge", { body, headers: { "idempotency-key": "burst" } })),
    );
    expect(new Set(responses.map((r) => r.status))).toEqual(new Set([200]));
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    expect(await count("transactions")).toBe(1);
  });

  test("an over-long key is a 422", async () => {
    const pm = await tokenize(ctx);
    const res = await ctx.call("POST", "/charge", {
      body: { payment_method_id: pm.id, total: 1 },
      headers: { "idempotency-key": "k".repeat(256) },
    });
    expect(res.status).toBe(422);
    expect(await count("transactions")).toBe(0);
  });
});
