import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { DEFAULT_CONFIG, type Config } from "../../lib/config";
import { memoryLogger } from "../../lib/logger";
import { errorEnvelope } from "./error-envelope";
import { HostAllowlist, hostCheck, splitHost } from "./host";
import { GUARD_MESSAGES } from "./messages";

const config = (overrides: Partial<Config> = {}): Config => ({ ...DEFAULT_CONFIG, ...overrides });

describe("HostAllowlist", () => {
  test("loopback names on the listening port; any port without a server; --allow-host by name or name:port", () => {
    const hosts = new HostAllowlist(config({ allowHost: ["devbox.local", "phone.test:8080"] }), () => "");
    expect(hosts.allows("localhost:7290", 7290)).toBe(true);
    expect(hosts.allows("[::1]:7290", 7290)).toBe(true);
    expect(hosts.allows("localhost:7291", 7290)).toBe(false);
    expect(hosts.allows("127.0.0.1:9999", undefined)).toBe(true);
    expect(hosts.allows("devbox.local:1234", 7290)).toBe(true);
    expect(hosts.allows("phone.test:8080", 7290)).toBe(true);
    expect(hosts.allows("phone.test:8081", 7290)).toBe(false);
    expect(hosts.allows("rebind.attacker.test:7290", 7290)).toBe(false);
  });

  test("the public URL's host is allowed, read again when it changes", () => {
    let publicUrl = "https://sandbox.team.internal";
    const hosts = new HostAllowlist(config(), () => publicUrl);
    expect(hosts.allows("sandbox.team.internal", 7290)).toBe(true);
    expect(hosts.allows("sandbox.team.internal:443", 7290)).toBe(true);
    publicUrl = "http://other.internal:8000";
    expect(hosts.allows("sandbox.team.internal", 7290)).toBe(false);
    expect(hosts.allows("other.internal:8000", 7290)).toBe(true);
  });

  test("a decision it remembers follows the listening port and the public URL; endless Host values stay refused", () => {
    let publicUrl = "http://sandbox.internal:8000";
    const hosts = new HostAllowlist(config(), () => publicUrl);
    expect(hosts.allows("localhost:7290", 7290)).toBe(true);
    expect(hosts.allows("localhost:7290", 7291)).toBe(false);
    expect(hosts.allows("localhost:7290", 7290)).toBe(true);
    expect(hosts.allows("sandbox.internal:8000", 7290)).toBe(true);
    publicUrl = "http://elsewhere.internal:8000";
    expect(hosts.allows("sandbox.internal:8000", 7290)).toBe(false);
    for (let i = 0; i < 500; i++) expect(hosts.allows(`rebind-${i}.attacker.test:7290`, 7290)).toBe(false);
    expect(hosts.allows("localhost:7290", 7290)).toBe(true);
    expect(hosts.allows("rebind-0.attacker.test:7290", 7290)).toBe(false);
  });

  test("splitHost lower-cases and keeps IPv6 brackets", () => {
    expect(splitHost("LocalHost:7290")).toEqual({ name: "localhost", port: "7290" });
    expect(splitHost("[::1]")).toEqual({ name: "[::1]", port: "" });
  });
});

describe("hostCheck", () => {
  const deps = { config: config(), publicUrl: "http://localhost:7290" };
  const app = new Elysia()
    .use(hostCheck(deps))
    .use(errorEnvelope({ log: memoryLogger() }))
    .get("/", () => "reached");
  const get = (host: string) => app.handle(new Request("http://localhost/", { headers: { host } }));

  test("a request to a foreign Host is refused with 403 before its route runs", async () => {
    const response = await get("rebind.attacker.test");
    expect(response.status).toBe(403);
    expect(((await response.json()) as { message: string }).message).toBe(
      GUARD_MESSAGES.foreignHost("rebind.attacker.test"),
    );
  });

  test("loopback names reach the route", async () => {
    for (const host of ["localhost:7290", "127.0.0.1", "[::1]:7290", "10.0.2.2:7290"]) {
      expect(await (await get(host)).text()).toBe("reached");
    }
  });
});
