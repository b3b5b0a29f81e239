#!/usr/bin/env bun
/**
 * The CLI entry: parse flags and env → open the database → createApp → listen → banner.
 * `npm start` runs this; so does the compiled binary.
 */
import { accessSync, constants, existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { dirname, resolve } from "node:path";
import { composeApp, VERSION } from "./app";
import { buildDeps } from "./deps";
import { startWorkers, stopWorkers } from "./workers";
import { closeLiveStreams } from "../http/dashboard/routes";
import { ConfigError, databaseTarget, publicUrlOf, type Config } from "../lib/config";
import { helpText, loadConfig } from "./cli";
import type { Database } from "../storage/database";
import { openPostgres } from "../storage/postgres/database";
import { migratePostgres } from "../storage/postgres/migrate";
import { openSqlite, SqliteDatabase } from "../storage/sqlite/database";
import { around, groupCommitWorker } from "../storage/sqlite/group-commit";
import { createLogger } from "../lib/logger";
import { isLoopbackBind } from "../lib/net";

/** What a sandbox listening beyond loopback adds to the banner: where devices reach it, the secret, what stays closed. */
function beyondLoopbackLines(config: Config, port: number, webhookSecret: string): string[] {
  if (isLoopbackBind(config.host)) return [];
  const addresses = Object.values(networkInterfaces())
    .flat()
    .filter((info) => info && info.family === "IPv4" && !info.internal)
    .map((info) => `http://${info!.address}:${port}`);
  return [
    `  Listening beyond loopback (--host ${config.host}): the keys above are random and kept in the database;`,
    "  the documented sandbox keys are off. /_sandbox and the dashboard answer this machine only",
    "  (--allow-remote-sandbox); webhooks go to loopback targets only (--webhook-allow). See docs/security.md.",
    ...(addresses.length ? [`  From other devices  ${addresses.join("  ")}`] : []),
    `  Webhook secret      ${webhookSecret}`,
    "",
  ];
}

export function banner(
  config: Config,
  url: string,
  token: string,
  apiKey: string,
  dbPath: string,
  beyond: { port: number; webhookSecret: string } = { port: config.port, webhookSecret: "" },
): string {
  return [
    "",
    `  paysandbox ${VERSION} — local card and ACH payment sandbox`,
    "",
    `  Dashboard      ${url}/`,
    `  API            ${url}`,
    `  OpenAPI        ${url}/openapi`,
    `  Database       ${dbPath}`,
    `  Web payments token  ${token}`,
    `  API key             ${apiKey}`,
    "",
    ...beyondLoopbackLines(config, beyond.port, beyond.webhookSecret),
    "  Script tag:",
    `    <script src="${url}/payjs.js"></script>`,
    "",
    "  Charge with curl (tokenize a test card, then charge it; paste all four lines):",
    `    pm=$(curl -s ${url}/webpayment/${token}/tokenize -H 'Content-Type: application/json' \\`,
    `      -d '{"method":"card","card_number":"4111111111111111","card_exp":"1230","person_name":"Ada Lovelace"}' | node -p 'JSON.parse(fs.readFileSync(0)).id')`,
    `    curl -s ${url}/charge -H 'Authorization: Bearer ${apiKey}' -H 'Content-Type: application/json' \\`,
    `      -d '{"payment_method_id":"'"$pm"'","total":10.50}'`,
    "",
  ].join("\n");
}

/**
 * The --ready-json line: printed once the server listens, so a tool that starts the sandbox
 * (the testing toolkit, a CI script) reads where it is and its default keys without parsing the banner.
 */
export function readyLine(url: string, token: string, apiKey: string, dbPath: string): string {
  return (
    JSON.stringify({
      paysandbox: "ready",
      version: VERSION,
      pid: process.pid,
      url,
      web_payments_token: token,
      api_key: apiKey,
      database: dbPath,
    }) + "\n"
  );
}

/**
 * Why a database cannot live at `path`, as one readable sentence, or null when it can. Checked
 * before SQLite runs so the user reads "X is a directory" rather than "unable to open database file".
 */
export function databasePathProblem(path: string): string | null {
  if (path === ":memory:") return null;
  const absolute = resolve(path);
  let existing: ReturnType<typeof statSync>;
  try {
    existing = statSync(absolute, { throwIfNoEntry: false });
  } catch {
    existing = undefined; // ENOTDIR: a parent is a file, reported below
  }
  if (existing?.isDirectory()) return `the database path ${absolute} is a directory; --db wants a file`;
  let dir = dirname(absolute);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  if (!statSync(dir).isDirectory())
    return `cannot create the database at ${absolute}: ${dir} is a file, not a directory`;
  try {
    accessSync(existing ? absolute : dir, constants.W_OK);
  } catch {
    return `cannot write the database at ${absolute}: ${existing ? absolute : dir} is not writable`;
  }
  return null;
}

/** An error from SQLite or the file system as the user needs it: without stack or errno noise. */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^E[A-Z]+: /, "").split("\n")[0]!;
}

