/**
 * What a test suite pays per test (issue 32), measured for `npm run bench` and on its own
 * (`bun bench/suite-costs.ts`): `startSandbox()` of paysandbox/testing to ready, `sandbox.merchant()`,
 * a merchant's `POST /_sandbox/reset`, and the restore of a snapshot of a merchant holding 10,000
 * records on SQLite (in-process, the service call). Each as the median wall time and CPU time: on
 * a shared machine wall time includes waiting for a core, CPU time is the figure to trust.
 */
import { readdirSync, readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSandbox } from "../packages/testing/src/index";
import { spawnSandbox } from "../packages/testing/src/process";
import { serverFiles } from "../packages/testing/src/server-bundle";
import { buildDeps } from "../src/entry/app";
import { openSqlite } from "../src/storage/sqlite/database";
import { memoryLogger } from "../src/lib/logger";
import { sql, type Transaction } from "../src/storage/database";
import { deleteMerchantRows } from "../src/storage/repositories/sandbox";

export interface Cost {
  /** Median wall time, ms. */
  wall_ms: number;
  /** Median CPU time (user + system), ms: of the sandbox process, and of this one where it works too. */
  cpu_ms: number;
}

export interface SuiteCosts {
  /** startSandbox() as shipped (the prebuilt bundle on the template database). */
  start: Cost;
  /** The same from the sources, migrating at start, in the same run; start / this, pair by pair. */
  start_from_sources: Cost & { ratio: number };
  merchant: Cost;
  reset: Cost;
  /** After each of RESTORE_CASES. */
  restore_10k: Record<RestoreCase, Cost> & { records: number };
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** CPU time (user + system) of a process, ms (/proc/PID/stat, in clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** The pids of this process's children (every thread's /proc children list). */
function childPids(): number[] {
  const pids = new Set<number>();
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    try {
      for (const pid of readFileSync(`/proc/${process.pid}/task/${task}/children`, "utf8").trim().split(/\s+/))
        if (pid) pids.add(Number(pid));
    } catch {
      // a thread that ended meanwhile
    }
  }
  return [...pids];
}

const selfCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/**
 * startSandbox() to ready (the sandbox started and its default merchant's /self answered, as
 * startSandbox() does), each run a fresh process on a fresh temporary database. Runs alternate
 * between the toolkit as shipped (the prebuilt bundle on the template database, when fresh) and
 * the sources on a database migrated at start (what every start cost before), so both are
 * measured under the same load; the ratio is taken pair by pair.
 */
async function measureStart(runs: number): Promise<{ shipped: Cost; sources: Cost; ratio: number }> {
  const timeOne = async (start: () => Promise<() => Promise<void>>) => {
    const before = new Set(childPids());
    const selfBefore = selfCpuMs();
    const started = performance.now();
    const stop = await start();
    const wall = performance.now() - started;
    const child = childPids().find((pid) => !before.has(pid));
    const cpu = (child ? processCpuMs(child) : 0) + selfCpuMs() - selfBefore;
    await stop();
    return { wall, cpu };
  };
  const shipped = async () => {
    const sandbox = await startSandbox({ url: null });
    return () => sandbox.stop();
  };
  const sources = async () => {
    const child = await spawnSandbox({ args: [], startTimeoutMs: 30_000, log: false, fromSources: true });
    const self = await fetch(`${child.url}/self`, { headers: { authorization: `Bearer ${child.apiKey}` } });
    await self.arrayBuffer();
    return () => child.stop();
  };
  const results = { shipped: [] as { wall: number; cpu: number }[], sources: [] as { wall: number; cpu: number }[] };
  for (let i = 0; i < runs; i++) {
    results.shipped.push(await timeOne(shipped));
    results.sources.push(await timeOne(sources));
  }
  const cost = (list: { wall: number; cpu: number }[]): Cost => ({
    wall_ms: round(median(list.map((run) => run.wall))),
    cpu_ms: round(median(list.map((run) => run.cpu))),
  });
  const ratio = median(results.shipped.map((run, i) => run.wall / results.sources[i]!.wall));
  return { shipped: cost(results.shipped), sources: cost(results.sources), ratio: round(ratio) };
}

/** sandbox.merchant(), a merchant's reset, on one sandbox: per call. */
async function measureCalls(calls: number): Promise<{ merchant: Cost; reset: Cost }> {
  const before = new Set(childPids());
  const sandbox = await startSandbox({ url: null });
  const child = childPids().find((pid) => !before.has(pid));
  try {
    const timeEach = async (call: () => Promise<unknown>): Promise<Cost> => {
      for (let i = 0; i < 5; i++) await call(); // warm
      const walls: number[] = [];
      const cpuBefore = (child ? processCpuMs(child) : 0) + selfCpuMs();
      for (let i = 0; i < calls; i++) {
        const started = performance.now();
        await call();
        walls.push(performance.now() - started);
      }
      const cpu = (child ? processCpuMs(child) : 0) + selfCpuMs() - cpuBefore;
      return { wall_ms: round(median(walls)), cpu_ms: round(cpu / calls) };
    };
    const merchant = await timeEach(() => sandbox.merchant());
    const resetting = await sandbox.merchant();
    const reset = await timeEach(async () => {
      await fetch(`${sandbox.url}/_sandbox/reset`, {
        method: "POST",
        headers: { authorization: `Bearer ${resetting.apiKey}` },
      });
    });
    return { merchant, reset };
  } finally {
    await sandbox.stop();
  }
}

