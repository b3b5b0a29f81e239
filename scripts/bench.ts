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
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { measureSuiteCosts } from "../bench/suite-costs";
import { drive, mergeLoads, REFERENCE_LABELS, REFERENCE_MODES, withCpu, type ReferenceMode } from "./bench/load";
import {
  API_KEY,
  BIG_KEY,
  BUN,
  CARD,
  CUSTOMER,
  parseArgs,
  ROOT,
  round,
  SMALL_KEY,
  TOKEN,
  type Load,
} from "./bench/options";
import { postgresPhases } from "./bench/postgres";
import { coldStart, rssOf, startServer, stopAll, stopChild } from "./bench/processes";
import { report } from "./bench/report";
import { seed } from "./bench/seed";
import { countedSqlite, countPerRequest, type RequestCounts } from "../tests/support/statements";

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
    // The `schema` and `route` references each charge into a copy of the same seeded file (bench/ceiling.ts).
    const schemaDb = join(dir, "schema-reference.sqlite");
    copyFileSync(dbPath, schemaDb);
    const routeDb = join(dir, "route-reference.sqlite");
    copyFileSync(dbPath, routeDb);

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
      const file = mode === "schema" ? schemaDb : mode === "route" ? routeDb : join(dir, "reference.sqlite");
      const server = await startServer(BUN, [join(ROOT, "bench/ceiling.ts"), mode, file], "/");
      // `route` is POST /charge as the sandbox declares it: sent what /charge is sent, the key included.
      const [path, extra] = mode === "route" ? ["/charge", { apiKey: API_KEY }] : ["/", {}];
      await drive(options, "ceiling", server.url, path, extra, warm);
      reference[mode] = await withCpu(server.child.pid!, () => drive(options, "ceiling", server.url, path, extra));
      await stopChild(server.child);
    }

    log("POST /charge…");
    await drive(options, "charge", sandbox.url, "/charge", { apiKey: API_KEY }, warm);
    const charge = await withCpu(sandbox.child.pid!, () =>
      drive(options, "charge", sandbox.url, "/charge", { apiKey: API_KEY }),
    );
    const statements = await countPerRequest(await countedSqlite());

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

    const { pgOne, pgTwo, pgPay, pgStatements } = await postgresPhases(options, {
      hasPay,
      payLoad,
      warm,
      serverArgs,
      log,
    });

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
        ratio_to_floor_with_route: round(charge.rps / reference.route.rps, 3),
      },
      charge_postgres: pgOne && {
        ...pgOne,
        ratio_to_ceiling: round(pgOne.rps / ceil.rps, 3),
        ratio_to_sqlite: round(pgOne.rps / charge.rps, 3),
      },
      charge_postgres_two_processes: pgTwo && { ...pgTwo, ratio_to_ceiling: round(pgTwo.rps / ceil.rps, 3) },
      pay: pay && { ...pay, pays_per_second: round(pay.rps / 3) },
      pay_postgres: pgPay && {
        ...pgPay,
        pays_per_second: round(pgPay.rps / 3),
        ratio_to_sqlite: pay ? round(pgPay.rps / pay.rps, 3) : null,
      },
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
        read: statements.charge.read,
        write: statements.charge.write,
        control: statements.charge.control,
        total: statements.charge.total,
        sql: statements.charge.log,
      },
      statements_per_request: { sqlite: perRequest(statements), postgres: pgStatements && perRequest(pgStatements) },
      payjs_bytes: payjs,
    });
    report({
      options,
      log,
      load,
      results,
      ceil,
      reference,
      charge,
      pgOne,
      pgTwo,
      pay,
      pgPay,
      statements,
      pgStatements,
      listBig,
      listSmall,
      bigTotal,
      startBun,
      startBinary,
      idleRss,
      idleBinary,
      suiteCosts,
      payjs,
    });
  } finally {
    stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Each request's statements and round trips, and the SQL of each, for results.json. */
function perRequest(counts: RequestCounts) {
  return Object.fromEntries(
    Object.entries(counts).map(([name, c]) => [
      name,
      { statements: c.total, round_trips: c.roundTrips, read: c.read, write: c.write, control: c.control, sql: c.log },
    ]),
  );
}

await main();
process.exit(0);