function fail(message: string): never {
  process.stderr.write(`paysandbox: ${message}\n`);
  process.exit(1);
}

/**
 * --fixtures FILE: the document applied to the default merchant through POST /_sandbox/fixtures
 * with `once`, so a restart with the same file changes nothing. A document that fails stops the
 * start, naming the step and the field.
 */
async function applyFixtureFile(
  path: string,
  handle: (request: Request) => Response | Promise<Response>,
  log: { info(message: string): void },
): Promise<void> {
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    fail(`cannot read the fixture document ${path} (--fixtures): ${reason(error)}`);
  }
  if (!document || typeof document !== "object" || Array.isArray(document))
    fail(`--fixtures ${path}: expected a JSON object {"steps": [...]} (docs/testing.md)`);
  const response = await handle(
    new Request("http://localhost/_sandbox/fixtures", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...document, once: true }),
    }),
  );
  const answer = (await response.json()) as { applied?: boolean; message?: string; errors?: Record<string, string[]> };
  if (response.status !== 200) {
    const fields = Object.entries(answer.errors ?? {}).map(
      ([field, messages]) => `\n  ${field}: ${messages.join(" ")}`,
    );
    fail(`--fixtures ${path}: ${answer.message ?? `HTTP ${response.status}`}${fields.join("")}`);
  }
  log.info(
    answer.applied
      ? `fixtures: ${path} applied to the default merchant`
      : `fixtures: ${path} was applied before (since the last reset); nothing changed`,
  );
}

interface OpenedDatabase {
  db: Database;
  /** Where the data is, for the banner and the ready line: the file, or the URL without its password. */
  display: string;
  /** " (created)", " (reset)", " (migrated)" or "". */
  note: string;
}

/** Opens what --db names (a SQLite file or a PostgreSQL URL), or stops start-up with one clear line. */
async function openDatabase(config: Config, log: ReturnType<typeof createLogger>): Promise<OpenedDatabase> {
  const target = databaseTarget(config.dbPath);
  if (target.kind === "postgres") {
    let db: Awaited<ReturnType<typeof openPostgres>>;
    try {
      db = await openPostgres(target.url);
    } catch (error) {
      fail(`cannot connect to PostgreSQL at ${target.display}: ${reason((error as Error).cause ?? error)}`);
    }
    let applied: number[];
    try {
      // Several processes may start together: an advisory lock lets exactly one of them migrate.
      applied = await migratePostgres(db);
    } catch (error) {
      await db.close().catch(() => {});
      fail(`cannot migrate the PostgreSQL database at ${target.display}: ${reason(error)}`);
    }
    return { db, display: target.display, note: applied.length > 0 ? " (migrated)" : "" };
  }
  const problem = databasePathProblem(target.path);
  if (problem) fail(problem);
  const dbPath = target.path === ":memory:" ? ":memory:" : resolve(target.path);
  const existed = dbPath !== ":memory:" && existsSync(dbPath);
  if (config.reset && existed) {
    try {
      for (const suffix of ["", "-wal", "-shm"]) rmSync(dbPath + suffix, { force: true });
    } catch (error) {
      fail(`cannot reset the database at ${dbPath}: ${reason(error)}`);
    }
  }
  try {
    // Concurrent requests share one SQLite commit; each answer waits for the commit of its writes.
    // WAL checkpoints run on a thread of their own, never inside a request's COMMIT.
    const db = await openSqlite(dbPath, { groupCommit: true, backgroundCheckpoint: true, log });
    const note = dbPath === ":memory:" ? "" : config.reset && existed ? " (reset)" : existed ? "" : " (created)";
    return { db, display: dbPath, note };
  } catch (error) {
    fail(`cannot open the database at ${dbPath}: ${reason(error)}`);
  }
}

