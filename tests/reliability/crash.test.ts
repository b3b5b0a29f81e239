/**
 * Crash safety: a real sandbox process on a file database is killed with SIGKILL while /charge
 * and pay() requests are in flight, several times. After each restart every charge that was
 * answered 2xx is stored exactly once, requests that were cut off can be retried safely with
 * their Idempotency-Key, `PRAGMA integrity_check` is ok and the money invariants hold.
 * PAYSANDBOX_CRASH_CYCLES=20 npx bun test tests/reliability/crash.test.ts runs a longer variant.
 * SQLite-only (npm test's PostgreSQL pass leaves it out): it checks the SQLite file itself (integrity_check, WAL) after SIGKILLs.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { API_KEY, CARD, TOKEN } from "../support/app";

const ROOT = resolve(import.meta.dir, "../..");
const CYCLES = Number(process.env.PAYSANDBOX_CRASH_CYCLES ?? 4);
const WORKERS = 12;
const dir = mkdtempSync(join(tmpdir(), "paysandbox-crash-"));
const dbPath = join(dir, "sandbox.sqlite");
let child: ChildProcess | undefined;

afterAll(() => {
  child?.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

const { card_number: _n, card_cvv: _c, card_exp: _e, method: _m, ...CUSTOMER } = CARD;

/** Starts `bun src/entry/server.ts` on the database and resolves with its URL (port read from the banner). */
function start(): Promise<string> {
  child = spawn(process.execPath, ["src/entry/server.ts", "--port", "0", "--db", dbPath, "--quiet"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const proc = child;
  let out = "";
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no banner within 15 s: ${out}`)), 15_000);
    proc.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    proc.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const port = /API\s+http:\/\/[^\s]+:(\d+)/.exec(out)?.[1];
      if (port) {
        clearTimeout(timer);
        done(`http://127.0.0.1:${port}`);
      }
    });
    proc.once("exit", (code, signal) => fail(new Error(`server exited (${code ?? signal}): ${out}`)));
  });
}

function kill(): Promise<void> {
  const proc = child!;
  return new Promise((done) => {
    proc.once("exit", () => done());
    proc.kill("SIGKILL");
  });
}

async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const auth = { authorization: `Bearer ${API_KEY}` };

interface Ledger {
  /** Idempotency key → transaction id, for every charge answered 2xx. */
  charged: Map<string, string>;
  /** Keys of charges cut off by the kill (no answer). */
  cut: Set<string>;
  /** Invoice ids answered PAID. */
  paid: Set<string>;
}

/** One worker: charges (and every fourth worker runs pay() flows) until stopped. */
async function work(url: string, worker: number, cycle: number, pmId: string, ledger: Ledger, stop: { now: boolean }) {
  for (let n = 0; !stop.now; n++) {
    const key = `crash-${cycle}-${worker}-${n}`;
    try {
      if (worker % 4 === 3) {
        const pm = await post(url, `/webpayment/${TOKEN}/tokenize`, CARD, { "idempotency-key": key });
        if (pm.status !== 200) continue;
        const invoice = await post(
          url,
          `/webpayment/${TOKEN}/invoice`,
          { ...CUSTOMER, payment_method_id: pm.body.id, total: 10 + (n % 50), send_receipt: false },
          { "idempotency-key": key },
        );
        if (invoice.status !== 200) continue;
        const paid = await post(
          url,
          `/webpayment/${TOKEN}/invoice/${invoice.body.id}/pay`,
          { payment_method_id: pm.body.id },
          { "idempotency-key": key },
        );
        if (paid.status === 200) ledger.paid.add(paid.body.id);
      } else {
        ledger.cut.add(key);
        const res = await post(
          url,
          "/charge",
          { payment_method_id: pmId, total: (100 + (n % 100)) / 100, meta: { reference: key } },
          { ...auth, "idempotency-key": key },
        );
        ledger.cut.delete(key);
        if (res.status >= 200 && res.status < 300) ledger.charged.set(key, res.body.id);
      }
    } catch {
      // The server died under this request: its key stays in `cut`.
    }
  }
}

