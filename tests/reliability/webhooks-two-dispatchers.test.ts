/**
 * The database is the webhook queue: two sandboxes (each its own connection, services and
 * dispatcher) on one database — a SQLite file, or with PAYSANDBOX_TEST_DB=postgres one PostgreSQL
 * database through two connection pools — share the outbox, and a real receiver counts what arrives. Every
 * delivery is sent exactly once whichever sandbox wrote it, each record's events stay in order,
 * and the claims of a dispatcher that went silent (a killed process) are released and sent by
 * the other.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildDeps, composeApp, stopWorkers } from "../../src/entry/app";
import { openSqlite } from "../../src/storage/sqlite/database";
import { openPostgres } from "../../src/storage/postgres/database";
import { onPostgres } from "../support/database";
import { migratedPostgresDatabase } from "../support/postgres";
import { memoryLogger } from "../../src/lib/logger";
import { INTERRUPTED_MESSAGE, type WebhookDispatcher } from "../../src/services/webhooks/dispatcher";
import * as deliveriesRepo from "../../src/storage/repositories/webhook-claims";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import { API_KEY, waitFor } from "../support/app";

const dir = mkdtempSync(join(tmpdir(), "paysandbox-two-dispatchers-"));
const opened: { deps: Awaited<ReturnType<typeof buildDeps>> }[] = [];
const receivers: Receiver[] = [];

afterEach(async () => {
  for (const { deps } of opened.splice(0)) {
    await stopWorkers(deps);
    await deps.db.close();
  }
  for (const receiver of receivers.splice(0)) await receiver.stop();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Where two sandboxes meet: a SQLite file, or a fresh migrated PostgreSQL database's URL. */
async function sharedDatabase(name: string): Promise<string> {
  return onPostgres ? migratedPostgresDatabase(name) : join(dir, `${name}.sqlite`);
}

/** A sandbox on the shared database: its own connection, services and dispatcher (not started). */
async function sandbox(path: string) {
  const db = onPostgres ? await openPostgres(path, { max: 5 }) : await openSqlite(path);
  const deps = await buildDeps({ db, log: memoryLogger(), publicUrl: "http://localhost:7290" });
  opened.push({ deps });
  const app = composeApp(deps);
  const dispatcher = deps.workers.find((w) => w.name === "webhooks") as WebhookDispatcher;
  const call = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const json = await res.json();
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return { deps, dispatcher, call };
}

/** Each delivery id with how many times the receiver got it. */
function countsById(receiver: Receiver): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of receiver.received) counts.set(r.deliveryId!, (counts.get(r.deliveryId!) ?? 0) + 1);
  return counts;
}

describe("two dispatchers on one database", () => {
  test("every delivery is sent exactly once, by one or the other, and each record's events in order", async () => {
    const path = await sharedDatabase("shared");
    const receiver = startReceiver(() => 200);
    receivers.push(receiver);
    const one = await sandbox(path);
    const two = await sandbox(path);
    await one.call("POST", "/webhook", { target_url: receiver.url, event: "*" });

    // 40 customers written half by each sandbox, and an update of every fourth: 50 deliveries queued.
    const customers: string[] = [];
    for (let i = 0; i < 40; i++) {
      const side = i % 2 === 0 ? one : two;
      const customer = await side.call("POST", "/customer", { firstname: `C${i}`, email: `c${i}@example.com` });
      customers.push(customer.id);
      if (i % 4 === 0) await side.call("PUT", `/customer/${customer.id}`, { notes: "updated" });
    }

    // Both start at once and race for the same due rows.
    one.dispatcher.start();
    two.dispatcher.start();
    await waitFor(
      () => {
        one.dispatcher.kick();
        two.dispatcher.kick();
        return receiver.delivered().length >= 50;
      },
      20_000,
      "50 deliveries at the receiver",
    );
    await one.dispatcher.idle();
    await two.dispatcher.idle();

    const counts = countsById(receiver);
    expect(counts.size).toBe(50);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(receiver.received).toHaveLength(50);
    // Both took part, and between them they claimed each delivery once.
    expect(one.dispatcher.claimed).toBeGreaterThan(0);
    expect(two.dispatcher.claimed).toBeGreaterThan(0);
    expect(one.dispatcher.claimed + two.dispatcher.claimed).toBe(50);
    // A record's update never arrives before its create, whichever dispatcher sent each.
    for (const [i, id] of customers.entries()) {
      const events = receiver.received.filter((r) => r.json.id === id).map((r) => r.event);
      expect(events).toEqual(i % 4 === 0 ? ["create_customer", "update_customer"] : ["create_customer"]);
    }
    const log = await two.call("GET", "/_sandbox/webhook-deliveries?per_page=100");
    expect(log.data).toHaveLength(50);
    expect(log.data.every((d: any) => d.status === "delivered" && d.attempt_log.length === 1)).toBe(true);
  }, 40_000);

  test("the claims of a dispatcher that went silent are released, logged as interrupted, and sent once by another", async () => {
    const path = await sharedDatabase("silent");
    const receiver = startReceiver(() => 200);
    receivers.push(receiver);
    const one = await sandbox(path);
    await one.call("POST", "/webhook", { target_url: receiver.url, event: "create_customer" });
    for (let i = 0; i < 3; i++) await one.call("POST", "/customer", { firstname: `S${i}`, email: `s${i}@example.com` });

    // A dispatcher of another process claimed all three and had one request out when it died.
    const storage = one.deps.db;
    await deliveriesRepo.heartbeat(storage, "killed-process", 0);
    const merchantId = (await one.call("GET", "/self")).merchant.id;
    const claimed = await deliveriesRepo.claimDue(storage, "killed-process", merchantId, Date.now() + 60_000, 10);
    expect(claimed).toHaveLength(3);
    await deliveriesRepo.insertAttempt(storage, {
      id: crypto.randomUUID(),
      merchantId,
      deliveryId: claimed[0]!.id,
      attempt: 1,
      startedAt: claimed[0]!.created_at,
      requestHeaders: "{}",
    });

    // While the claims are held, nobody else sends them.
    const two = await sandbox(path);
    expect(await deliveriesRepo.earliestReady(storage, merchantId)).toBeUndefined();

    two.dispatcher.start();
    await waitFor(
      () => {
        two.dispatcher.kick();
        return receiver.delivered().length >= 3;
      },
      10_000,
      "the three deliveries",
    );
    await two.dispatcher.idle();
    expect([...countsById(receiver).values()]).toEqual([1, 1, 1]);
    expect(new Set(receiver.received.map((r) => r.deliveryId))).toEqual(new Set(claimed.map((d) => d.id)));
    const interrupted = await one.call("GET", `/_sandbox/webhook-deliveries/${claimed[0]!.id}`);
    expect(interrupted.status).toBe("delivered");
    expect(interrupted.attempt_log.map((a: any) => [a.success, a.error])).toEqual([
      [false, INTERRUPTED_MESSAGE],
      [true, null],
    ]);
    expect(await deliveriesRepo.silentDispatchers(storage, Date.now() + 1)).not.toContain("killed-process");
  }, 30_000);
});
