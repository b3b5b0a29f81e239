/**
 * Issue 33: what POST /charge, pay()'s three requests and GET /transaction cost in SQL on the
 * database under test (PAYSANDBOX_TEST_DB): statements, and on PostgreSQL round trips to the server.
 * Held exactly, so a change that adds one fails here, not in a benchmark nobody runs; a change that
 * saves one updates the number with its figures (`npm run bench` shows the same counts).
 */
import { expect, test } from "bun:test";
import { onPostgres } from "../support/database";
import { migratedPostgresDatabase } from "../support/postgres";
import { countedPostgres, countedSqlite, countPerRequest, type RequestCounts } from "../support/statements";

/** statements (round trips on PostgreSQL) per request. */
const EXPECTED: Record<"sqlite" | "postgres", Record<keyof RequestCounts, [number, number | null]>> = {
  sqlite: { charge: [8, null], tokenize: [7, null], invoice: [8, null], pay: [12, null], list: [6, null] },
  postgres: { charge: [3, 3], tokenize: [3, 3], invoice: [3, 3], pay: [7, 3], list: [6, 3] },
};

test(`each request sends the statements and round trips it is known to (${onPostgres ? "PostgreSQL" : "SQLite"})`, async () => {
  const counted = onPostgres
    ? await countedPostgres(await migratedPostgresDatabase("statements"))
    : await countedSqlite();
  const counts = await countPerRequest(counted);
  const seen = Object.fromEntries(
    Object.entries(counts).map(([name, count]) => [name, [count.total, count.roundTrips]]),
  );
  // The SQL of each request, in the failure's diff, says which statement came or went.
  if (JSON.stringify(seen) !== JSON.stringify(EXPECTED[onPostgres ? "postgres" : "sqlite"])) {
    console.log(Object.fromEntries(Object.entries(counts).map(([name, count]) => [name, count.log])));
  }
  expect(seen).toEqual(EXPECTED[onPostgres ? "postgres" : "sqlite"]);
}, 60_000);
