/**
 * One sandbox-like process for the concurrent migration test: connects to the database named by
 * argv[2], says "ready", waits for "go" on stdin (so every process migrates at the same moment),
 * migrates, and prints the versions it applied as JSON.
 */
import { openPostgres } from "../../src/storage/postgres/database";
import { migratePostgres } from "../../src/storage/postgres/migrate";

const url = process.argv[2];
if (!url) throw new Error("usage: bun migrate-postgres-child.ts <postgres url>");
const db = await openPostgres(url, { max: 2 });
console.log("ready");
for await (const chunk of Bun.stdin.stream()) {
  if (new TextDecoder().decode(chunk).includes("go")) break;
}
try {
  const applied = await migratePostgres(db);
  console.log(JSON.stringify({ applied }));
} finally {
  await db.close();
}
