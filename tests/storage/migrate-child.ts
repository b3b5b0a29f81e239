/**
 * One sandbox-like process for the concurrent migration tests: opens the database named by
 * argv[2] (a postgres:// URL, or a SQLite file path), says "ready", waits for "go" on stdin (so
 * every process migrates at the same moment), migrates, and prints the versions it applied as JSON.
 */
import { Database as BunDatabase } from "bun:sqlite";
import { openPostgres } from "../../src/storage/postgres/database";
import { migratePostgres } from "../../src/storage/postgres/migrate";
import { migrateSqlite } from "../../src/storage/sqlite/migrate";
import { configure } from "../../src/storage/sqlite/open";

const target = process.argv[2];
if (!target) throw new Error("usage: bun migrate-child.ts <postgres url | sqlite file>");
let migrate: () => Promise<number[]>;
let close: () => Promise<void>;
if (target.startsWith("postgres://")) {
  const db = await openPostgres(target, { max: 2 });
  migrate = () => migratePostgres(db);
  close = () => db.close();
} else {
  // What openSqlite does, with the versions applied kept.
  const raw = new BunDatabase(target, { create: true, strict: true });
  configure(raw);
  migrate = () => migrateSqlite(raw);
  close = async () => raw.close();
}
console.log("ready");
for await (const chunk of Bun.stdin.stream()) {
  if (new TextDecoder().decode(chunk).includes("go")) break;
}
try {
  const applied = await migrate();
  console.log(JSON.stringify({ applied }));
} finally {
  await close();
}
