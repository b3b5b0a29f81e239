/**
 * Webhook deliveries survive the sandbox stopping: a real server process killed with SIGKILL
 * while deliveries are out or queued sends them after restart, in order per record; a retry
 * scheduled before a restart is still sent when its time comes.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildDeps, composeApp, startWorkers, stopWorkers } from "../../src/entry/app";
import { openSqlite } from "../../src/storage/sqlite/database";
import { memoryLogger } from "../../src/lib/logger";
import { RETRY_DELAYS_MS } from "../../src/domain/webhook-policy";
import { INTERRUPTED_MESSAGE } from "../../src/services/webhooks/dispatcher";
import { verifyPaySandboxSignature } from "../../packages/webhooks/verify";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import { waitFor } from "../support/app";

const ROOT = join(import.meta.dir, "..", "..");
const API_KEY = "sandbox_api_key";
const dir = mkdtempSync(join(tmpdir(), "paysandbox-webhooks-"));
const children: Subprocess[] = [];
const receivers: Receiver[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill("SIGKILL");
    await child.exited;
  }
  for (const receiver of receivers.splice(0)) await receiver.stop();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `bun src/entry/server.ts --port 0 --db <file>` and resolves with its URL from the banner. */
async function startServer(dbPath: string): Promise<{ url: string; child: Subprocess }> {
  const child = Bun.spawn([process.execPath, "src/entry/server.ts", "--port", "0", "--db", dbPath, "--quiet"], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, PAYSANDBOX_WEBHOOK_TIMEOUT_MS: "60000" },
  });
  children.push(child);
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let out = "";
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const chunk = await Promise.race([reader.read(), Bun.sleep(deadline - Date.now()).then(() => null)]);
    if (!chunk || chunk.done) break;
    out += decoder.decode(chunk.value);
    const match = /API\s+(http:\/\/\S+)/.exec(out);
    if (match) {
      // Keep draining stdout so the child never blocks on a full pipe.
      void (async () => {
        while (!(await reader.read()).done);
      })().catch(() => {});
      return { url: match[1]!.replace("localhost", "127.0.0.1"), child };
    }
  }
  child.kill("SIGKILL");
  throw new Error(`the server did not start: ${out}\n${await new Response(child.stderr as ReadableStream).text()}`);
}

