/**
 * The sandbox controls are one module (src/http/routes/sandbox): every `/_sandbox` route of the real
 * app comes from its one plugin, and each of its controls refuses a remote client by itself, even
 * mounted without the app's request pipeline.
 */
import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { sandboxRoutes } from "../../src/http/routes/sandbox";
import { setup } from "../support/app";

const routeKeys = (app: { routes: { method: string; path: string }[] }) =>
  app.routes.map((route) => `${route.method} ${route.path}`).sort();

const fakeServer = (address: string) => ({ requestIP: () => ({ address, family: "IPv4", port: 5000 }) });

describe("the sandbox-control module", () => {
  test("registers every /_sandbox route of the app, and nothing else", async () => {
    const ctx = await setup();
    const module = routeKeys(new Elysia().use(sandboxRoutes(ctx.deps)));
    const app = routeKeys(ctx.app);
    expect(module.length).toBeGreaterThan(10);
    for (const key of module) expect(key).toMatch(/^[A-Z]+ \/_sandbox(\/|$)/);
    // A /_sandbox route registered by any other plugin would be in the app's table and not in the module's.
    expect(app.filter((key) => /^[A-Z]+ \/_sandbox(\/|$)/.test(key))).toEqual(module);
  });

  test("each of its routes answers a remote client 403 forbidden without the app's pipeline, and a loopback one otherwise", async () => {
    const ctx = await setup();
    const module = new Elysia().use(sandboxRoutes(ctx.deps));
    const send = async (address: string, method: string, path: string) => {
      (module as { server: unknown }).server = fakeServer(address);
      const body = method === "GET" ? undefined : JSON.stringify({ seconds: 0 });
      const url = `http://localhost${path.replaceAll(":id", "00000000-0000-4000-8000-000000000000")}`;
      const res = await module.handle(
        new Request(url, { method, body, headers: { "content-type": "application/json" } }),
      );
      return { status: res.status, text: await res.text() };
    };
    for (const { method, path } of module.routes) {
      const remote = await send("203.0.113.9", method, path);
      expect({ route: `${method} ${path}`, status: remote.status }).toEqual({
        route: `${method} ${path}`,
        status: 403,
      });
      expect(remote.text).toContain("--allow-remote");
      const local = await send("127.0.0.1", method, path);
      expect({ route: `${method} ${path}`, refused: local.status === 403 }).toEqual({
        route: `${method} ${path}`,
        refused: false,
      });
    }
  });
});
