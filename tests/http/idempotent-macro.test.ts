import { beforeEach, describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { setup, type TestContext } from "../support/app";
import { merchantAuth } from "../../src/http/auth";
import { idempotency } from "../../src/http/idempotency";

let ctx: TestContext;
let runs: string[];
let receipts: string[];

/** A small app with two idempotent routes of its own, on the sandbox's storage, auth and clock. */
function demoApp() {
  return new Elysia()
    .use(merchantAuth(ctx.deps))
    .use(idempotency(ctx.deps))
    .post(
      "/thing/:id/touch",
      ({ params, body, idempotently }) =>
        idempotently(async () => {
          runs.push(params.id);
          return {
            status: body.n > 0 ? 201 : 402,
            body: { id: params.id, n: body.n, run: runs.length },
            afterCommit: async () => void receipts.push(params.id),
          };
        }),
      { idempotent: "POST /thing/:id/touch", body: t.Object({ n: t.Number() }) },
    )
    .post(
      "/fails",
      ({ idempotently }) =>
        idempotently(async () => {
          runs.push("fails");
          throw new Error("work failed");
        }),
      { idempotent: "POST /fails" },
    );
}

async function post(app: ReturnType<typeof demoApp>, path: string, body: unknown, key?: string) {
  const headers: Record<string, string> = { "content-type": "application/json", authorization: `Bearer ${ctx.apiKey}` };
  if (key !== undefined) headers["idempotency-key"] = key;
  const res = await app.handle(
    new Request(`http://localhost${path}`, { method: "POST", headers, body: JSON.stringify(body) }),
  );
  return {
    status: res.status,
    replayed: res.headers.get("idempotent-replayed"),
    body: await res.json().catch(() => null),
  };
}

beforeEach(async () => {
  ctx = await setup();
  runs = [];
  receipts = [];
});

describe("the idempotent macro", () => {
  test("a route's work runs once per key; the repeat answers its stored status and body, marked replayed", async () => {
    const app = demoApp();
    const first = await post(app, "/thing/a/touch", { n: 1 }, "k");
    const again = await post(app, "/thing/a/touch", { n: 1 }, "k");
    expect(first).toEqual({ status: 201, replayed: null, body: { id: "a", n: 1, run: 1 } });
    expect(again).toEqual({ status: 201, replayed: "true", body: { id: "a", n: 1, run: 1 } });
    expect(runs).toEqual(["a"]);
  });

  test("a status other than 200 is kept and replayed too", async () => {
    const app = demoApp();
    const first = await post(app, "/thing/a/touch", { n: 0 }, "k");
    const again = await post(app, "/thing/a/touch", { n: 0 }, "k");
    expect([first.status, again.status]).toEqual([402, 402]);
    expect(runs).toEqual(["a"]);
  });

  test("the scope's :id comes from the path: the same key on another id is another request", async () => {
    const app = demoApp();
    await post(app, "/thing/a/touch", { n: 1 }, "k");
    const other = await post(app, "/thing/b/touch", { n: 1 }, "k");
    expect(other.replayed).toBeNull();
    expect(runs).toEqual(["a", "b"]);
  });

  test("afterCommit runs after the first run only, never on a replay", async () => {
    const app = demoApp();
    await post(app, "/thing/a/touch", { n: 1 }, "k");
    await post(app, "/thing/a/touch", { n: 1 }, "k");
    expect(receipts).toEqual(["a"]);
  });

  test("without a key each request answers its own status and body, runs afterCommit, and is not replayed", async () => {
    const app = demoApp();
    const first = await post(app, "/thing/a/touch", { n: 1 });
    const second = await post(app, "/thing/a/touch", { n: -1 });
    expect(first).toEqual({ status: 201, replayed: null, body: { id: "a", n: 1, run: 1 } });
    expect(second).toEqual({ status: 402, replayed: null, body: { id: "a", n: -1, run: 2 } });
    expect(receipts).toEqual(["a", "a"]);
    const failed = await post(app, "/fails", {});
    expect(failed.status).toBe(500);
    expect(receipts).toEqual(["a", "a"]);
  });

  test("the same key with another body is a 409, and the work does not run", async () => {
    const app = demoApp();
    await post(app, "/thing/a/touch", { n: 1 }, "k");
    const res = await post(app, "/thing/a/touch", { n: 2 }, "k");
    expect(res.status).toBe(409);
    expect(runs).toEqual(["a"]);
  });

  test("without a key every request runs; a key of 256 characters is a 422 before any work", async () => {
    const app = demoApp();
    await post(app, "/thing/a/touch", { n: 1 });
    await post(app, "/thing/a/touch", { n: 1 });
    const long = await post(app, "/thing/a/touch", { n: 1 }, "x".repeat(256));
    expect(long.status).toBe(422);
    expect(runs).toEqual(["a", "a"]);
  });

  test("work that throws stores nothing: the same key runs again", async () => {
    const app = demoApp();
    await post(app, "/fails", {}, "k");
    await post(app, "/fails", {}, "k");
    expect(runs).toEqual(["fails", "fails"]);
  });
});
