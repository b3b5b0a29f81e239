/**
 * A sandbox listening beyond loopback (--host 0.0.0.0, what a phone on the LAN needs), as a real
 * process: the default merchant gets random keys kept in the database and printed in the banner,
 * the documented keys are refused with a message that says why, and asking for them at start is
 * an error. (Reaching it from another interface: tests/security/loopback.test.ts.)
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MERCHANT_MESSAGES } from "../../src/services/merchants";
import { FROM_SOURCES, runToExit, startServer, type Running } from "../support/process";
import { API_KEY, CARD, TOKEN, waitFor } from "../support/app";

const dir = mkdtempSync(join(tmpdir(), "paysandbox-lan-"));
const servers: Running[] = [];
afterAll(async () => {
  for (const server of servers) if (server.child.exitCode === null) await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function start(db: string, extra: string[]) {
  const server = await startServer([...FROM_SOURCES, "--port", "0", "--db", db, "--quiet", ...extra]);
  servers.push(server);
  const banner = await waitFor(
    () => (/API key\s+\S+/.test(server.stdout()) ? server.stdout() : ""),
    10_000,
    "the banner",
  );
  const port = new URL(server.url).port;
  return {
    server,
    banner,
    base: `http://127.0.0.1:${port}`,
    apiKey: /API key\s+(\S+)/.exec(banner)![1]!,
    token: /Web payments token\s+(\S+)/.exec(banner)![1]!,
    secret: /Webhook secret\s+(\S+)/.exec(banner)?.[1],
  };
}

describe("bound beyond loopback", () => {
  const db = join(dir, "lan.sqlite");

  test("random keys and webhook secret in the banner; the documented keys answer 401 saying why", async () => {
    const lan = await start(db, ["--host", "0.0.0.0"]);
    expect(lan.apiKey).not.toBe(API_KEY);
    expect(lan.apiKey).toMatch(/^sk_sandbox_/);
    expect(lan.token).not.toBe(TOKEN);
    expect(lan.banner).toContain("the documented sandbox keys are off");
    const self = await fetch(`${lan.base}/self`, { headers: { authorization: `Bearer ${lan.apiKey}` } });
    expect(self.status).toBe(200);
    expect(((await self.json()) as { webhook_secret: string }).webhook_secret).toBe(lan.secret!);

    const wellKnown = await fetch(`${lan.base}/self`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(wellKnown.status).toBe(401);
    expect(await wellKnown.json()).toEqual({
      code: "unauthenticated",
      message: MERCHANT_MESSAGES.wellKnownRefused(API_KEY),
    });
    const publicToken = await fetch(`${lan.base}/webpayment/${TOKEN}/tokenize`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(CARD),
    });
    expect(publicToken.status).toBe(401);
    expect(((await publicToken.json()) as { message: string }).message).toBe(MERCHANT_MESSAGES.wellKnownRefused(TOKEN));
    const tokenized = await fetch(`${lan.base}/webpayment/${lan.token}/tokenize`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(CARD),
    });
    expect(tokenized.status).toBe(200);
    await lan.server.stop();

    // Kept in the database: a restart answers to the same keys.
    const again = await start(db, ["--host", "0.0.0.0"]);
    expect([again.apiKey, again.token, again.secret]).toEqual([lan.apiKey, lan.token, lan.secret]);
    await again.server.stop();

    // Back on loopback, the documented keys are the default merchant's again.
    const local = await start(db, []);
    expect(local.apiKey).toBe(API_KEY);
    expect(local.secret).toBeUndefined();
    expect((await fetch(`${local.base}/self`, { headers: { authorization: `Bearer ${API_KEY}` } })).status).toBe(200);
    await local.server.stop();
  }, 60_000);

  test("asking for the documented key with --host 0.0.0.0 stops the start with a clear message", async () => {
    for (const flags of [
      ["--api-key", API_KEY],
      ["--web-payments-token", TOKEN],
    ]) {
      const run = await runToExit([...FROM_SOURCES, "--host", "0.0.0.0", "--port", "0", "--db", ":memory:", ...flags]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`${flags[0]} ${flags[1]} is the documented key`);
      expect(run.stderr).toContain("listens beyond loopback");
    }
    // Keys of one's own are fine.
    const own = await start(":memory:", ["--host", "0.0.0.0", "--api-key", "sk_my_own_key_123"]);
    expect(own.apiKey).toBe("sk_my_own_key_123");
    await own.server.stop();
  }, 60_000);
});
