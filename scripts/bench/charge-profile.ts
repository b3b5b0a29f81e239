#!/usr/bin/env bun
/**
 * Where a POST /charge's CPU goes (issue 33, docs/architecture.md): `bun scripts/bench/charge-profile.ts
 * [--db SEEDED] [--duration S] [--interval US] [--floor] [--connections C]`. Runs the server (or, with
 * --floor, bench/ceiling.ts schema) under `bun --cpu-prof` on a copy of the bench's seeded file (built
 * here when --db is not given, as `scripts/bench.ts --quick --seed-only` does), drives it with the
 * bench's charge load (2 s unmeasured, then the measured phase) and prints each part's share of the
 * JavaScript thread's samples of the measured phase, and those shares applied to the process's CPU
 * per request. A sample that runs a statement is put in the SQL row of the repository function that
 * ran it; any other in the part named by the first frame, from the leaf, that names one; a sample with
 * no JavaScript frame below the root is Bun's HTTP server and the collector.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drive, withCpu } from "./load";
import { API_KEY, BUN, parseArgs, ROOT, round } from "./options";
import { startServer, stopAll, stopChild } from "./processes";
import { seed } from "./seed";
import { partsOf, type Profile } from "./profile-parts";

if (import.meta.main) {
  const argv = process.argv.slice(2);
  const value = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const options = { ...parseArgs(argv), rows: 200_000 };
  const seconds = Number(value("--duration") ?? 8);
  const interval = Number(value("--interval") ?? 250);
  const floor = argv.includes("--floor");
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-charge-profile-"));
  try {
    const seeded = value("--db") ?? join(dir, "seeded.sqlite");
    if (!value("--db")) await seed(seeded, options);
    const db = join(dir, "run.sqlite");
    copyFileSync(seeded, db);
    const profiler = [`--cpu-prof`, `--cpu-prof-interval=${interval}`, `--cpu-prof-dir=${dir}`];
    const server = floor
      ? await startServer(BUN, [...profiler, join(ROOT, "bench/ceiling.ts"), "schema", db], "/")
      : await startServer(BUN, [...profiler, "src/entry/server.ts", "--port", "0", "--db", db]);
    const path = floor ? "/" : "/charge";
    const scenario = floor ? "ceiling" : "charge";
    await drive(options, scenario, server.url, path, { apiKey: API_KEY }, 2);
    const load = await withCpu(server.child.pid!, () =>
      drive({ ...options, duration: seconds }, scenario, server.url, path, { apiKey: API_KEY }),
    );
    // The profile ends when the server has stopped: the measured phase ends that long before.
    const loadEnded = performance.now();
    await stopChild(server.child);
    const tailSeconds = (performance.now() - loadEnded) / 1000;
    const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
    if (!file) throw new Error("the server wrote no CPU profile");
    const parts = partsOf(JSON.parse(readFileSync(join(dir, file), "utf8")) as Profile, seconds, tailSeconds);
    const rows = [...parts].sort((a, b) => b[1] - a[1]);
    process.stdout.write(
      `\n${floor ? "the floor (bench/ceiling.ts schema)" : "POST /charge"}: ${Math.round(load.rps)} req/s, ` +
        `${load.cpu_us_per_request} µs of CPU per request (profiled), p99 ${load.p99} ms\n\n` +
        `| part | share | ≈ µs |\n|---|---|---|\n` +
        rows
          .map(([part, share]) => `| ${part} | ${round(share * 100)} % | ${round(share * load.cpu_us_per_request)} |`)
          .join("\n") +
        "\n",
    );
  } finally {
    stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}
