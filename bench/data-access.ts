#!/usr/bin/env bun
/**
 * `npm run bench:data-access` — the evidence for the storage layer's data-access approach
 * (docs/architecture.md, "Data access: Kysely or hand-written SQL"): POST /charge served with
 * hand-written SQL through the `sql` tag (src/storage/database.ts, SqliteDatabase with group
 * commit) and with the Kysely query builder on the same kind of connection and group commit
 * (bench/data-access-kysely.ts), in the same run, on the same seeded WAL SQLite file.
 *
 * 1. Seeds a template database with the real migrations (openDatabase): the default merchant, one
 *    customer, `--methods` payment methods and as many earlier transactions.
 * 2. Checks, in-process, that both approaches run the same statements per /charge (2 reads,
 *    1 write, BEGIN/SAVEPOINT/RELEASE/COMMIT; one more write per matching webhook) — else exits 1.
 * 3. Microbenchmark: the same SELECT (a payment method by id and merchant) `--iterations` times
 *    each way: bun:sqlite's prepared statement alone (the floor), the `sql` tag through
 *    SqliteDatabase.get, Kysely's build + compile alone, and Kysely's build + compile + execute.
 * 4. Load: bench/data-access-server.ts started once per approach and round (`--rounds`,
 *    alternating which goes first), each on a fresh copy of the template, warmed for 2 s, then
 *    `wrk -t2 -c50 -d10s` on loopback; requests/s, p50/p99 latency and the server's CPU µs per
 *    request (process.cpuUsage before and after, read from GET /_stats).
 *
 * Options: --duration S (10), --connections N (50), --rounds N (3), --methods N (200000),
 * --iterations N (100000), --quick (3 s phases, 1 round, 20k rows: a smoke run), --seed-only PATH
 * (write the template database there and stop).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sql } from "../src/storage/database";
import { SqliteDatabase } from "../src/storage/sqlite/database";
import { closeDatabase, openDatabase } from "../src/storage/sqlite/open";
import { countStatements } from "../src/storage/sqlite/statement-counter";
import { sha256Hex } from "../src/lib/crypto";
import { APPROACHES, chargeApp, openStorage, type Approach } from "./data-access-server";
import { kyselyPlain, type ChargeTables, type PaymentMethodRow } from "./data-access-kysely";

const ROOT = resolve(import.meta.dir, "..");
const API_KEY = "bench_data_access_key";
const MERCHANT = "0000bec0-0000-4000-8000-000000000001";
const CUSTOMER = "0000bec0-0000-4000-8000-0000000000c1";
/** Seeded payment method ids: this prefix and a 12-digit counter (UUID-shaped). */
const PM_PREFIX = "0000bec1-0000-4000-8000-";

function argument(flag: string): string | undefined {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] : undefined;
}
const quick = process.argv.includes("--quick");
const options = {
  duration: Number(argument("--duration") ?? (quick ? 3 : 10)),
  connections: Number(argument("--connections") ?? 50),
  rounds: Number(argument("--rounds") ?? (quick ? 1 : 3)),
  methods: Number(argument("--methods") ?? (quick ? 20_000 : 200_000)),
  iterations: Number(argument("--iterations") ?? (quick ? 20_000 : 100_000)),
};
const round = (value: number, digits = 2) => Number(value.toFixed(digits));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

// ---------------------------------------------------------------- seeding

