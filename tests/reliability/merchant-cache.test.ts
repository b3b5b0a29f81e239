/**
 * The merchant-by-key cache with several processes on one database (issue 19; issue 17: a key
 * rotated through one process must stop working in the others). Two real sandbox processes share
 * one database; the API key is regenerated through the first one's dashboard; the second must
 * refuse the old key at once and accept the new one.
 *
 * - SQLite (two processes on one file): the cache is checked against the file's data_version,
 *   which another process's commit changes; a hit costs no query.
 * - PostgreSQL: nothing is cached (no cheap mark of other processes' commits), so each request
 *   reads the merchant.
 *
 * Bounded: a handful of requests, every wait capped.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describePostgres, postgresDatabase, POSTGRES_TIMEOUT_MS } from "../support/postgres";
import { startReadySandbox, type ReadySandbox as Sandbox } from "../support/process";

const running: Sandbox[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const sandbox of running.splice(0)) sandbox.child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function startSandbox(db: string): Promise<Sandbox> {
  const sandbox = await startReadySandbox(db);
  running.push(sandbox);
  return sandbox;
}

async function self(sandbox: Sandbox, key: string): Promise<number> {
  const res = await fetch(`${sandbox.url}/self`, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(20_000),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Regenerates the default merchant's API key through a process's dashboard; the new key, as its keys page shows it. */
async function regenerateApiKey(sandbox: Sandbox): Promise<string> {
  const res = await fetch(`${sandbox.url}/dashboard/keys/regenerate`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: sandbox.url },
    body: JSON.stringify({ keys: "api_key" }),
    signal: AbortSignal.timeout(20_000),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  const page = await (await fetch(`${sandbox.url}/dashboard/keys`, { signal: AbortSignal.timeout(20_000) })).text();
  const key = /sk_sandbox_[A-Za-z0-9_-]+/.exec(page)?.[0];
  if (!key) throw new Error("the keys page shows no sk_sandbox_ key");
  return key;
}

/** Both processes have resolved the key (cached where there is a cache); one rotates it. */
async function rotationIsSeenByTheOther(db: string): Promise<void> {
  const [one, two] = await Promise.all([startSandbox(db), startSandbox(db)]);
  const oldKey = one!.apiKey;
  expect(two!.apiKey).toBe(oldKey);
  expect(await self(one!, oldKey)).toBe(200);
  expect(await self(two!, oldKey)).toBe(200);
  expect(await self(two!, oldKey)).toBe(200); // a cache hit, where there is a cache

  const newKey = await regenerateApiKey(one!);
  expect(newKey).not.toBe(oldKey);
  expect(await self(one!, oldKey)).toBe(401);
  expect(await self(two!, oldKey)).toBe(401);
  expect(await self(two!, newKey)).toBe(200);
  expect(await self(one!, newKey)).toBe(200);
}

describe("the merchant cache, two processes on one SQLite file", () => {
  test("an API key regenerated through one process stops working in the other at once; the new one works in both", async () => {
    const dir = mkdtempSync(join(tmpdir(), "paysandbox-cache-"));
    dirs.push(dir);
    const file = join(dir, "shared.sqlite");
    // Created and migrated by one process first, so both do not race to create the file.
    const first = await startSandbox(file);
    first.child.kill("SIGTERM");
    await first.child.exited;
    running.splice(running.indexOf(first), 1);
    await rotationIsSeenByTheOther(file);
  }, 120_000);
});

describePostgres("the merchant cache, two processes on one PostgreSQL database", () => {
  test(
    "an API key regenerated through one process stops working in the other at once; the new one works in both",
    async () => {
      await rotationIsSeenByTheOther(await postgresDatabase("merchant_cache"));
    },
    POSTGRES_TIMEOUT_MS,
  );
});
