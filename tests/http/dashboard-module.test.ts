/**
 * The dashboard is several plugins (src/http/dashboard/routes: pages, actions, live refresh,
 * assets), and each guards itself: mounted without the app's request pipeline, every dashboard
 * route still refuses a remote client.
 */
import { expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { Elysia, type TSchema } from "elysia";
import { dashboardRoutes } from "../../src/http/dashboard/routes";
import { setup } from "../support/app";

/** Bodies Value.Create cannot make valid (Elysia's t.Integer is a union whose first member defaults to 0). */
const VALID_BODIES: Record<string, unknown> = { "/dashboard/clock/advance": { seconds: 1 } };

const fakeServer = (address: string) => ({
  requestIP: () => ({ address, family: "IPv4", port: 5000 }),
  timeout: () => {},
});

test("every dashboard route answers a remote client 403 forbidden by itself, and a loopback one otherwise", async () => {
  const ctx = await setup();
  const dashboard = new Elysia().use(dashboardRoutes(ctx.deps));
  const send = async (address: string, method: string, path: string, schema: TSchema | undefined) => {
    (dashboard as { server: unknown }).server = fakeServer(address);
    const controller = new AbortController();
    const url = `http://localhost${path.replaceAll(":id", "00000000-0000-4000-8000-000000000000")}`;
    // A body its schema accepts, so the answer is the guard's, not validation's (which runs first).
    const body =
      method === "GET" ? undefined : JSON.stringify(VALID_BODIES[path] ?? (schema ? Value.Create(schema) : {}));
    const res = await dashboard.handle(
      new Request(url, { method, body, headers: { "content-type": "application/json" }, signal: controller.signal }),
    );
    controller.abort(); // ends the live-refresh stream
    await res.body?.cancel();
    return res.status;
  };
  expect(dashboard.routes.length).toBeGreaterThan(30);
  for (const { method, path, hooks } of dashboard.routes) {
    const schema = (hooks as { body?: TSchema }).body;
    const route = `${method} ${path}`;
    expect({ route, status: await send("203.0.113.9", method, path, schema) }).toEqual({ route, status: 403 });
    expect({ route, refused: (await send("127.0.0.1", method, path, schema)) === 403 }).toEqual({
      route,
      refused: false,
    });
  }
});
