#!/usr/bin/env bun
/**
 * Issue 33's ratios alone, repeated: `bun scripts/bench/databases.ts [--rounds N] [--duration S]
 * [--connections C] [--driver wrk|autocannon]`. Each round measures, one after the other on the
 * same machine, the floor of POST /charge (bench/ceiling.ts schema), POST /charge and pay() on
 * SQLite, then POST /charge and pay() on PostgreSQL (one process, then two over one database), and
 * prints their ratios, so the spread between rounds says how far a shared machine's noise moves
 * them. The full `npm run bench` measures each once, with everything else.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { drive, withCpu } from "./load";
import { API_KEY, BUN, CARD, CUSTOMER, parseArgs, ROOT, round, TOKEN, type Phase } from "./options";
import { postgresPhases } from "./postgres";
import { startServer, stopAll, stopChild } from "./processes";
import { seed } from "./seed";

const argv = process.argv.slice(2);
const rounds = Number(argv[argv.indexOf("--rounds") + 1] ?? 1) || 1;
const options = { ...parseArgs(argv), rows: 10_000 };
options.duration = Number(argv.includes("--duration") ? argv[argv.indexOf("--duration") + 1] : 5);
const log = (line: string) => process.stderr.write(`databases: ${line}\n`);
const warm = Math.min(2, options.duration);
const payLoad = { token: TOKEN, card: CARD, invoice: { ...CUSTOMER, total: 10.5, meta: { reference: "bench" } } };
const serverArgs = (db: string) => ["src/entry/server.ts", "--port", "0", "--db", db];
const rate = (phase: Phase | null) => (phase ? Math.round(phase.rps) : 0);
const cpu = (phase: Phase | null) =>
  phase ? `${phase.cpu_us_per_request}${phase.db_cpu_us_per_request ? `+${phase.db_cpu_us_per_request}` : ""} µs` : "—";

const dir = mkdtempSync(join(tmpdir(), "paysandbox-databases-"));
const lines: string[] = [];
try {
  const dbPath = join(dir, "bench.sqlite");
  log("seeding…");
  await seed(dbPath, options);
  const floorDb = join(dir, "floor.sqlite");
  copyFileSync(dbPath, floorDb);
  for (let r = 1; r <= rounds; r++) {
    const load = loadavg()[0]!;
    log(`round ${r}: the floor of /charge…`);
    const floor = await startServer(BUN, [join(ROOT, "bench/ceiling.ts"), "schema", floorDb], "/");
    await drive(options, "ceiling", floor.url, "/", {}, warm);
    const floorLoad = await withCpu(floor.child.pid!, () => drive(options, "ceiling", floor.url, "/"));
    await stopChild(floor.child);
    log(`round ${r}: SQLite /charge and pay()…`);
    const sandbox = await startServer(BUN, serverArgs(dbPath));
    await drive(options, "charge", sandbox.url, "/charge", { apiKey: API_KEY }, warm);
    const charge = await withCpu(sandbox.child.pid!, () =>
      drive(options, "charge", sandbox.url, "/charge", { apiKey: API_KEY }),
    );
    const pay = await withCpu(sandbox.child.pid!, () => drive(options, "pay", sandbox.url, "/", payLoad));
    await stopChild(sandbox.child);
    const { pgOne, pgTwo, pgPay } = await postgresPhases(options, { hasPay: true, payLoad, warm, serverArgs, log });
    lines.push(
      `| ${r} | ${round(load, 1)} | ${rate(floorLoad)} | ${rate(charge)} (${round(charge.rps / floorLoad.rps, 2)}×, p99 ${charge.p99} ms, ${cpu(charge)}) | ${rate(pgOne)} (${pgOne ? round(pgOne.rps / charge.rps, 2) : "—"}×, p99 ${pgOne?.p99} ms, ${cpu(pgOne)}) | ${rate(pgTwo)} (${cpu(pgTwo)}) | ${round(pay.rps / 3, 1)} (${cpu(pay)}) | ${pgPay ? round(pgPay.rps / 3, 1) : "—"} (${pgPay ? round(pgPay.rps / pay.rps, 2) : "—"}×, ${cpu(pgPay)}) |`,
    );
  }
} finally {
  stopAll();
  rmSync(dir, { recursive: true, force: true });
}
const git = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
process.stdout.write(
  `\ngit ${git}, ${options.driver} -c ${options.connections}, ${options.duration} s phases; CPU per request: the sandbox's + PostgreSQL's\n\n` +
    `| round | load avg | floor req/s | SQLite /charge req/s (× floor) | PostgreSQL /charge req/s (× SQLite) | PostgreSQL, two processes | SQLite pays/s | PostgreSQL pays/s (× SQLite) |\n` +
    `|---|---|---|---|---|---|---|---|\n${lines.join("\n")}\n`,
);
process.exit(0);
