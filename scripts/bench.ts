#!/usr/bin/env bun
/**
 * `npm run bench` — how fast is the sandbox, measured so anyone can reproduce it.
 *
 * Starts the sandbox (`bun src/entry/server.ts` on a seeded SQLite file; then on a PostgreSQL database,
 * one process and two, when the server binaries are installed) and, for comparison in the same run,
 * a bare Bun.serve JSON endpoint (bench/ceiling.ts) on loopback, and drives each with a load
 * generator in a separate process: wrk when installed (charge, listing, ceiling), autocannon under
 * Node otherwise and always for the chained pay() scenario (bench/load.mjs). Prints a markdown table
 * and writes bench/results.json.
 *
 * Options: --duration SECONDS (each load phase, default 8), --connections N (default 50),
 * --driver wrk|autocannon, --rows N (stored transactions of the big merchant, default 1000000),
 * --quick (3 s phases, 200k rows; a smoke run), --seed-only PATH (build the seeded database and stop).
 * A test suite's per-test costs (startSandbox(), merchant(), a reset, a snapshot's restore) are
 * bench/suite-costs.ts, also runnable alone: `bun bench/suite-costs.ts [--quick]`.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { buildDeps, composeApp } from "../src/entry/app";
import { around } from "../src/storage/sqlite/group-commit";
import { openSqlite } from "../src/storage/sqlite/database";
import { countStatements, type StatementCount } from "../src/storage/sqlite/statement-counter";
import { createLogger } from "../src/lib/logger";
import { sql } from "../src/storage/database";
import { openPostgres } from "../src/storage/postgres/database";
import { migratePostgres } from "../src/storage/postgres/migrate";
import { findPostgresBin, startPostgres } from "../tests/support/postgres";
import { measureSuiteCosts, suiteCostRows } from "../bench/suite-costs";

const ROOT = resolve(import.meta.dir, "..");
const BUN = process.execPath;
const API_KEY = "sandbox_api_key";
const TOKEN = "sandbox_web_payments_token";
const BIG_KEY = "bench_big_api_key";
const SMALL_KEY = "bench_small_api_key";
/** Seeded payment method ids: this prefix and a 12-digit counter (UUID-shaped). */
const PM_PREFIX = "0000bec0-0000-4000-8000-";

const CARD = {
  method: "card",
  card_number: "4111111111111111",
  card_cvv: "123",
  card_exp: "1230",
  person_name: "Bench Mark",
  firstname: "Bench",
  lastname: "Mark",
  email: "bench@example.com",
  phone: "5555550100",
  address_1: "1 Load Street",
  address_city: "Orlando",
  address_state: "FL",
  address_zip: "32822",
};

/** pay()'s extra details without the card fields: the invoice step's body. */
const { card_number: _n, card_cvv: _c, card_exp: _e, method: _m, ...CUSTOMER } = CARD;

interface Options {
  duration: number;
  connections: number;
  driver: "wrk" | "autocannon";
  rows: number;
  methods: number;
}

function parseArgs(argv: string[]): Options {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const quick = argv.includes("--quick");
  const hasWrk = spawnSync("wrk", ["--version"]).error === undefined;
  const driver = (value("--driver") ?? (hasWrk ? "wrk" : "autocannon")) as Options["driver"];
  if (driver === "wrk" && !hasWrk) throw new Error("--driver wrk: wrk is not installed");
  return {
    duration: Number(value("--duration") ?? (quick ? 3 : 8)),
    connections: Number(value("--connections") ?? 50),
    driver,
    rows: Number(value("--rows") ?? (quick ? 200_000 : 1_000_000)),
    methods: 200_000,
  };
}

// ---------------------------------------------------------------- processes

const children = new Set<ChildProcess>();

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, 3000);
    child.once("exit", () => {
      clearTimeout(timer);
      children.delete(child);
      done();
    });
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      child.kill("SIGTERM");
    }
  });
}

