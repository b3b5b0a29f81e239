/**
 * --rate-limit across processes: on PostgreSQL the token buckets live in the database, so two
 * sandbox processes (here two connections, each with its own limiter) draw from the same bucket
 * and the limit holds for the whole shared sandbox. The same database counter on SQLite keeps the
 * in-memory limiter's refill arithmetic.
 */
import { afterAll, expect, test } from "bun:test";
import { SharedRateLimiter, rateLimiterFor, RateLimiter } from "../../src/services/rate-limits";
import { openSqlite } from "../../src/storage/sqlite/database";
import { openPostgres, type PostgresDatabase } from "../../src/storage/postgres/database";
import { migratePostgres } from "../../src/storage/postgres/migrate";
import { describePostgres, postgresDatabase } from "../support/postgres";

test("the database counter refills like the in-memory one, and says when the next request passes", async () => {
  let now = 1_000_000;
  const db = await openSqlite(":memory:");
  const shared = new SharedRateLimiter(db, { public: 2, merchant: 60 }, () => now);
  const memory = new RateLimiter({ public: 2, merchant: 60 }, () => now);
  const both = async () => [await shared.take("public", "t:a"), memory.take("public", "t:a")];
  expect(await both()).toEqual([null, null]);
  expect(await both()).toEqual([null, null]);
  expect(await both()).toEqual([30, 30]);
  now += 29_000;
  expect(await both()).toEqual([1, 1]);
  now += 1_000;
  expect(await both()).toEqual([null, null]);
  expect(await shared.take("merchant", "k:x")).toBeNull();
  // SQLite serves one process: it counts in memory, with nothing written per request.
  expect(rateLimiterFor(db, { public: 1, merchant: 1 })).toBeInstanceOf(RateLimiter);
  await db.close();
});

describePostgres("--rate-limit on a shared PostgreSQL sandbox", () => {
  const opened: PostgresDatabase[] = [];
  afterAll(async () => {
    for (const db of opened) await db.close();
  });

  test("two processes share one bucket per key: the limit holds however requests are spread", async () => {
    const url = await postgresDatabase("rate_limits");
    const one = await openPostgres(url);
    const two = await openPostgres(url);
    opened.push(one, two);
    await migratePostgres(one);
    const now = () => 5_000_000;
    const limiters = [
      rateLimiterFor(one, { public: 10, merchant: 5 }, now),
      rateLimiterFor(two, { public: 10, merchant: 5 }, now),
    ];
    expect(limiters[0]).toBeInstanceOf(SharedRateLimiter);
    // Twelve requests at once, alternating processes: exactly five pass.
    const answers = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => limiters[i % 2]!.take("merchant", "k:team")),
    );
    expect(answers.filter((a) => a === null)).toHaveLength(5);
    expect(answers.filter((a) => a === 12)).toHaveLength(7);
    // Another key has a bucket of its own.
    expect(await limiters[1]!.take("merchant", "k:other")).toBeNull();
  });
});