function checkDatabase(ledger: Ledger): void {
  const db = new Database(dbPath, { readonly: true });
  try {
    expect(db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all()).toEqual([
      { integrity_check: "ok" },
    ]);
    const byReference = new Map(
      db
        .query<{ ref: string; n: number; id: string }, []>(
          "SELECT json_extract(meta, '$.reference') AS ref, COUNT(*) AS n, MIN(id) AS id FROM transactions GROUP BY ref",
        )
        .all()
        .map((row) => [row.ref, row]),
    );
    for (const [key, id] of ledger.charged) {
      const stored = byReference.get(key);
      expect({ key, n: stored?.n, id: stored?.id }).toEqual({ key, n: 1, id });
    }
    // Every PAID invoice has a successful charge equal to its total, and what it says it was paid adds up.
    const unpaid = db
      .query(
        `SELECT i.id FROM invoices i WHERE i.status = 'PAID' AND NOT EXISTS (
           SELECT 1 FROM transactions t WHERE t.invoice_id = i.id AND t.type = 'charge' AND t.success = 1
             AND t.parent_id IS NULL AND t.total_cents = i.total_cents)`,
      )
      .all();
    expect(unpaid).toEqual([]);
    const unbalanced = db
      .query(
        `SELECT i.id, i.total_paid_cents, (SELECT COALESCE(SUM(t.total_cents), 0) FROM transactions t
           WHERE t.invoice_id = i.id AND t.success = 1 AND t.parent_id IS NULL AND t.type = 'charge') AS charged
         FROM invoices i WHERE i.total_paid_cents <> charged`,
      )
      .all();
    expect(unbalanced).toEqual([]);
    for (const id of ledger.paid)
      expect(db.query<{ status: string }, [string]>("SELECT status FROM invoices WHERE id = ?").get(id)?.status).toBe(
        "PAID",
      );
    // The list total's counter agrees with the rows.
    const drift = db
      .query(
        `SELECT c.merchant_id FROM transaction_counts c WHERE c.top_level <>
           (SELECT COUNT(*) FROM transactions t WHERE t.merchant_id = c.merchant_id AND t.parent_id IS NULL)`,
      )
      .all();
    expect(drift).toEqual([]);
    // Every stored idempotent answer that names a transaction points at a stored one.
    const dangling = db
      .query(
        `SELECT k.key FROM idempotency_keys k WHERE k.scope = 'POST /charge' AND k.status < 300
           AND NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = json_extract(k.body, '$.id'))`,
      )
      .all();
    expect(dangling).toEqual([]);
  } finally {
    db.close();
  }
}

test(`${CYCLES} SIGKILLs under /charge and pay() load lose no acknowledged charge, duplicate none, and keep the database consistent`, async () => {
  let url = await start();
  const pm = await post(url, `/webpayment/${TOKEN}/tokenize`, CARD);
  expect(pm.status).toBe(200);
  const ledger: Ledger = { charged: new Map(), cut: new Set(), paid: new Set() };
  let killedMidFlight = 0;
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const stop = { now: false };
    const workers = Array.from({ length: WORKERS }, (_, w) => work(url, w, cycle, pm.body.id, ledger, stop));
    // Not a wait for an event: the load runs a different while each cycle so the kill lands at a
    // different point of the requests in flight, which is what this test is about.
    await Bun.sleep(300 + ((cycle * 137) % 400));
    const before = ledger.charged.size;
    await kill();
    stop.now = true;
    await Promise.all(workers);
    killedMidFlight += ledger.cut.size;
    expect(ledger.charged.size).toBeGreaterThan(before > 0 ? 0 : -1);
    url = await start();
    checkDatabase(ledger);
    // Requests the kill cut off are safe to retry with their key: each ends as exactly one charge.
    for (const key of ledger.cut) {
      const [, , worker, n] = key.split("-").map(Number) as number[];
      void worker;
      const res = await post(
        url,
        "/charge",
        { payment_method_id: pm.body.id, total: (100 + (n! % 100)) / 100, meta: { reference: key } },
        { ...auth, "idempotency-key": key },
      );
      expect(res.status).toBe(200);
      ledger.charged.set(key, res.body.id);
    }
    ledger.cut.clear();
    checkDatabase(ledger);
  }
  expect(ledger.charged.size).toBeGreaterThan(CYCLES * 10);
  expect(ledger.paid.size).toBeGreaterThan(0);
  // The kills really landed while requests were in flight.
  expect(killedMidFlight).toBeGreaterThan(0);
  await kill();
}, 60_000);
