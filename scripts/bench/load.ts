/**
 * The load phases: wrk (Lua script) or autocannon under Node (bench/load.mjs) in a separate
 * process, their results merged or read with the server's CPU time.
 */
import { spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PM_PREFIX, ROOT, round, type Load, type Options, type Scenario } from "./options";
import { children, cpuMicros, stopChild } from "./processes";

/** The reference servers of bench/ceiling.ts (issue 19's budget table), in the table's order. */
export const REFERENCE_MODES = ["elysia", "memory", "wal", "schema", "route"] as const;
export type ReferenceMode = (typeof REFERENCE_MODES)[number];
export const REFERENCE_LABELS: Record<ReferenceMode, string> = {
  elysia: "Elysia + TypeBox body schema, no database",
  memory: "+ one INSERT into in-memory SQLite",
  wal: "+ one autocommit INSERT into a WAL file",
  schema: "POST /charge's SQL alone: its two reads and INSERT on the seeded file, group-committed",
  route: "the same SQL on POST /charge declared as the sandbox declares it, answering the sandbox's record",
};

/**
 * Runs a load phase and returns its result with the server's CPU microseconds per request, and
 * with `database` (the CPU clock of a PostgreSQL server, µs) the database server's beside it.
 */
export async function withCpu(
  pid: number,
  phase: () => Promise<Load>,
  database?: () => number,
): Promise<Load & { cpu_us_per_request: number; db_cpu_us_per_request?: number }> {
  const before = cpuMicros(pid);
  const dbBefore = database?.();
  const load = await phase();
  const used = cpuMicros(pid) - before;
  const perRequest = (micros: number) => round(micros / Math.max(1, load.requests), 0);
  return {
    ...load,
    cpu_us_per_request: perRequest(used),
    ...(database && { db_cpu_us_per_request: perRequest(database() - dbBefore!) }),
  };
}

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

export async function drive(
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
export function mergeLoads<L extends Load & { cpu_us_per_request: number }>(a: L, b: L): L {
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

/** Two loads of one phase run side by side (two processes): requests and rates add up. */
export function sideBySide<L extends Load & { cpu_us_per_request: number }>(a: L, b: L): L {
  const merged = mergeLoads(a, b);
  return { ...merged, rps: a.rps + b.rps };
}
