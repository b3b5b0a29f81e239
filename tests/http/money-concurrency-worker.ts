/**
 * A separate process for money-concurrency.test.ts: opens the same database file, sends `count`
 * refund requests of `total` through its own app, all at once, and prints the statuses as JSON.
 * Usage: bun money-concurrency-worker.ts <db path> <transaction id> <total> <count>
 */
import { buildDeps, composeApp } from "../../src/entry/app";
import { openSqlite } from "../../src/storage/sqlite/database";
import { memoryLogger } from "../../src/lib/logger";

const [path, id, total, count] = process.argv.slice(2) as [string, string, string, string];
const db = await openSqlite(path);
const app = composeApp(await buildDeps({ db, log: memoryLogger() }));
const statuses = await Promise.all(
  Array.from({ length: Number(count) }, async () => {
    const res = await app.handle(
      new Request(`http://localhost/transaction/${id}/refund`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer sandbox_api_key" },
        body: JSON.stringify({ total: Number(total) }),
      }),
    );
    return res.status;
  }),
);
await db.close();
console.log(JSON.stringify(statuses));