function stopAll(): void {
  for (const child of children) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
process.on("SIGINT", () => {
  stopAll();
  process.exit(130);
});

interface Started {
  child: ChildProcess;
  url: string;
  /** Milliseconds from spawn to the first 200. */
  startMs: number;
}

/**
 * Spawns a server command (its own process group), reads the port from its banner and waits for
 * the first 200 on `probe`.
 */
async function startServer(command: string, args: string[], probe = "/self"): Promise<Started> {
  const t0 = performance.now();
  const child = spawn(command, args, { cwd: ROOT, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let output = "";
  const port = await new Promise<number>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no banner within 20 s from ${command}: ${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /API\s+https?:\/\/[^\s:]+:(\d+)/.exec(output) ?? /^port (\d+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off("data", onData);
        done(Number(match[1]));
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => fail(new Error(`${command} exited with ${code}: ${output}`)));
  });
  child.stdout!.resume();
  child.stderr!.resume();
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 10_000; ;) {
    const res = await fetch(url + probe, { headers: { authorization: `Bearer ${API_KEY}` } }).catch(() => null);
    if (res?.status === 200) {
      await res.arrayBuffer();
      break;
    }
    if (Date.now() > deadline) throw new Error(`no 200 on ${probe} within 10 s`);
    await Bun.sleep(2);
  }
  return { child, url, startMs: performance.now() - t0 };
}

/** Resident set size (current and peak) of a process and its children, in MB. */
function rssOf(pid: number): { rss: number; peak: number } {
  let rss = 0;
  let peak = 0;
  const visit = (p: number) => {
    try {
      const status = readFileSync(`/proc/${p}/status`, "utf8");
      rss += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      peak += Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      const kids = readFileSync(`/proc/${p}/task/${p}/children`, "utf8").trim();
      for (const kid of kids ? kids.split(/\s+/) : []) visit(Number(kid));
    } catch {
      // gone
    }
  };
  visit(pid);
  return { rss, peak };
}

/** CPU time (user + system) a process has used, in microseconds (/proc/PID/stat, all its threads). */
function cpuMicros(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return NaN;
  }
}

/** Runs a load phase and returns its result with the server's CPU microseconds per request. */
async function withCpu(pid: number, phase: () => Promise<Load>): Promise<Load & { cpu_us_per_request: number }> {
  const before = cpuMicros(pid);
  const load = await phase();
  const used = cpuMicros(pid) - before;
  return { ...load, cpu_us_per_request: round(used / Math.max(1, load.requests), 0) };
}

/**
 * The SQL statements one POST /charge runs, counted in-process on the server's stack (the same app
 * and group commit, no socket): a warm merchant with no webhook, a fresh payment method, no
 * Idempotency-Key, and a batch of its own (so its BEGIN and COMMIT, which concurrent requests
 * share, are counted in full).
 */
async function statementsPerCharge(): Promise<StatementCount> {
  const db = await openSqlite(":memory:", { groupCommit: true });
  const counter = countStatements(db.raw);
  const deps = await buildDeps({ db, config: { quiet: true }, log: createLogger({ quiet: true }) });
  const app = composeApp(deps);
  const merchant = await deps.services.merchants.getDefault();
  const post = async (path: string, body: unknown) => {
    const response = await around(db, () =>
      app.handle(
        new Request(`http://localhost${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${merchant.api_key}` },
          body: JSON.stringify(body),
        }),
      ),
    );
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as { id: string };
  };
  const tokenize = () => post(`/webpayment/${merchant.web_payments_token}/tokenize`, CARD);
  await post("/charge", { payment_method_id: (await tokenize()).id, total: 1 }); // warm: caches filled
  const pm = await tokenize();
  counter.take();
  await post("/charge", { payment_method_id: pm.id, total: 10.5, meta: { reference: "bench" } });
  const count = counter.take();
  await db.close();
  return count;
}

// ---------------------------------------------------------------- seeding

/**
 * Builds the benchmark database directly with SQL (not through HTTP): the default merchant with
 * `methods` payment methods cloned from one tokenized test card, and two merchants whose
 * transaction lists hold `rows` and 1,000 transactions (already settled, so the start-up settlement
 * catch-up has nothing to batch).
 */