async function api(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

describe("webhook deliveries across a crash", () => {
  test("a server killed with SIGKILL while deliveries are out or queued delivers them all after restart, in order per record", async () => {
    const dbPath = join(dir, "killed.sqlite");
    const receiver = startReceiver(() => "hang");
    receivers.push(receiver);

    const first = await startServer(dbPath);
    const hook = await api(first.url, "POST", "/webhook", { target_url: receiver.url, event: "*" });
    const a = await api(first.url, "POST", "/customer", { firstname: "Ann", email: "ann@example.com" });
    const b = await api(first.url, "POST", "/customer", { firstname: "Bob", email: "bob@example.com" });
    await api(first.url, "PUT", `/customer/${a.id}`, { notes: "after the create" });
    // Both creates are out (the receiver holds them); A's update waits behind A's create.
    await waitFor(() => receiver.received.length === 2, 10_000, "two requests at the receiver");
    expect(receiver.received.map((r) => r.json.id).sort()).toEqual([a.id, b.id].sort());

    first.child.kill("SIGKILL");
    await first.child.exited;
    receiver.behave(() => 200);

    const second = await startServer(dbPath);
    await waitFor(() => receiver.delivered().length === 3, 15_000, "three deliveries after restart");
    const delivered = receiver.delivered();
    expect(delivered.filter((r) => r.json.id === a.id).map((r) => [r.event, r.json.notes])).toEqual([
      ["create_customer", null],
      ["update_customer", "after the create"],
    ]);
    expect(delivered.filter((r) => r.json.id === b.id).map((r) => r.event)).toEqual(["create_customer"]);
    const secret = (await api(second.url, "GET", "/self")).webhook_secret;
    for (const r of delivered) expect(verifyPaySandboxSignature(r.raw, r.headers, secret)).toBe(true);
    // The requests cut off by the crash were the same deliveries, sent again with the same id.
    const interruptedIds = receiver.received.slice(0, 2).map((r) => r.deliveryId);
    expect(delivered.map((r) => r.deliveryId)).toEqual(expect.arrayContaining(interruptedIds));

    const log = await waitFor(
      async () => {
        const page = await api(second.url, "GET", `/webhook/${hook.id}/deliveries`);
        return page.data.every((d: any) => d.status === "delivered") ? page.data : null;
      },
      10_000,
      "the log to show every delivery delivered",
    );
    expect(log).toHaveLength(3);
    for (const d of log.filter((d: any) => interruptedIds.includes(d.id))) {
      expect(d.attempts).toBe(1);
      expect(d.attempt_log.map((x: any) => [x.success, x.error])).toEqual([
        [false, INTERRUPTED_MESSAGE],
        [true, null],
      ]);
    }
  }, 60_000);

  test("a retry scheduled before a restart is sent when the sandbox clock reaches it after the restart", async () => {
    const dbPath = join(dir, "retry.sqlite");
    const receiver = startReceiver((_r, n) => (n === 1 ? 500 : 200));
    receivers.push(receiver);

    const first = await startServer(dbPath);
    const hook = await api(first.url, "POST", "/webhook", { target_url: receiver.url, event: "create_customer" });
    await api(first.url, "POST", "/customer", { firstname: "Cy", email: "cy@example.com" });
    await waitFor(
      async () => (await api(first.url, "GET", `/webhook/${hook.id}/deliveries`)).data[0].attempts === 1,
      10_000,
      "the failed first attempt to be logged",
    );
    first.child.kill("SIGKILL");
    await first.child.exited;

    const second = await startServer(dbPath);
    const [pending] = (await api(second.url, "GET", `/webhook/${hook.id}/deliveries`)).data;
    expect(pending).toMatchObject({ status: "pending", attempts: 1, last_status_code: 500 });
    await api(second.url, "POST", "/_sandbox/clock/advance", { seconds: RETRY_DELAYS_MS[0]! / 1000 });
    await waitFor(() => receiver.delivered().length === 1, 10_000, "the retry");
    expect(receiver.received.map((r) => r.answered)).toEqual([500, 200]);
    expect(receiver.received[1]!.deliveryId).toBe(pending.id);
  }, 60_000);
});

describe("webhook deliveries across a graceful stop (same SQLite file, new app)", () => {
  test("stopping the dispatcher cuts requests short, logs them as interrupted, and a new app on the file sends them", async () => {
    const dbPath = join(dir, "graceful.sqlite");
    const receiver = startReceiver(() => "hang");
    receivers.push(receiver);
    // SQLite in both test passes: an app re-opened on the same file stands for a restarted process.
    const open = async () => {
      const deps = await buildDeps({
        db: await openSqlite(dbPath),
        log: memoryLogger(),
        publicUrl: "http://localhost:7290",
      });
      return { deps, app: composeApp(deps) };
    };
    const call = async (app: Awaited<ReturnType<typeof open>>["app"], method: string, path: string, body?: unknown) => {
      const res = await app.handle(
        new Request(`http://localhost${path}`, {
          method,
          headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
      return res.json() as Promise<any>;
    };

    const one = await open();
    startWorkers(one.deps);
    const hook = await call(one.app, "POST", "/webhook", { target_url: receiver.url, event: "create_customer" });
    await call(one.app, "POST", "/customer", { firstname: "Di", email: "di@example.com" });
    await waitFor(() => receiver.received.length === 1, 5000, "the request to be out");
    await stopWorkers(one.deps);
    await one.deps.db.close();

    receiver.behave(() => 200);
    const two = await open();
    startWorkers(two.deps);
    try {
      await waitFor(() => receiver.delivered().length === 1, 5000, "the delivery after restart");
      const d = await waitFor(
        async () => {
          const [row] = (await call(two.app, "GET", `/webhook/${hook.id}/deliveries`)).data;
          return row.status === "delivered" ? row : null;
        },
        5000,
        "the log to show it delivered",
      );
      expect(d.attempts).toBe(1);
      expect(d.attempt_log.map((x: any) => [x.success, x.error])).toEqual([
        [false, INTERRUPTED_MESSAGE],
        [true, null],
      ]);
      expect(receiver.received.map((r) => r.deliveryId)).toEqual([d.id, d.id]);
    } finally {
      await stopWorkers(two.deps);
      await two.deps.db.close();
    }
  });
});
