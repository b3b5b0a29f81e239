/**
 * Invoice schedules survive a crash mid-advance (issue 30): a real sandbox process advancing its
 * clock four years over a monthly schedule is killed with SIGKILL part-way; started again, it
 * finishes the advance's occurrences. Every occurrence happens exactly once — one invoice, one
 * charge, one receipt each, stamped with the occurrence's own time — on SQLite, and on PostgreSQL
 * with a second process running beside the one killed.
 *
 * Bounded: 48 occurrences, every wait capped.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CARD } from "../support/app";
import { describePostgres, postgresDatabase, POSTGRES_TIMEOUT_MS } from "../support/postgres";
import { startReadySandbox, type ReadySandbox } from "../support/process";

const MONTHS = 48;
const dir = mkdtempSync(join(tmpdir(), "paysandbox-schedules-"));
const running: ReadySandbox[] = [];

afterAll(() => {
  for (const sandbox of running) sandbox.child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

async function start(db: string): Promise<ReadySandbox> {
  const sandbox = await startReadySandbox(db);
  running.push(sandbox);
  return sandbox;
}

async function kill(sandbox: ReadySandbox): Promise<void> {
  sandbox.child.kill("SIGKILL");
  await sandbox.child.exited;
}

async function call(sandbox: ReadySandbox, method: string, path: string, body?: unknown) {
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox.apiKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, json: (await res.json()) as any };
}

async function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

const invoiceCount = async (sandbox: ReadySandbox) => (await call(sandbox, "GET", "/invoice?per_page=1")).json.total;

/**
 * A schedule billing a card on the 3rd of every month from next month; answers the occurrence
 * times (as the API writes them) and the schedule.
 */
async function monthlySchedule(sandbox: ReadySandbox) {
  const pm = await fetch(`${sandbox.url}/webpayment/${sandbox.token}/tokenize`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...CARD, card_exp: "1235" }),
  }).then((res) => res.json() as Promise<{ id: string }>);
  const now = new Date((await call(sandbox, "GET", "/_sandbox/clock")).json.now.replace(" ", "T") + "Z");
  const at = (k: number) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1 + k, 3, 14);
  const ical = new Date(at(0))
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
  const made = await call(sandbox, "POST", "/invoice/schedule", {
    rule: `FREQ=MONTHLY;DTSTART=${ical}`,
    total: 25,
    payment_method_id: pm.id,
  });
  expect(made.status).toBe(201);
  const stamps = Array.from({ length: MONTHS }, (_, k) => new Date(at(k)).toISOString().slice(0, 19).replace("T", " "));
  const seconds = Math.ceil((at(MONTHS - 1) + 86_400_000 - now.getTime()) / 1000);
  return { schedule: made.json, stamps, seconds };
}

/**
 * Starts the advance and kills the process once some, not all, of the occurrences are done. The
 * progress is read from the database itself: the process is busy with the advance.
 */
async function killMidAdvance(sandbox: ReadySandbox, seconds: number, made: () => Promise<number>): Promise<number> {
  void call(sandbox, "POST", "/_sandbox/clock/advance", { seconds }).catch(() => undefined);
  const deadline = Date.now() + 60_000;
  while ((await made()) < 2) {
    if (Date.now() > deadline) throw new Error("the advance made no invoice");
    await Bun.sleep(5);
  }
  await kill(sandbox);
  return made();
}

/** Invoices in the SQLite file, read beside the sandbox (WAL: a reader never waits). */
function sqliteCount(path: string): () => Promise<number> {
  return async () => {
    const db = new Database(path, { readonly: true });
    try {
      return (db.query("SELECT COUNT(*) AS n FROM invoices").get() as { n: number }).n;
    } catch {
      return 0; // not created yet
    } finally {
      db.close();
    }
  };
}

/** Invoices in the PostgreSQL database, read beside the sandboxes. */
function postgresCount(url: string): { count: () => Promise<number>; close: () => Promise<void> } {
  const client = new SQL(url);
  return {
    count: async () => Number((await client`SELECT COUNT(*) AS n FROM invoices`)[0].n),
    close: () => client.close(),
  };
}

/** Every occurrence exactly once, with its own time: invoices, charges, receipts, the schedule's count. */
async function expectExactlyOnce(sandbox: ReadySandbox, scheduleId: string, stamps: string[]) {
  await waitUntil("every occurrence", async () => ((await invoiceCount(sandbox)) >= stamps.length ? true : undefined));
  await Bun.sleep(1500); // a duplicate would show up within a tick
  const invoices = (await call(sandbox, "GET", "/invoice?per_page=200")).json.data.reverse();
  expect(invoices.map((i: { created_at: string }) => i.created_at)).toEqual(stamps);
  for (const invoice of invoices) {
    expect(invoice).toMatchObject({ schedule_id: scheduleId, status: "PAID" });
    expect(invoice.child_transactions.map((t: { created_at: string }) => t.created_at)).toEqual([invoice.created_at]);
  }
  expect((await call(sandbox, "GET", "/transaction?per_page=1")).json.total).toBe(stamps.length);
  const emails = await fetch(`${sandbox.url}/_sandbox/emails?per_page=200`).then((res) => res.json() as any);
  const receipts = emails.data.filter((e: { kind: string }) => e.kind === "receipt");
  expect(receipts.map((e: { created_at: string }) => e.created_at).sort()).toEqual(stamps);
  expect((await call(sandbox, "GET", `/invoice/schedule/${scheduleId}`)).json).toMatchObject({
    count: stamps.length,
    last_run_at: stamps.at(-1),
  });
}

describe("invoice schedules across a crash (SQLite)", () => {
  test("a process killed mid-advance and started again runs every occurrence exactly once", async () => {
    const db = join(dir, "schedules.sqlite");
    const first = await start(db);
    const { schedule, stamps, seconds } = await monthlySchedule(first);
    const seen = await killMidAdvance(first, seconds, sqliteCount(db));
    const again = await start(db);
    // The advance's target was stored first: the restarted process's first tick catches up.
    expect(seen).toBeLessThan(MONTHS);
    await expectExactlyOnce(again, schedule.id, stamps);
  }, 180_000);
});

describePostgres("invoice schedules across a crash (two processes, PostgreSQL)", () => {
  test(
    "one process killed mid-advance: the other and the restarted one run every occurrence exactly once",
    async () => {
      const db = await postgresDatabase("schedules_crash");
      const first = await start(db);
      const second = await start(db);
      const { schedule, stamps, seconds } = await monthlySchedule(first);
      const reader = postgresCount(db);
      const seen = await killMidAdvance(first, seconds, reader.count);
      await reader.close();
      expect(seen).toBeLessThan(MONTHS);
      // The second process sees the stored clock within a second and runs occurrences too, beside
      // the restarted first: they take turns on each schedule's row.
      const restarted = await start(db);
      await expectExactlyOnce(second, schedule.id, stamps);
      await expectExactlyOnce(restarted, schedule.id, stamps);
    },
    POSTGRES_TIMEOUT_MS * 2,
  );
});