/**
 * What a test may have done to the merchant since its snapshot, before each timed restore:
 * nothing; what a test usually does (10 charges added, 10 transactions changed, a customer
 * added); the same and one transaction deleted (it comes back where it was); every row of the
 * merchant changed; or the merchant reset, so every row is inserted again (the most a restore
 * writes).
 */
const RESTORE_CASES = {
  unchanged: async () => {},
  after_a_test: async (tx: Transaction, merchantId: string, run: number) => {
    const now = "2026-01-02 00:00:00";
    await tx.run(
      sql`INSERT INTO transactions (id, merchant_id, customer_id, payment_method_id, method, type, success,
            total_cents, created_at, updated_at)
          SELECT 'new' || ${run} || '-' || i, ${merchantId}, 'c1', 'p1', 'card', 'charge', 1, 500, ${now}, ${now}
          FROM (${numbers(10)})`,
    );
    await tx.run(
      sql`UPDATE transactions SET total_refunded_cents = 100, updated_at = ${now}
          WHERE merchant_id = ${merchantId} AND id IN (SELECT 't' || (i * 97) FROM (${numbers(10)}))`,
    );
    await tx.run(
      sql`INSERT INTO customers (id, merchant_id, firstname, email, match_key, created_at, updated_at)
          VALUES (${`added${run}`}, ${merchantId}, 'Added', 'added@example.com', ${`added${run}`}, ${now}, ${now})`,
    );
  },
  one_deleted: async (tx: Transaction, merchantId: string, run: number) => {
    await RESTORE_CASES.after_a_test(tx, merchantId, run);
    await tx.run(sql`DELETE FROM transactions WHERE merchant_id = ${merchantId} AND id = 't2'`);
  },
  all_changed: async (tx: Transaction, merchantId: string) => {
    const now = "2026-01-03 00:00:00";
    await tx.run(
      sql`UPDATE transactions SET total_refunded_cents = 100, batch_id = 'b1', updated_at = ${now}
          WHERE merchant_id = ${merchantId}`,
    );
    await tx.run(sql`UPDATE customers SET notes = 'changed', updated_at = ${now} WHERE merchant_id = ${merchantId}`);
    await tx.run(
      sql`UPDATE payment_methods SET card_exp = '1231', updated_at = ${now} WHERE merchant_id = ${merchantId}`,
    );
  },
  reset: async (tx: Transaction, merchantId: string) => {
    await deleteMerchantRows(tx, merchantId);
  },
};

type RestoreCase = keyof typeof RESTORE_CASES;