/** The template database: real migrations, then rows written with SQL (fast, no HTTP). */
function seed(path: string): void {
  const db = openDatabase(path);
  const now = new Date().toISOString().slice(0, 19).replace("T", " ");
  db.transaction(() => {
    db.run(
      `INSERT INTO merchants (id, name, email, web_payments_token, web_payments_token_hash, api_key, api_key_hash,
         webhook_secret, is_default, created_at, updated_at)
       VALUES (?, 'Bench', 'bench@example.com', 'bench_token', ?, ?, ?, 'whsec_bench', 1, ?, ?)`,
      [MERCHANT, sha256Hex("bench_token"), API_KEY, sha256Hex(API_KEY), now, now],
    );
    db.run(
      `INSERT INTO customers (id, merchant_id, firstname, lastname, email, phone, address_1, address_city,
         address_state, address_zip, match_key, created_at, updated_at)
       VALUES (?, ?, 'Bench', 'Mark', 'bench@example.com', '5555550100', '1 Load Street', 'Orlando', 'FL', '32822',
         'bench@example.com|bench|mark', ?, ?)`,
      [CUSTOMER, MERCHANT, now, now],
    );
    db.run(
      `INSERT INTO payment_methods (id, merchant_id, customer_id, method, person_name, card_type, card_last_four,
         card_exp, address_zip, address_1, has_cvv, fingerprint, outcome, created_at, updated_at)
       WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ? - 1)
       SELECT ? || printf('%012d', n), ?, ?, 'card', 'Bench Mark', 'visa', '1111', '1230', '32822', '1 Load Street', 1,
         'fp', 'approve', ?, ? FROM seq`,
      [options.methods, PM_PREFIX, MERCHANT, CUSTOMER, now, now],
    );
    db.run(
      `INSERT INTO transactions (id, merchant_id, customer_id, payment_method_id, method, type, success, total_cents,
         last_four, auth_id, issuer_auth_code, meta, reference_id, source, created_at, updated_at)
       WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ? - 1)
       SELECT printf('00000000-0000-4000-8000-%012d', n), ?, ?, ? || printf('%012d', n % ?), 'card', 'charge', 1,
         100 + n % 9900, '1111', printf('A%09d', n), '123456', '{}', printf('A%09d', n), 'api', ?, ? FROM seq`,
      [options.methods, MERCHANT, CUSTOMER, PM_PREFIX, options.methods, now, now],
    );
  }).immediate();
  closeDatabase(db);
}

const pmId = (n: number) => `${PM_PREFIX}${String(n % options.methods).padStart(12, "0")}`;

// ---------------------------------------------------------------- same statements, both ways

