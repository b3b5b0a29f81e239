#!/usr/bin/env bun
/**
 * The CLI entry: parse flags and env → open the database → createApp → listen → banner.
 * `npm start` runs this; so does the compiled binary.
 */
import { existsSync, rmSync } from "node:fs";
import { buildDeps, composeApp, startWorkers, stopWorkers, VERSION } from "./app";
import { ConfigError, helpText, loadConfig, publicUrlOf, type Config } from "./config";
import { closeDatabase, openDatabase } from "./db/open";
import { createLogger } from "./lib/logger";

export function banner(config: Config, url: string, token: string, apiKey: string, dbPath: string): string {
  return [
    "",
    `  paysandbox ${VERSION} — local card and ACH payment sandbox`,
    "",
    `  API            ${url}`,
    `  OpenAPI        ${url}/openapi`,
    `  Database       ${dbPath}`,
    `  Web payments token  ${token}`,
    `  API key             ${apiKey}`,
    "",
    "  Script tag:",
    `    <script src="${url}/payjs.js"></script>`,
    "",
    "  Charge with curl (tokenize a test card, then charge it):",
    `    curl -s ${url}/webpayment/${token}/tokenize -H 'Content-Type: application/json' \\`,
    `      -d '{"method":"card","card_number":"4111111111111111","card_exp":"1230","person_name":"Ada Lovelace"}'`,
    `    curl -s ${url}/charge -H 'Authorization: Bearer ${apiKey}' -H 'Content-Type: application/json' \\`,
    `      -d '{"payment_method_id":"<id from tokenize>","total":10.50}'`,
    "",
  ].join("\n");
}

function fail(message: string): never {
  process.stderr.write(`paysandbox: ${message}\n`);
  process.exit(1);
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
  if (config.reset && config.dbPath !== ":memory:") {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(config.dbPath + suffix, { force: true });
  }
  let db;
  try {
    db = openDatabase(config.dbPath);
  } catch (error) {
    fail(`cannot open the database at ${config.dbPath}: ${(error as Error).message}`);
  }
  const log = createLogger({ quiet: config.quiet });
  const deps = buildDeps({ db, config, log, publicUrl: publicUrlOf(config) });
  const app = composeApp(deps);
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: config.host,
      port: config.port,
      fetch: app.fetch,
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
  const url = config.publicUrl ? publicUrlOf(config) : publicUrlOf(config, server.port);
  deps.publicUrl = url;
  startWorkers(deps);
  const merchant = deps.services.merchants.getDefault();
  const dbPath = config.dbPath === ":memory:" ? ":memory:" : existsSync(config.dbPath) ? config.dbPath : config.dbPath;
  process.stdout.write(banner(config, url, merchant.web_payments_token, merchant.api_key, dbPath) + "\n");

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n  ${signal}: stopping…\n`);
    await server.stop();
    await stopWorkers(deps);
    closeDatabase(db);
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

if (import.meta.main) await main(process.argv.slice(2));