async function seed(path: string, options: Options): Promise<void> {
  const storage = await openSqlite(path);
  const db = storage.raw;
  const deps = await buildDeps({ db: storage, config: { quiet: true }, log: createLogger({ quiet: true }) });
  const { merchants, paymentMethods } = deps.services;
  const tokenized = (merchant: Parameters<typeof paymentMethods.tokenize>[1]) =>
    storage.transaction((tx) => paymentMethods.tokenize(tx, merchant, { ...CARD } as never));
  const merchant = await merchants.getDefault();
  const template = await tokenized(merchant);
  const others: { key: string; rows: number; m: Awaited<ReturnType<typeof merchants.create>>; pm: typeof template }[] =
    [];
  for (const [key, rows] of [
    [BIG_KEY, options.rows],
    [SMALL_KEY, 1000],
  ] as const) {
    const m = await merchants.create({ name: `bench ${rows}`, apiKey: key });
    others.push({ key, rows, m, pm: await tokenized(m) });
  }
  const clone = (merchantId: string, prefix: string, count: number, template: string) =>
    db.run(
      `INSERT INTO payment_methods (id, merchant_id, customer_id, method, person_name, card_type, card_last_four,
         card_exp, address_zip, address_1, has_cvv, fingerprint, outcome, created_at, updated_at)
       WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ? - 1)
       SELECT ? || printf('%012d', n), merchant_id, customer_id, method, person_name, card_type, card_last_four,
         card_exp, address_zip, address_1, has_cvv, fingerprint, outcome, created_at, updated_at
       FROM seq, payment_methods p WHERE p.id = ? AND p.merchant_id = ?`,
      [count, prefix, template, merchantId],
    );
  db.transaction(() => {
    clone(merchant.id, PM_PREFIX, options.methods, template.id);
    for (const { key, rows, m, pm } of others) {
      db.run(
        `INSERT INTO transactions (id, merchant_id, customer_id, payment_method_id, method, type, success, total_cents,
           last_four, auth_id, issuer_auth_code, message, meta, reference_id, source, batch_id, settled_at, fee_cents,
           created_at, updated_at)
         WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ? - 1)
         SELECT printf('%08x-0000-4000-8000-%012d', ?, n), ?, ?, ?, 'card', 'charge', 1, 100 + n % 9900, '1111',
           printf('A%09d', n), '123456', 'Approved', '{}', printf('A%09d', n), 'api', 'bench-seeded',
           strftime('%Y-%m-%d %H:%M:%S', 'now', '-' || n || ' seconds'), 0,
           strftime('%Y-%m-%d %H:%M:%S', 'now', '-' || n || ' seconds'),
           strftime('%Y-%m-%d %H:%M:%S', 'now', '-' || n || ' seconds')
         FROM seq`,
        [rows, key === SMALL_KEY ? 0x5a11 : 0xb16, m.id, pm.customer_id, pm.id],
      );
    }
  }).immediate();
  await storage.close();
}

/**
 * The /charge set-up of `seed` on a PostgreSQL database: the default merchant, a template payment
 * method made through the services, and `count` clones of it with the bench's predictable ids.
 */
async function seedPostgres(url: string, count: number): Promise<void> {
  const storage = await openPostgres(url);
  try {
    await migratePostgres(storage);
    const deps = await buildDeps({ db: storage, config: { quiet: true }, log: createLogger({ quiet: true }) });
    const { merchants, paymentMethods } = deps.services;
    const merchant = await merchants.getDefault();
    const template = await storage.transaction((tx) => paymentMethods.tokenize(tx, merchant, { ...CARD } as never));
    await storage.run(sql`
      INSERT INTO payment_methods (id, merchant_id, customer_id, method, person_name, card_type, card_last_four,
        card_exp, address_zip, address_1, has_cvv, fingerprint, outcome, created_at, updated_at)
      SELECT ${PM_PREFIX} || lpad(n::text, 12, '0'), merchant_id, customer_id, method, person_name, card_type,
        card_last_four, card_exp, address_zip, address_1, has_cvv, fingerprint, outcome, created_at, updated_at
      FROM generate_series(0, ${count} - 1) AS n, payment_methods p WHERE p.id = ${template.id}`);
    for (const worker of deps.workers) await worker.stop();
  } finally {
    await storage.close();
  }
}

/** Two loads of one phase run side by side (two processes): requests and rates add up. */
function sideBySide<L extends Load & { cpu_us_per_request: number }>(a: L, b: L): L {
  const merged = mergeLoads(a, b);
  return { ...merged, rps: a.rps + b.rps };
}

// ---------------------------------------------------------------- load

interface Load {
  driver: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
}

type Scenario = "ceiling" | "charge" | "get" | "pay";

/** The reference servers of bench/ceiling.ts (issue 19's budget table), in the table's order. */
const REFERENCE_MODES = ["elysia", "memory", "wal", "schema"] as const;
type ReferenceMode = (typeof REFERENCE_MODES)[number];
const REFERENCE_LABELS: Record<ReferenceMode, string> = {
  elysia: "Elysia + TypeBox body schema, no database",
  memory: "+ one INSERT into in-memory SQLite",
  wal: "+ one autocommit INSERT into a WAL file",
  schema: "POST /charge's SQL alone: its two reads and INSERT on the seeded file, group-committed",
};