export async function main(argv: string[]): Promise<void> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(helpText() + "\n");
    return;
  }
  if (argv.includes("--version")) {
    process.stdout.write(`paysandbox ${VERSION}\n`);
    return;
  }
  let config: Config;
  try {
    config = loadConfig(argv, process.env);
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  const log = createLogger({ quiet: config.quiet });
  const opened = await openDatabase(config, log);
  const { db } = opened;
  let deps: Awaited<ReturnType<typeof buildDeps>>;
  try {
    deps = await buildDeps({ db, config, log, publicUrl: publicUrlOf(config) });
  } catch (error) {
    await db.close().catch(() => {});
    fail(`cannot start on the database at ${opened.display}: ${reason(error)}`);
  }
  const app = composeApp(deps);
  // SQLite: concurrent requests share one commit, and each answer waits for the commit of its
  // writes. PostgreSQL: every unit of work has committed before its route answers.
  const grouped = db instanceof SqliteDatabase ? db : undefined;
  const handle = grouped
    ? (request: Request) => around(grouped, () => app.fetch(request))
    : (request: Request) => app.fetch(request);
  if (grouped) deps.workers.push(groupCommitWorker(grouped));
  // Before listening: no request sees the default merchant half set up.
  if (config.fixtures) await applyFixtureFile(config.fixtures, handle, log);
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: config.host,
      port: config.port,
      fetch: handle,
      // Bodies over 1 MiB get the 413 envelope from the app; this only stops absurd uploads early.
      maxRequestBodySize: 8 * 1024 * 1024,
      error: () => Response.json({ message: "Internal error.", code: "internal_error" }, { status: 500 }),
    });
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    if (/in use|EADDRINUSE/i.test(message))
      fail(`port ${config.port} on ${config.host} is already in use (try --port)`);
    fail(`cannot listen on ${config.host}:${config.port}: ${message}`);
  }
  // Elysia hands `server` to hooks only when it knows it: the /_sandbox loopback guard reads the client address from it.
  app.server = server;
  const url = config.publicUrl ? publicUrlOf(config) : publicUrlOf(config, server.port);
  deps.publicUrl = url;
  startWorkers(deps);
  const merchant = await deps.services.merchants.getDefault();
  process.stdout.write(
    config.readyJson
      ? readyLine(url, merchant.web_payments_token, merchant.api_key, opened.display)
      : banner(config, url, merchant.web_payments_token, merchant.api_key, opened.display + opened.note, {
          port: server.port ?? config.port,
          webhookSecret: merchant.webhook_secret,
        }) + "\n",
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n  ${signal}: stopping…\n`);
    closeLiveStreams(deps); // open dashboard tabs would keep the graceful stop waiting
    await server.stop();
    await stopWorkers(deps);
    await db.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  if (config.stopWithStdin) {
    // The pipe's other end closes however the starting process ends, even on SIGKILL.
    process.stdin.on("end", () => void shutdown("stdin closed"));
    process.stdin.on("error", () => void shutdown("stdin closed"));
    process.stdin.resume();
  }
}

// Not a top-level await: the testing toolkit runs this module as a CommonJS bundle with bytecode
// (scripts/build-testing.ts), which cannot hold one. A failure still ends the process with code 1.
if (import.meta.main) void main(process.argv.slice(2));