async function statementsPerCharge(template: string, dir: string, approach: Approach, withWebhook: boolean) {
  const path = join(dir, `count-${approach}-${withWebhook}.db`);
  copyFileSync(template, path);
  const raw = openDatabase(path);
  if (withWebhook) {
    raw.run(
      `INSERT INTO webhooks (id, merchant_id, target_url, event, created_at, updated_at)
       VALUES ('hook-1', ?, 'http://127.0.0.1:9/hook', '*', '2026-01-01 00:00:00', '2026-01-01 00:00:00')`,
      [MERCHANT],
    );
  }
  const counter = countStatements(raw);
  const app = chargeApp(openStorage(approach, raw));
  const post = async (n: number) => {
    const response = await app.handle(
      new Request("http://localhost/charge", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${API_KEY}` },
        body: JSON.stringify({ payment_method_id: pmId(n), total: 10.5, meta: { reference: "bench" } }),
      }),
    );
    if (response.status !== 200)
      throw new Error(`${approach}: /charge answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as { id: string; total: number };
  };
  await post(1); // warm: the merchant and its webhooks are cached now
  counter.take();
  const answer = await post(2);
  const count = counter.take();
  const deliveries = raw.query("SELECT COUNT(*) AS n FROM webhook_deliveries").get() as { n: number };
  closeDatabase(raw);
  rmSync(path, { force: true });
  return { count, answer, deliveries: deliveries.n };
}

async function checkSameStatements(template: string, dir: string): Promise<Record<Approach, string[]>> {
  const logs = {} as Record<Approach, string[]>;
  for (const withWebhook of [false, true]) {
    const expected = { read: 2, write: withWebhook ? 2 : 1, control: 4 };
    for (const approach of APPROACHES) {
      const { count, answer, deliveries } = await statementsPerCharge(template, dir, approach, withWebhook);
      const got = { read: count.read, write: count.write, control: count.control };
      if (JSON.stringify(got) !== JSON.stringify(expected) || answer.total !== 10.5) {
        console.error(`${approach}${withWebhook ? " (with a webhook)" : ""}: ${JSON.stringify(got)}`, count.log);
        throw new Error(`${approach} does not run the statements of a sandbox /charge (${JSON.stringify(expected)})`);
      }
      if (deliveries !== (withWebhook ? 2 : 0)) throw new Error(`${approach}: ${deliveries} webhook deliveries`);
      if (!withWebhook) logs[approach] = count.log;
    }
  }
  return logs;
}

// ---------------------------------------------------------------- microbenchmark

interface Micro {
  name: string;
  /** CPU microseconds per query (process.cpuUsage: immune to waiting for a shared core), per run. */
  cpu: number[];
  /** Wall-clock microseconds per query, per run. */
  wall: number[];
}

/** A transaction row as /charge writes it (22 columns), for the INSERT variants. */
function newTransaction(id: string) {
  return {
    id,
    merchant_id: MERCHANT,
    invoice_id: null,
    customer_id: CUSTOMER,
    payment_method_id: pmId(1),
    method: "card" as const,
    type: "charge",
    success: 1,
    total_cents: 1050,
    last_four: "1111",
    auth_id: "auth",
    issuer_auth_code: "123456",
    message: null,
    decline_code: null,
    meta: "{}",
    is_merchant_present: 1,
    reference_id: "auth",
    source: "api",
    pre_auth: 0,
    receipt_email_at: null,
    created_at: "2026-01-01 00:00:00",
    updated_at: "2026-01-01 00:00:00",
  };
}

/** Per run, each variant `iterations` times, interleaved so the machine's noise falls on all alike. */
async function measure(variants: { name: string; run: (i: number) => unknown }[], runs: number, iterations: number) {
  const results: Micro[] = variants.map((v) => ({ name: v.name, cpu: [], wall: [] }));
  for (let repetition = 0; repetition <= runs; repetition++) {
    for (const [index, variant] of variants.entries()) {
      // Repetition 0 warms up (JIT, caches) and is not kept.
      const count = repetition === 0 ? Math.max(1, Math.min(10_000, iterations >> 2)) : iterations;
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < count; i++) await variant.run(i);
      const wall = ((performance.now() - t0) * 1000) / count;
      const cpu = process.cpuUsage(c0);
      if (repetition > 0) {
        results[index]!.cpu.push((cpu.user + cpu.system) / count);
        results[index]!.wall.push(wall);
      }
    }
  }
  return results;
}

async function microbenchmark(template: string, dir: string): Promise<Micro[]> {
  const path = join(dir, "micro.db");
  copyFileSync(template, path);
  const raw = openDatabase(path);
  const db = new SqliteDatabase(raw);
  const k = kyselyPlain<ChargeTables>(raw);
  const prepared = raw.prepare<PaymentMethodRow, [string, string]>(
    "SELECT * FROM payment_methods WHERE id = ? AND merchant_id = ?",
  );
  const ids = Array.from({ length: 1024 }, (_, n) => pmId(n * 193));
  const id = (i: number) => ids[i & 1023]!;
  const select = (pm: string) => sql`SELECT * FROM payment_methods WHERE id = ${pm} AND merchant_id = ${MERCHANT}`;
  const kyselySelect = (pm: string) =>
    k.selectFrom("payment_methods").selectAll().where("id", "=", pm).where("merchant_id", "=", MERCHANT);
  const rows = Array.from({ length: 1024 }, (_, n) =>
    newTransaction(`00000000-0000-4000-8000-9${String(n).padStart(11, "0")}`),
  );
  const insert = (r: ReturnType<typeof newTransaction>) =>
    sql`INSERT INTO transactions (id, merchant_id, invoice_id, customer_id, payment_method_id, method, type, success,
          total_cents, last_four, auth_id, issuer_auth_code, message, decline_code, meta, is_merchant_present,
          reference_id, source, pre_auth, receipt_email_at, created_at, updated_at)
        VALUES (${r.id}, ${r.merchant_id}, ${r.invoice_id}, ${r.customer_id}, ${r.payment_method_id}, ${r.method},
          ${r.type}, ${r.success}, ${r.total_cents}, ${r.last_four}, ${r.auth_id}, ${r.issuer_auth_code}, ${r.message},
          ${r.decline_code}, ${r.meta}, ${r.is_merchant_present}, ${r.reference_id}, ${r.source}, ${r.pre_auth},
          ${r.receipt_email_at}, ${r.created_at}, ${r.updated_at})
        RETURNING *`;
  const variants: { name: string; run: (i: number) => unknown }[] = [
    { name: "SELECT: bun:sqlite prepared statement alone (the floor)", run: (i) => prepared.get(id(i), MERCHANT) },
    { name: "SELECT: sql tag, build + render only", run: (i) => db.prepare(select(id(i))) },
    { name: "SELECT: sql tag, build + render + execute (SqliteDatabase.get)", run: (i) => db.get(select(id(i))) },
    { name: "SELECT: Kysely, build + compile only", run: (i) => kyselySelect(id(i)).compile() },
    { name: "SELECT: Kysely, build + compile + execute", run: (i) => kyselySelect(id(i)).executeTakeFirst() },
    { name: "INSERT (22 columns): sql tag, build + render only", run: (i) => db.prepare(insert(rows[i & 1023]!)) },
    {
      name: "INSERT (22 columns): Kysely, build + compile only",
      run: (i) =>
        k
          .insertInto("transactions")
          .values(rows[i & 1023]!)
          .returningAll()
          .compile(),
    },
  ];
  // The executing variants must read the same row, and both INSERTs compile to the same parameters.
  for (const variant of [variants[0]!, variants[2]!, variants[4]!]) {
    const row = (await variant.run(7)) as PaymentMethodRow | undefined;
    if (row?.id !== id(7)) throw new Error(`${variant.name} read ${JSON.stringify(row)}`);
  }
  const rendered = db.prepare(insert(rows[0]!)).params;
  const compiled = k.insertInto("transactions").values(rows[0]!).returningAll().compile().parameters;
  if (JSON.stringify(rendered) !== JSON.stringify(compiled)) throw new Error("the two INSERTs differ");
  const results = await measure(variants, 3, options.iterations);
  await k.destroy().catch(() => {});
  rmSync(path, { force: true });
  return results;
}

// ---------------------------------------------------------------- in-process /charge

/**
 * POST /charge through app.handle (no socket, no load generator), `concurrency` at a time: the
 * CPU each approach spends per charge, with nothing else of the machine in the number.
 */
async function inProcess(template: string, dir: string, approach: Approach, charges: number, concurrency: number) {
  const path = join(dir, `inproc-${approach}.db`);
  copyFileSync(template, path);
  const raw = openDatabase(path);
  const app = chargeApp(openStorage(approach, raw));
  let n = 0;
  const one = async () => {
    const response = await app.handle(
      new Request("http://localhost/charge", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${API_KEY}` },
        body: JSON.stringify({ payment_method_id: pmId(n++), total: 10.5, meta: { reference: "bench" } }),
      }),
    );
    if (response.status !== 200) throw new Error(`${approach}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  const batch = () => Promise.all(Array.from({ length: concurrency }, one));
  for (let i = 0; i < 1000 / concurrency; i++) await batch(); // warm-up
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < charges / concurrency; i++) await batch();
  const wall = ((performance.now() - t0) * 1000) / charges;
  const cpu = process.cpuUsage(c0);
  closeDatabase(raw);
  rmSync(path, { force: true });
  rmSync(`${path}-wal`, { force: true });
  rmSync(`${path}-shm`, { force: true });
  return { cpu: (cpu.user + cpu.system) / charges, wall };
}

// ---------------------------------------------------------------- load

const children = new Set<ChildProcess>();
function stopAll(): void {
  for (const child of children) child.kill("SIGKILL");
}
process.on("SIGINT", () => {
  stopAll();
  process.exit(130);
});

async function startServer(approach: Approach, db: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [join(ROOT, "bench/data-access-server.ts"), "--approach", approach, "--db", db],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.add(child);
  let output = "";
  const port = await new Promise<number>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no port within 20 s: ${output}`)), 20_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^port (\d+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        done(Number(match[1]));
      }
    });
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => fail(new Error(`server exited with ${code}: ${output}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("exit", () => {
      clearTimeout(timer);
      children.delete(child);
      done();
    });
    child.kill("SIGTERM");
  });
}

function wrkScript(): string {
  return `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer ${API_KEY}"
local n = 0
request = function()
  n = n + 1
  local body = string.format('{"payment_method_id":"${PM_PREFIX}%012d","total":10.5,"meta":{"reference":"bench"}}', n % ${options.methods})
  return wrk.format(nil, "/charge", nil, body)
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK{"requests":%d,"duration_us":%d,"p50":%.3f,"p99":%.3f,"max":%.3f,"non2xx":%d,"errors":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, e.status, e.connect + e.read + e.write + e.timeout))
end
`;
}

interface WrkResult {
  requests: number;
  duration_us: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
}

async function wrk(url: string, seconds: number, script: string): Promise<WrkResult> {
  const args = ["-t2", `-c${options.connections}`, `-d${seconds}s`, "--timeout", "5s", "-s", script, url];
  const child = spawn("wrk", args, { stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const killer = setTimeout(() => child.kill("SIGKILL"), (seconds + 20) * 1000);
  await new Promise((done) => child.once("exit", done));
  clearTimeout(killer);
  children.delete(child);
  const line = /WRK(\{.*\})/.exec(out)?.[1];
  if (!line) throw new Error(`wrk gave no result: ${out}`);
  return JSON.parse(line) as WrkResult;
}

interface Stats {
  cpu: { user: number; system: number };
  charges: number;
  batches: number;
}

async function stats(url: string): Promise<Stats> {
  return (await (await fetch(`${url}/_stats`)).json()) as Stats;
}

interface Run {
  round: number;
  approach: Approach;
  rps: number;
  p50: number;
  p99: number;
  cpu_us_per_request: number;
  requests_per_commit: number;
  load_before: number;
}

async function loadRun(template: string, dir: string, script: string, approach: Approach, index: number) {
  const path = join(dir, `load-${approach}-${index}.db`);
  copyFileSync(template, path);
  const { child, url } = await startServer(approach, path);
  try {
    await wrk(url, 2, script); // warm-up: JIT, caches, the WAL
    const load_before = loadavg()[0]!;
    const before = await stats(url);
    const result = await wrk(url, options.duration, script);
    const after = await stats(url);
    if (result.non2xx > 0 || result.errors > 0) {
      throw new Error(`${approach}: ${result.non2xx} non-2xx answers and ${result.errors} socket errors`);
    }
    const charges = after.charges - before.charges;
    const cpu = after.cpu.user + after.cpu.system - (before.cpu.user + before.cpu.system);
    return {
      round: index,
      approach,
      rps: round(result.requests / (result.duration_us / 1e6), 0),
      p50: round(result.p50),
      p99: round(result.p99),
      cpu_us_per_request: round(cpu / Math.max(1, charges), 0),
      requests_per_commit: round(charges / Math.max(1, after.batches - before.batches), 1),
      load_before: round(load_before),
    } satisfies Run;
  } finally {
    await stopServer(child);
    rmSync(path, { force: true });
    rmSync(`${path}-wal`, { force: true });
    rmSync(`${path}-shm`, { force: true });
  }
}

// ---------------------------------------------------------------- main

if (spawnSync("wrk", ["--version"]).error !== undefined) {
  console.error("bench:data-access needs wrk (apt-get install wrk)");
  process.exit(1);
}
const seedOnly = argument("--seed-only");
if (seedOnly) {
  seed(seedOnly);
  process.exit(0);
}
const dir = mkdtempSync(join(tmpdir(), "paysandbox-data-access-"));
try {
  const cpu = cpus();
  console.log(
    `# data access: the sql tag vs Kysely on POST /charge\n\n` +
      `machine: ${cpu.length} × ${cpu[0]?.model ?? "?"}; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(
          " ",
        )}; Bun ${Bun.version}; kysely ${JSON.parse(readFileSync(join(ROOT, "node_modules/kysely/package.json"), "utf8")).version}\n` +
      `options: ${JSON.stringify(options)}\n`,
  );
  const template = join(dir, "template.db");
  const t0 = performance.now();
  seed(template);
  console.log(
    `seeded ${options.methods} payment methods and transactions in ${round((performance.now() - t0) / 1000, 1)} s`,
  );

  const logs = await checkSameStatements(template, dir);
  console.log("\n## Statements per /charge (same count both ways: 2 reads, 1 write, 4 control)\n");
  for (const approach of APPROACHES) {
    console.log(`${approach}:`);
    for (const line of logs[approach]) console.log(`    ${line.replace(/\s+/g, " ").slice(0, 110)}`);
  }

  console.log(
    `\n## Per-query overhead: each ${options.iterations} times, 3 runs interleaved (CPU µs per query and wall µs)\n`,
  );
  console.log("| variant | median CPU µs | runs (CPU µs) | median wall µs |\n| --- | --- | --- | --- |");
  const micro = await microbenchmark(template, dir);
  for (const m of micro) {
    console.log(
      `| ${m.name} | ${round(median(m.cpu))} | ${m.cpu.map((r) => round(r)).join(", ")} | ${round(median(m.wall))} |`,
    );
  }

  const inProcessCharges = quick ? 2000 : 6000;
  console.log(
    `\n## POST /charge in-process (app.handle, 50 at a time, ${inProcessCharges} charges, 3 runs interleaved): CPU µs per charge\n`,
  );
  console.log("| approach | median CPU µs | runs (CPU µs) | median wall µs |\n| --- | --- | --- | --- |");
  const inProc: Record<Approach, { cpu: number[]; wall: number[] }> = {
    sql: { cpu: [], wall: [] },
    kysely: { cpu: [], wall: [] },
    "kysely-mutex": { cpu: [], wall: [] },
  };
  for (let run = 0; run < 3; run++) {
    for (const approach of Object.keys(inProc) as Approach[]) {
      const result = await inProcess(template, dir, approach, inProcessCharges, 50);
      inProc[approach].cpu.push(result.cpu);
      inProc[approach].wall.push(result.wall);
    }
  }
  for (const [approach, r] of Object.entries(inProc)) {
    const name = approach === "kysely-mutex" ? "kysely with its own connection mutex" : approach;
    console.log(
      `| ${name} | ${round(median(r.cpu), 0)} | ${r.cpu.map((c) => round(c, 0)).join(", ")} | ${round(median(r.wall), 0)} |`,
    );
  }

  const script = join(dir, "charge.lua");
  writeFileSync(script, wrkScript());
  console.log(
    `\n## POST /charge under wrk -t2 -c${options.connections} -d${options.duration}s (after a 2 s warm-up each)\n`,
  );
  console.log(
    "| round | approach | req/s | p50 ms | p99 ms | CPU µs/req | requests per commit | load avg before |\n| --- | --- | --- | --- | --- | --- | --- | --- |",
  );
  const runs: Run[] = [];
  for (let index = 1; index <= options.rounds; index++) {
    const order = index % 2 === 1 ? APPROACHES : [...APPROACHES].reverse();
    for (const approach of order) {
      const run = await loadRun(template, dir, script, approach, index);
      runs.push(run);
      console.log(
        `| ${run.round} | ${run.approach} | ${run.rps} | ${run.p50} | ${run.p99} | ${run.cpu_us_per_request} | ${run.requests_per_commit} | ${run.load_before} |`,
      );
    }
  }
  console.log("\n## Medians\n\n| approach | req/s | p99 ms | CPU µs/req |\n| --- | --- | --- | --- |");
  const summary = {} as Record<Approach, { rps: number; p99: number; cpu: number }>;
  for (const approach of APPROACHES) {
    const mine = runs.filter((r) => r.approach === approach);
    summary[approach] = {
      rps: median(mine.map((r) => r.rps)),
      p99: median(mine.map((r) => r.p99)),
      cpu: median(mine.map((r) => r.cpu_us_per_request)),
    };
    const s = summary[approach];
    console.log(`| ${approach} | ${round(s.rps, 0)} | ${round(s.p99)} | ${round(s.cpu, 0)} |`);
  }
  const ratio = (a: number, b: number) => `${a > b ? "+" : ""}${round(((a - b) / b) * 100, 1)}%`;
  console.log(
    `\nkysely vs sql: req/s ${ratio(summary.kysely.rps, summary.sql.rps)}, p99 ${ratio(summary.kysely.p99, summary.sql.p99)}, ` +
      `CPU per request ${ratio(summary.kysely.cpu, summary.sql.cpu)}; load average now ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
  );
} finally {
  stopAll();
  rmSync(dir, { recursive: true, force: true });
}