function wrkScript(scenario: Scenario, path: string, apiKey?: string): string {
  const headers = [
    `wrk.headers["Content-Type"] = "application/json"`,
    apiKey ? `wrk.headers["Authorization"] = "Bearer ${apiKey}"` : "",
  ].join("\n");
  const request =
    scenario === "get"
      ? `request = function() return wrk.format("GET", "${path}") end`
      : `local n = 0
request = function()
  n = n + 1
  local body = string.format('{"payment_method_id":"${PM_PREFIX}%012d","total":10.5,"meta":{"reference":"bench"}}', n % ${200_000})
  return wrk.format("POST", "${path}", nil, body)
end`;
  return `${headers}
${request}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK{"requests":%d,"duration_us":%d,"p50":%.3f,"p99":%.3f,"max":%.3f,"non2xx":%d,"errors":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, e.status, e.connect + e.read + e.write + e.timeout))
end
`;
}

async function drive(
  options: Options,
  scenario: Scenario,
  url: string,
  path: string,
  extra: Record<string, unknown> = {},
  seconds = options.duration,
): Promise<Load> {
  const useWrk = options.driver === "wrk" && scenario !== "pay";
  let command: string;
  let args: string[];
  let script: string | undefined;
  if (useWrk) {
    script = join(tmpdir(), `paysandbox-bench-${process.pid}-${scenario}.lua`);
    writeFileSync(script, wrkScript(scenario, path, extra.apiKey as string | undefined));
    command = "wrk";
    args = ["-t", "1", "-c", String(options.connections), "-d", `${seconds}s`, "--timeout", "5s", "-s", script, url];
  } else {
    command = "node";
    const spec = {
      scenario,
      url,
      path,
      connections: options.connections,
      duration: seconds,
      methodPrefix: PM_PREFIX,
      methodCount: options.methods,
      ...extra,
    };
    args = [join(ROOT, "bench/load.mjs"), JSON.stringify(spec)];
  }
  const child = spawn(command, args, { cwd: ROOT, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const killer = setTimeout(() => void stopChild(child), (seconds + 30) * 1000);
  await new Promise((done) => child.once("exit", done));
  clearTimeout(killer);
  children.delete(child);
  if (script) rmSync(script, { force: true });
  if (useWrk) {
    const line = /WRK(\{.*\})/.exec(out)?.[1];
    if (!line) throw new Error(`wrk gave no result: ${out}`);
    const r = JSON.parse(line);
    return { driver: "wrk", ...r, rps: r.requests / (r.duration_us / 1e6) };
  }
  const line = out
    .trim()
    .split("\n")
    .reverse()
    .find((l) => l.startsWith("{"));
  if (!line) throw new Error(`autocannon gave no result: ${out}`);
  const r = JSON.parse(line);
  return {
    driver: "autocannon",
    requests: r.requests,
    rps: r.rps,
    p50: r.p50,
    p99: r.p99,
    max: r.max,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

/** Two runs of the same phase as one: requests and errors add up, rates and latencies average. */
function mergeLoads<L extends Load & { cpu_us_per_request: number }>(a: L, b: L): L {
  return {
    ...a,
    // CPU per request over both runs together.
    cpu_us_per_request: round(
      (a.cpu_us_per_request * a.requests + b.cpu_us_per_request * b.requests) / Math.max(1, a.requests + b.requests),
      0,
    ),
    driver: a.driver,
    requests: a.requests + b.requests,
    rps: (a.rps + b.rps) / 2,
    p50: Math.round(((a.p50 + b.p50) / 2) * 1000) / 1000,
    p99: Math.round(((a.p99 + b.p99) / 2) * 1000) / 1000,
    max: Math.max(a.max, b.max),
    non2xx: a.non2xx + b.non2xx,
    errors: a.errors + b.errors,
  };
}

// ---------------------------------------------------------------- main

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

async function coldStart(command: string, args: (db: string) => string[], runs = 5): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), "paysandbox-start-"));
    const started = await startServer(command, args(join(dir, "db.sqlite")));
    times.push(started.startMs);
    await stopChild(started.child);
    rmSync(dir, { recursive: true, force: true });
  }
  return median(times);
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const seedOnly = process.argv.indexOf("--seed-only");
  if (seedOnly >= 0) {
    // Builds the benchmark database at the given path and stops (for profiling by hand).
    await seed(resolve(process.argv[seedOnly + 1]!), options);
    return;
  }
  const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-bench-"));
  const dbPath = join(dir, "bench.sqlite");
  const load = { before: loadavg()[0]! };
  const results: Record<string, unknown> = {};
  try {
    log(
      `seeding ${options.methods.toLocaleString()} payment methods and ${options.rows.toLocaleString()} + 1,000 transactions…`,
    );
    const seedStart = performance.now();
    await seed(dbPath, options);
    results.seed_seconds = round((performance.now() - seedStart) / 1000);
    // The `schema` reference charges into a copy of the same seeded file (bench/ceiling.ts).
    const schemaDb = join(dir, "schema-reference.sqlite");
    copyFileSync(dbPath, schemaDb);

    log("cold starts…");
    // The defaults, as `npm start` runs: request lines off, banner on.
    const serverArgs = (db: string) => ["src/entry/server.ts", "--port", "0", "--db", db];
    const startBun = await coldStart(BUN, serverArgs);
    const startNpm = await coldStart(
      "npm",
      (db) => ["start", "--silent", "--", "--port", "0", "--db", db, "--quiet"],
      3,
    );
    const binary = join(ROOT, "dist/paysandbox");
    const startBinary = existsSync(binary)
      ? await coldStart(binary, (db) => ["--port", "0", "--db", db, "--quiet"])
      : null;

    log("a test suite's costs: startSandbox(), merchant(), reset, restore of 10,000 records…");
    const suiteCosts = await measureSuiteCosts({ quick: options.duration < 8 });
    results.suite_costs = suiteCosts;

    log("idle RSS…");
    const idleOf = async (command: string, args: (db: string) => string[]) => {
      const idleDir = mkdtempSync(join(tmpdir(), "paysandbox-idle-"));
      const idle = await startServer(command, args(join(idleDir, "db.sqlite")));
      await Bun.sleep(1500);
      const rss = rssOf(idle.child.pid!).rss;
      await stopChild(idle.child);
      rmSync(idleDir, { recursive: true, force: true });
      return rss;
    };
    const idleRss = await idleOf(BUN, serverArgs);
    const idleBinary = existsSync(binary) ? await idleOf(binary, (db) => ["--port", "0", "--db", db, "--quiet"]) : null;

    const ceiling = await startServer(BUN, [join(ROOT, "bench/ceiling.ts")], "/");
    const sandbox = await startServer(BUN, serverArgs(dbPath));
    const openapi = (await (await fetch(`${sandbox.url}/openapi/json`)).json()) as { paths: Record<string, unknown> };
    const hasPay =
      "/webpayment/{token}/invoice" in openapi.paths && "/webpayment/{token}/invoice/{id}/pay" in openapi.paths;

    const warm = Math.min(2, options.duration);
    log(`ceiling (bare Bun.serve), ${options.driver}, ${options.connections} connections, ${options.duration} s…`);
    await drive(options, "ceiling", ceiling.url, "/", {}, warm);
    const ceil = await withCpu(ceiling.child.pid!, () => drive(options, "ceiling", ceiling.url, "/"));
    await stopChild(ceiling.child);

    // Issue 19's budget table, measured in the same run: the stack under the sandbox with nothing
    // of the sandbox in it, so the ratio of POST /charge can be read against what one INSERT costs here.
    const reference: Record<ReferenceMode, Load & { cpu_us_per_request: number }> = {} as never;
    for (const mode of REFERENCE_MODES) {
      log(`reference: ${REFERENCE_LABELS[mode]}…`);
      const file = mode === "schema" ? schemaDb : join(dir, "reference.sqlite");
      const server = await startServer(BUN, [join(ROOT, "bench/ceiling.ts"), mode, file], "/");
      await drive(options, "ceiling", server.url, "/", {}, warm);
      reference[mode] = await withCpu(server.child.pid!, () => drive(options, "ceiling", server.url, "/"));
      await stopChild(server.child);
    }

    log("POST /charge…");
    await drive(options, "charge", sandbox.url, "/charge", { apiKey: API_KEY }, warm);
    const charge = await withCpu(sandbox.child.pid!, () =>
      drive(options, "charge", sandbox.url, "/charge", { apiKey: API_KEY }),
    );
    const statements = await statementsPerCharge();

    let pay: (Load & { cpu_us_per_request: number }) | null = null;
    // What each pay() chain sends: the card to tokenize, then the invoice (bench/load.mjs).
    const payLoad = { token: TOKEN, card: CARD, invoice: { ...CUSTOMER, total: 10.5, meta: { reference: "bench" } } };
    if (hasPay) {
      log("pay() path: tokenize + invoice + pay…");
      pay = await withCpu(sandbox.child.pid!, () => drive(options, "pay", sandbox.url, "/", payLoad));
    } else log("pay() path skipped: the invoice routes are not in /openapi/json yet");

    log("GET /transaction, big and small merchant…");
    await drive(options, "get", sandbox.url, "/transaction", { apiKey: BIG_KEY }, warm);
    // Big, small, small, big (half a phase each), averaged: drift in the machine's load cancels out.
    const half = Math.max(1, Math.round(options.duration / 2));
    const list = (apiKey: string) =>
      withCpu(sandbox.child.pid!, () => drive(options, "get", sandbox.url, "/transaction", { apiKey }, half));
    const [big1, small1, small2, big2] = [
      await list(BIG_KEY),
      await list(SMALL_KEY),
      await list(SMALL_KEY),
      await list(BIG_KEY),
    ];
    const listBig = mergeLoads(big1!, big2!);
    const listSmall = mergeLoads(small1!, small2!);
    const check = await fetch(`${sandbox.url}/transaction?per_page=1`, {
      headers: { authorization: `Bearer ${BIG_KEY}` },
    });
    const bigTotal = ((await check.json()) as { total: number }).total;

    let payjs: { raw: number; gzip: number } | null = null;
    const script = await fetch(`${sandbox.url}/payjs.js`);
    if (script.status === 200) {
      const bytes = new Uint8Array(await script.arrayBuffer());
      payjs = { raw: bytes.byteLength, gzip: Bun.gzipSync(bytes).byteLength };
    } else await script.arrayBuffer();

    const memory = rssOf(sandbox.child.pid!);
    await stopChild(sandbox.child);

    // PostgreSQL (a shared sandbox): /charge on one process, then on two over the same database.
    let pgOne: (Load & { cpu_us_per_request: number }) | null = null;
    let pgTwo: (Load & { cpu_us_per_request: number }) | null = null;
    let pgPay: (Load & { cpu_us_per_request: number }) | null = null;
    if (findPostgresBin()) {
      log("PostgreSQL: starting a server and seeding…");
      const pg = await startPostgres();
      try {
        const url = await pg.createDatabase("bench");
        await seedPostgres(url, options.methods);
        const one = await startServer(BUN, serverArgs(url));
        log("POST /charge on PostgreSQL, one process…");
        await drive(options, "charge", one.url, "/charge", { apiKey: API_KEY }, warm);
        pgOne = await withCpu(one.child.pid!, () => drive(options, "charge", one.url, "/charge", { apiKey: API_KEY }));
        if (hasPay) {
          log("pay() path on PostgreSQL, one process…");
          pgPay = await withCpu(one.child.pid!, () => drive(options, "pay", one.url, "/", payLoad));
        }
        const two = await startServer(BUN, serverArgs(url));
        log("POST /charge on PostgreSQL, two processes (half the connections each)…");
        const half = { ...options, connections: Math.max(1, Math.floor(options.connections / 2)) };
        const both = await Promise.all(
          [one, two].map((p) =>
            withCpu(p.child.pid!, () => drive(half, "charge", p.url, "/charge", { apiKey: API_KEY })),
          ),
        );
        pgTwo = sideBySide(both[0]!, both[1]!);
        await Promise.all([stopChild(one.child), stopChild(two.child)]);
      } finally {
        await pg.stop();
      }
    } else log("PostgreSQL phases skipped: no initdb/pg_ctl (apt-get install postgresql)");

    Object.assign(results, {
      ceiling: ceil,
      reference: Object.fromEntries(
        REFERENCE_MODES.map((mode) => [
          mode,
          {
            label: REFERENCE_LABELS[mode],
            ...reference[mode],
            ratio_to_ceiling: round(reference[mode].rps / ceil.rps, 3),
          },
        ]),
      ),
      charge: {
        ...charge,
        ratio_to_ceiling: round(charge.rps / ceil.rps, 3),
        ratio_to_reference_memory: round(charge.rps / reference.memory.rps, 3),
        ratio_to_floor: round(charge.rps / reference.schema.rps, 3),
      },
      charge_postgres: pgOne && { ...pgOne, ratio_to_ceiling: round(pgOne.rps / ceil.rps, 3) },
      charge_postgres_two_processes: pgTwo && { ...pgTwo, ratio_to_ceiling: round(pgTwo.rps / ceil.rps, 3) },
      pay: pay && { ...pay, pays_per_second: round(pay.rps / 3) },
      pay_postgres: pgPay && { ...pgPay, pays_per_second: round(pgPay.rps / 3) },
      list_big: { ...listBig, stored: bigTotal },
      list_small: { ...listSmall, stored: 1000 },
      list_ratio: round(listBig.rps / listSmall.rps, 3),
      start_ms: {
        bun_server_ts: round(startBun),
        npm_start: round(startNpm),
        binary: startBinary && round(startBinary),
      },
      rss_mb: {
        idle: round(idleRss),
        idle_binary: idleBinary && round(idleBinary),
        peak: round(memory.peak),
        after_load: round(memory.rss),
      },
      statements_per_charge: {
        read: statements.read,
        write: statements.write,
        control: statements.control,
        total: statements.total,
        sql: statements.log,
      },
      payjs_bytes: payjs,
    });
    const r = results as any;
    const cpu = (load: { cpu_us_per_request: number }) => `${load.cpu_us_per_request} µs CPU/req`;
    const sql = statements;
    const rows: [string, string, string, boolean | null][] = [
      [
        "bare Bun.serve JSON (ceiling)",
        `${Math.round(ceil.rps).toLocaleString("en")} req/s · p50 ${ceil.p50} ms · p99 ${ceil.p99} ms · ${cpu(ceil)}`,
        "—",
        null,
      ],
      [
        "issue 19's budget, same run: Elysia + TypeBox body schema · + one INSERT into in-memory SQLite · + one autocommit INSERT into a WAL file",
        (["elysia", "memory", "wal"] as const)
          .map(
            (mode) =>
              `${Math.round(reference[mode].rps).toLocaleString("en")} req/s (${r.reference[mode].ratio_to_ceiling}×, ${cpu(reference[mode])})`,
          )
          .join(" · "),
        "—",
        null,
      ],
      [
        "floor of POST /charge: the same Elysia route running only a charge's SQL (two reads, the INSERT into transactions with its indexes and trigger) on a copy of the seeded file, one commit per turn of the event loop",
        `${Math.round(reference.schema.rps).toLocaleString("en")} req/s · p99 ${reference.schema.p99} ms · ${r.reference.schema.ratio_to_ceiling}× ceiling · ${cpu(reference.schema)}`,
        "—",
        null,
      ],
      [
        "POST /charge (fresh payment method, durable)",
        `${Math.round(charge.rps).toLocaleString("en")} req/s · p50 ${charge.p50} ms · p99 ${charge.p99} ms · ${r.charge.ratio_to_ceiling}× ceiling (${r.charge.ratio_to_reference_memory}× Elysia + one in-memory INSERT, ${r.charge.ratio_to_floor}× the floor) · ${cpu(charge)}`,
        "≥ 0.30× ceiling, p99 ≤ 10 ms",
        r.charge.ratio_to_ceiling >= 0.3 && charge.p99 <= 10,
      ],
      [
        "POST /charge on PostgreSQL: one process · two processes, one database",
        pgOne && pgTwo
          ? `${Math.round(pgOne.rps).toLocaleString("en")} req/s · p99 ${pgOne.p99} ms · ${cpu(pgOne)} · two: ${Math.round(pgTwo.rps).toLocaleString("en")} req/s · p99 ${pgTwo.p99} ms · ${cpu(pgTwo)}`
          : "no PostgreSQL server binaries",
        "—",
        null,
      ],
      [
        "SQL statements per POST /charge",
        `${sql.total}: ${sql.read} read, ${sql.write} write, ${sql.control} control (BEGIN/COMMIT shared by concurrent requests, SAVEPOINT/RELEASE, the merchant cache's PRAGMA data_version)`,
        "≤ 2 writes; reads: only the payment method and its customer",
        sql.write <= 2 && sql.read <= 2,
      ],
      [
        "pay() server path (tokenize + invoice + pay)",
        pay
          ? `${r.pay.pays_per_second.toLocaleString("en")} pays/s (${Math.round(pay.rps).toLocaleString("en")} req/s) · p50 ${pay.p50} ms · p99 ${pay.p99} ms per request · ${cpu(pay)}`
          : "invoice routes not present",
        "—",
        null,
      ],
      [
        "pay() server path on PostgreSQL, one process",
        pgPay
          ? `${r.pay_postgres.pays_per_second.toLocaleString("en")} pays/s (${Math.round(pgPay.rps).toLocaleString("en")} req/s) · p50 ${pgPay.p50} ms · p99 ${pgPay.p99} ms per request · ${cpu(pgPay)}`
          : "no PostgreSQL server binaries",
        "—",
        null,
      ],
      [
        `GET /transaction, ${bigTotal.toLocaleString("en")} stored vs 1,000`,
        `${Math.round(listBig.rps).toLocaleString("en")} vs ${Math.round(listSmall.rps).toLocaleString("en")} req/s · ratio ${r.list_ratio} · p99 ${listBig.p99} / ${listSmall.p99} ms · ${cpu(listBig)} / ${cpu(listSmall)}`,
        "ratio ≥ 0.9",
        r.list_ratio >= 0.9,
      ],
      [
        "cold start to first 200 (median)",
        `bun src/entry/server.ts ${r.start_ms.bun_server_ts} ms · npm start ${r.start_ms.npm_start} ms · binary ${startBinary === null ? "not built" : `${r.start_ms.binary} ms`}`,
        "≤ 100 ms",
        (startBinary ?? startBun) <= 100,
      ],
      [
        "RSS (idle: 1.5 s after the first 200; after: once every phase ran)",
        `idle: bun src/entry/server.ts ${r.rss_mb.idle} MB · binary ${idleBinary === null ? "not built" : `${r.rss_mb.idle_binary} MB`} · after the bench ${r.rss_mb.after_load} MB (peak ${r.rss_mb.peak} MB)`,
        "idle ≤ 60 MB, after ≤ 150 MB",
        (idleBinary ?? idleRss) <= 60 && r.rss_mb.after_load <= 150,
      ],
      ...suiteCostRows(suiteCosts),
      [
        "payjs.js",
        payjs
          ? `${(payjs.raw / 1024).toFixed(1)} KB raw · ${(payjs.gzip / 1024).toFixed(1)} KB gzipped`
          : "GET /payjs.js not present",
        "≤ 12 KB gzipped",
        payjs ? payjs.gzip <= 12 * 1024 : null,
      ],
    ];
    const machine = {
      cpus: cpus().length,
      cpu: cpus()[0]?.model ?? "?",
      memory_gb: round(totalmem() / 1024 ** 3),
      load_average_before: round(load.before, 2),
      load_average_after: round(loadavg()[0]!, 2),
    };
    const git = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT }).stdout?.toString().trim();
    const table = [
      `| measure | result | target | |`,
      `|---|---|---|---|`,
      ...rows.map(
        ([what, value, target, ok]) => `| ${what} | ${value} | ${target} | ${ok === null ? "" : ok ? "✅" : "❌"} |`,
      ),
    ].join("\n");
    const header = `paysandbox bench — ${new Date().toISOString().slice(0, 16)}Z, git ${git}, Bun ${Bun.version}, ${machine.cpus} × ${machine.cpu}, load average ${machine.load_average_before} → ${machine.load_average_after}; ${options.driver === "wrk" ? "wrk -t1" : "autocannon"} -c ${options.connections}, ${options.duration} s per phase`;
    // A phase that got errors measured something else than it claims: say so loudly.
    const phases: [string, Load | null][] = [
      ["ceiling", ceil],
      ...REFERENCE_MODES.map((mode): [string, Load] => [`reference: ${REFERENCE_LABELS[mode]}`, reference[mode]]),
      ["POST /charge", charge],
      ["POST /charge (PostgreSQL)", pgOne],
      ["POST /charge (PostgreSQL, two processes)", pgTwo],
      ["pay() (PostgreSQL)", pgPay],
      ["pay()", pay],
      ["GET /transaction (big)", listBig],
      ["GET /transaction (small)", listSmall],
    ];
    const warnings = phases
      .filter(([, l]) => l && (l.non2xx > 0 || l.errors > 0))
      .map(([name, l]) => `WARNING: ${name}: ${l!.non2xx} non-2xx answers and ${l!.errors} socket errors`);
    results.warnings = warnings;
    process.stdout.write(`\n${header}\n\n${table}\n\n${warnings.map((w) => w + "\n").join("")}`);
    mkdirSync(join(ROOT, "bench"), { recursive: true });
    writeFileSync(
      join(ROOT, "bench/results.json"),
      JSON.stringify(
        { date: new Date().toISOString(), git, bun: Bun.version, machine, options, results, table },
        null,
        2,
      ) + "\n",
    );
    log("wrote bench/results.json");
  } finally {
    stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
