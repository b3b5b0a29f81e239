/**
 * POST /webhook as the real service takes it: target_url and event as query parameters (no body),
 * and the sandbox's JSON body, or one of each. Given in both, the body's member wins
 * (docs/contract.md). A webhook made through the query string receives its event at a real receiver.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { startWorkers, stopWorkers } from "../../src/entry/app";
import { serve, setup, waitFor, type TestContext } from "../support/app";
import { startReceiver, type Receiver } from "../support/webhook-receiver";

let ctx: TestContext | undefined;
let receiver: Receiver | undefined;
let sandbox: ReturnType<typeof serve> | undefined;

afterEach(async () => {
  await sandbox?.stop();
  if (ctx) await stopWorkers(ctx.deps);
  await receiver?.stop();
  ctx = receiver = sandbox = undefined;
});

const query = (params: Record<string, string>) => `/webhook?${new URLSearchParams(params)}`;

describe("POST /webhook with query parameters", () => {
  test("a webhook made from the query string alone, with no body, receives its event", async () => {
    ctx = await setup();
    startWorkers(ctx.deps);
    sandbox = serve(ctx);
    receiver = startReceiver();
    // As a client built from the real description sends it: no body, no content type.
    const made = await fetch(`${sandbox.url}${query({ target_url: receiver.url, event: "create_customer" })}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ctx.apiKey}` },
    });
    expect(made.status).toBe(200);
    const hook = (await made.json()) as any;
    expect(hook).toMatchObject({ url: receiver.url, target_url: receiver.url, event: "create_customer" });
    const customer = await ctx.call("POST", "/customer", { body: { firstname: "Query", lastname: "String" } });
    expect(customer.status).toBe(200);
    const got = await waitFor(() => receiver!.delivered()[0], 10_000, "the create_customer delivery");
    expect(got?.event).toBe("create_customer");
    expect(got?.json.id).toBe(customer.body.id);
  });

  test("one in the query and one in the body; given in both, the body's wins", async () => {
    ctx = await setup();
    const mixed = await ctx.call("POST", query({ target_url: "http://127.0.0.1:9/mixed" }), {
      body: { event: "create_invoice", meta: { webhook_retry_count: 2 } },
    });
    expect(mixed.status).toBe(200);
    expect(mixed.body).toMatchObject({
      target_url: "http://127.0.0.1:9/mixed",
      event: "create_invoice",
      meta: { webhook_retry_count: 2 },
    });
    const other = await ctx.call("POST", query({ event: "update_customer" }), {
      body: { target_url: "http://127.0.0.1:9/other" },
    });
    expect(other.body).toMatchObject({ target_url: "http://127.0.0.1:9/other", event: "update_customer" });
    const both = await ctx.call("POST", query({ target_url: "http://127.0.0.1:9/query", event: "create_customer" }), {
      body: { target_url: "http://127.0.0.1:9/body", event: "update_transaction" },
    });
    expect(both.status).toBe(200);
    expect(both.body).toMatchObject({ target_url: "http://127.0.0.1:9/body", event: "update_transaction" });
    const listed = await ctx.call("GET", "/webhook");
    expect(listed.body.data.map((w: any) => w.target_url).sort()).toEqual([
      "http://127.0.0.1:9/body",
      "http://127.0.0.1:9/mixed",
      "http://127.0.0.1:9/other",
    ]);
  });

  test("a query parameter breaking a rule, or neither place giving a member, is a 422 naming it; nothing is made", async () => {
    ctx = await setup();
    const badEvent = await ctx.call("POST", query({ target_url: "http://127.0.0.1:9/x", event: "nope" }));
    expect(badEvent.status).toBe(422);
    expect(Object.keys(badEvent.body.errors)).toEqual(["event"]);
    const badUrl = await ctx.call("POST", query({ target_url: "ftp://127.0.0.1/x", event: "*" }));
    expect(badUrl.status).toBe(422);
    expect(badUrl.body.errors.target_url).toEqual(["The target_url must be an http:// or https:// URL."]);
    const none = await ctx.call("POST", "/webhook", { body: {} });
    expect(none.status).toBe(422);
    expect(none.body.errors).toEqual({
      target_url: ["The target_url field is required."],
      event: ["The event field is required."],
    });
    // The body's blank member wins over the query's value, and is refused as blank.
    const blank = await ctx.call("POST", query({ event: "*" }), {
      body: { target_url: "http://127.0.0.1:9/x", event: "" },
    });
    expect(blank.status).toBe(422);
    expect(blank.body.errors).toEqual({ event: ["The event field is required."] });
    expect((await ctx.call("GET", "/webhook")).body.data).toEqual([]);
  });
});
