/** The bench's report: the markdown table on stdout and bench/results.json. */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import type { StatementCount } from "../../src/storage/statement-count";
import type { RequestCounts } from "../../tests/support/statements";
import { suiteCostRows, type SuiteCosts } from "../../bench/suite-costs";
import { REFERENCE_LABELS, REFERENCE_MODES, type ReferenceMode } from "./load";
import { ROOT, round, type Load, type Options, type Phase } from "./options";

/** What main() measured, as it hands it over to be printed and written. */
export interface Measured {
  options: Options;
  log: (line: string) => void;
  load: { before: number };
  results: Record<string, unknown>;
  ceil: Phase;
  reference: Record<ReferenceMode, Phase>;
  charge: Phase;
  pgOne: Phase | null;
  pgTwo: Phase | null;
  pay: Phase | null;
  pgPay: Phase | null;
  statements: RequestCounts;
  pgStatements: RequestCounts | null;
  listBig: Phase;
  listSmall: Phase;
  bigTotal: number;
  startBun: number;
  startBinary: number | null;
  idleRss: number;
  idleBinary: number | null;
  suiteCosts: SuiteCosts;
  payjs: { raw: number; gzip: number } | null;
}

/** "/charge 8 · 5 (3)": each request's statements on SQLite, then on PostgreSQL with its round trips. */
function sqlPerRequest(sqlite: RequestCounts, postgres: RequestCounts | null): string {
  const of = (counts: RequestCounts | null, names: (keyof RequestCounts)[]) => {
    if (!counts) return "—";
    const total = names.reduce((sum, name) => sum + counts[name].total, 0);
    const trips = names.reduce((sum, name) => sum + (counts[name].roundTrips ?? 0), 0);
    return counts.charge.roundTrips === null ? `${total}` : `${total} (${trips})`;
  };
  const line = (label: string, names: (keyof RequestCounts)[]) =>
    `${label} ${of(sqlite, names)} · ${of(postgres, names)}`;
  return [
    line("/charge", ["charge"]),
    line("pay() [tokenize + invoice + pay, and the receipt e-mail]", ["tokenize", "invoice", "pay"]),
    line("of it the pay request", ["pay"]),
    line("GET /transaction", ["list"]),
  ].join("; ");
}

export function report(measured: Measured): void {
  const { options, log, load, results, ceil, reference, charge, pgOne, pgTwo, pay, pgPay, statements, pgStatements } =
    measured;
  const { listBig, listSmall, bigTotal, startBun, startBinary, idleRss, idleBinary, suiteCosts, payjs } = measured;
  const r = results as any;
  const cpu = (load: Phase) =>
    load.db_cpu_us_per_request === undefined
      ? `${load.cpu_us_per_request} µs CPU/req`
      : `${load.cpu_us_per_request} µs CPU/req + ${load.db_cpu_us_per_request} µs in PostgreSQL`;
  const sql = statements.charge;
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
      "the floor with the route's declaration and answer: the same SQL on POST /charge declared as the sandbox declares it (body, headers, seven response schemas), answering the stored charge as the sandbox's record (1.7 KB), the key sent; no authentication, pipeline, rules or unit of work",
      `${Math.round(reference.route.rps).toLocaleString("en")} req/s · p99 ${reference.route.p99} ms · ${r.reference.route.ratio_to_ceiling}× ceiling · ${cpu(reference.route)} · POST /charge is ${r.charge.ratio_to_floor_with_route}× this`,
      "—",
      null,
    ],
    [
      "POST /charge (fresh payment method, durable)",
      `${Math.round(charge.rps).toLocaleString("en")} req/s · p50 ${charge.p50} ms · p99 ${charge.p99} ms · ${r.charge.ratio_to_ceiling}× ceiling (${r.charge.ratio_to_reference_memory}× Elysia + one in-memory INSERT, ${r.charge.ratio_to_floor}× the floor) · ${cpu(charge)}`,
      "≥ 0.85× the floor, p99 ≤ 10 ms",
      r.charge.ratio_to_floor >= 0.85 && charge.p99 <= 10,
    ],
    [
      "POST /charge on PostgreSQL: one process · two processes, one database",
      pgOne && pgTwo
        ? `${Math.round(pgOne.rps).toLocaleString("en")} req/s (${r.charge_postgres.ratio_to_sqlite}× SQLite) · p99 ${pgOne.p99} ms · ${cpu(pgOne)} · two: ${Math.round(pgTwo.rps).toLocaleString("en")} req/s · p99 ${pgTwo.p99} ms · ${cpu(pgTwo)}`
        : "no PostgreSQL server binaries",
      "≥ 0.5× SQLite /charge, p99 ≤ 25 ms",
      pgOne ? r.charge_postgres.ratio_to_sqlite >= 0.5 && pgOne.p99 <= 25 : null,
    ],
    [
      "SQL statements per POST /charge",
      `${sql.total}: ${sql.read} read, ${sql.write} write, ${sql.control} control (BEGIN/COMMIT shared by concurrent requests, SAVEPOINT/RELEASE, the merchant cache's PRAGMA data_version)`,
      "≤ 2 writes; reads: only the payment method and its customer",
      sql.write <= 2 && sql.read <= 2,
    ],
    [
      "SQL per request, SQLite · PostgreSQL: statements (round trips to the server)",
      sqlPerRequest(statements, pgStatements),
      "—",
      null,
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
        ? `${r.pay_postgres.pays_per_second.toLocaleString("en")} pays/s (${Math.round(pgPay.rps).toLocaleString("en")} req/s, ${r.pay_postgres.ratio_to_sqlite}× SQLite) · p50 ${pgPay.p50} ms · p99 ${pgPay.p99} ms per request · ${cpu(pgPay)}`
        : "no PostgreSQL server binaries",
      "≥ 0.5× SQLite pay()",
      pgPay && pay ? r.pay_postgres.ratio_to_sqlite >= 0.5 : null,
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
}