/** SELECT i FROM 1..n. */
const numbers = (n: number) =>
  sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n}) SELECT i FROM n`;

/**
 * The restore of a snapshot of a merchant with `records` rows (customers, cards, charges),
 * in-process, after each of RESTORE_CASES (the cases alternate, so they share the load).
 */
async function measureRestore(records: number, runs: number): Promise<Record<RestoreCase, Cost> & { records: number }> {
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-restore-"));
  const db = await openSqlite(join(dir, "restore.sqlite"));
  try {
    const deps = await buildDeps({ db, log: memoryLogger(), publicUrl: "http://localhost:7290" });
    const merchant = await deps.services.merchants.create({ name: "Restore bench" });
    const people = Math.floor(records / 5);
    const now = "2026-01-01 00:00:00";
    await db.transaction(async (tx) => {
      await tx.run(
        sql`INSERT INTO customers (id, merchant_id, firstname, email, match_key, created_at, updated_at)
            SELECT 'c' || i, ${merchant.id}, 'Ada ' || i, 'ada' || i || '@example.com', 'k' || i, ${now}, ${now}
            FROM (${numbers(people)})`,
      );
      await tx.run(
        sql`INSERT INTO payment_methods (id, merchant_id, customer_id, method, person_name, card_type, card_last_four,
              card_exp, fingerprint, outcome, created_at, updated_at)
            SELECT 'p' || i, ${merchant.id}, 'c' || i, 'card', 'Ada ' || i, 'visa', '1111', '1230', 'f' || i, 'approve',
              ${now}, ${now}
            FROM (${numbers(people)})`,
      );
      await tx.run(
        sql`INSERT INTO transactions (id, merchant_id, customer_id, payment_method_id, method, type, success,
              total_cents, created_at, updated_at)
            SELECT 't' || i, ${merchant.id}, 'c' || (1 + i % ${people}), 'p' || (1 + i % ${people}), 'card', 'charge', 1,
              1000 + i, ${now}, ${now}
            FROM (${numbers(records - 2 * people)})`,
      );
    });
    const taken = await deps.services.snapshots.create(merchant.id, "bench");
    const cases = Object.keys(RESTORE_CASES) as RestoreCase[];
    const timed = Object.fromEntries(cases.map((name) => [name, { walls: [] as number[], cpus: [] as number[] }]));
    for (let i = 0; i < runs; i++) {
      for (const name of cases) {
        await db.transaction((tx) => RESTORE_CASES[name](tx, merchant.id, i));
        const cpuBefore = selfCpuMs();
        const started = performance.now();
        await deps.services.snapshots.restore(merchant.id, "bench");
        timed[name]!.walls.push(performance.now() - started);
        timed[name]!.cpus.push(selfCpuMs() - cpuBefore);
      }
    }
    const cost = (name: RestoreCase): Cost => ({
      wall_ms: round(median(timed[name]!.walls)),
      cpu_ms: round(median(timed[name]!.cpus)),
    });
    return {
      ...(Object.fromEntries(cases.map((name) => [name, cost(name)])) as Record<RestoreCase, Cost>),
      records: taken.records,
    };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const ROOT = join(import.meta.dir, "..");

/**
 * Builds the toolkit's prebuilt server when it is missing or older than the sources: startSandbox()
 * would otherwise run the sources, and "as shipped" would silently measure them instead.
 */
function ensureFreshBundle(): void {
  const bundled = () => serverFiles(ROOT, join(ROOT, "packages/testing/dist/server"), []).template !== undefined;
  if (bundled()) return;
  console.error("bench: the toolkit's prebuilt server is missing or stale: building it (scripts/build-testing.ts)…");
  const built = Bun.spawnSync([process.execPath, join(ROOT, "scripts/build-testing.ts")], {
    stdout: "ignore",
    stderr: "inherit",
  });
  if (built.exitCode !== 0 || !bundled())
    throw new Error("bench: scripts/build-testing.ts did not leave a fresh server bundle");
}

export async function measureSuiteCosts(options: { quick?: boolean } = {}): Promise<SuiteCosts> {
  const quick = options.quick ?? false;
  ensureFreshBundle();
  const starts = await measureStart(quick ? 3 : 5);
  const { merchant, reset } = await measureCalls(quick ? 30 : 100);
  const restore_10k = await measureRestore(10_000, quick ? 5 : 9);
  return {
    start: starts.shipped,
    start_from_sources: { ...starts.sources, ratio: starts.ratio },
    merchant,
    reset,
    restore_10k,
  };
}

/** The bench table's rows: [measure, result, target, met]. */
export function suiteCostRows(costs: SuiteCosts): [string, string, string, boolean | null][] {
  const show = (cost: Cost) => `${cost.wall_ms} ms wall · ${cost.cpu_ms} ms CPU`;
  return [
    [
      "startSandbox() to ready (median, fresh process and database)",
      show(costs.start),
      "≤ 250 ms",
      costs.start.wall_ms <= 250,
    ],
    [
      "the same from the sources, migrating at start (before; same run)",
      `${show(costs.start_from_sources)} · shipped/sources ${costs.start_from_sources.ratio}`,
      "—",
      null,
    ],
    ["sandbox.merchant() (median per call)", show(costs.merchant), "≤ 5 ms", costs.merchant.wall_ms <= 5],
    ["a merchant's POST /_sandbox/reset (median per call)", show(costs.reset), "≤ 10 ms", costs.reset.wall_ms <= 10],
    ...(
      [
        ["unchanged", "nothing changed since"],
        ["after_a_test", "after 10 charges, 10 changed, a customer added"],
        ["one_deleted", "the same and one transaction deleted"],
        ["all_changed", "every row changed (6,000 settled and refunded)"],
        ["reset", "after a reset: every row inserted again"],
      ] as const
    ).map(([name, what]): [string, string, string, boolean] => [
      `restore of a snapshot of ${costs.restore_10k.records.toLocaleString("en")} records, SQLite, ${what} (median, in-process)`,
      show(costs.restore_10k[name]),
      "≤ 100 ms",
      costs.restore_10k[name].wall_ms <= 100,
    ]),
  ];
}

if (import.meta.main) {
  const costs = await measureSuiteCosts({ quick: process.argv.includes("--quick") });
  process.stdout.write(JSON.stringify(costs, null, 2) + "\n");
  for (const [what, value, target, ok] of suiteCostRows(costs))
    process.stdout.write(`| ${what} | ${value} | ${target} | ${ok === null ? "" : ok ? "✅" : "❌"} |\n`);
  process.exit(0);
}
