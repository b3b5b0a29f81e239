/**
 * Group commit (src/storage/sqlite/group-commit.ts, used by src/entry/server.ts): concurrent requests share one SQLite commit,
 * no answer leaves before its writes are committed, a failing request still rolls back alone, and a
 * failed commit turns every request of its batch into a 500.
 * SQLite-only (npm test's PostgreSQL pass leaves it out): it group commit is SQLite's.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildDeps, composeApp } from "../../src/entry/app";
import { openSqlite } from "../../src/storage/sqlite/database";
import { sql } from "../../src/storage/database";
import { around } from "../../src/storage/sqlite/group-commit";
import { memoryLogger } from "../../src/lib/logger";
import { API_KEY, CARD, TOKEN } from "../support/app";

const dir = mkdtempSync(join(tmpdir(), "paysandbox-group-"));
const stops: (() => void)[] = [];
afterAll(() => {
  for (const stop of stops) stop();
  rmSync(dir, { recursive: true, force: true });
});

async function serve(name: string, extend?: (app: ReturnType<typeof composeApp>) => void) {
  const path = join(dir, `${name}.sqlite`);
  const log = memoryLogger();
  const db = await openSqlite(path, { groupCommit: true, log });
  const deps = await buildDeps({ db, log });
  const app = composeApp(deps);
  extend?.(app);
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => around(db, () => app.fetch(req)) });
  stops.push(() => {
    void server.stop(true);
    void db.close();
  });
  // A second connection, as another process would see the file.
  const reader = new Database(path, { readonly: true });
  stops.push(() => reader.close());
  return { url: `http://127.0.0.1:${server.port}`, batches: db, reader, log };
}

const post = (url: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${API_KEY}`, ...headers },
    body: JSON.stringify(body),
  });

test("100 concurrent charges share commits, and each answered charge is already committed when its answer arrives", async () => {
  const { url, batches, reader } = await serve("shared");
  const pm = await (await post(url, `/webpayment/${TOKEN}/tokenize`, CARD)).json();
  const before = batches.batches;
  const seenByOthers: boolean[] = [];
  await Promise.all(
    Array.from({ length: 100 }, async (_, i) => {
      const res = await post(url, "/charge", { payment_method_id: pm.id, total: 1 + i });
      expect(res.status).toBe(200);
      const { id } = await res.json();
      // Read through another connection the moment the answer arrives: the row must be there.
      seenByOthers.push(reader.query("SELECT 1 FROM transactions WHERE id = ?").get(id) !== null);
    }),
  );
  expect(seenByOthers).toEqual(Array(100).fill(true));
  expect(batches.batches - before).toBeLessThan(100);
});

test("a request that fails rolls back alone while the others of its batch are kept", async () => {
  const { url, reader } = await serve("isolated");
  const pm = await (await post(url, `/webpayment/${TOKEN}/tokenize`, CARD)).json();
  const results = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      post(url, "/charge", { payment_method_id: i % 2 ? "no-such-method" : pm.id, total: 2 }).then((r) => r.status),
    ),
  );
  expect(results.filter((s) => s === 200).length).toBe(20);
  expect(results.filter((s) => s === 404).length).toBe(20);
  expect(reader.query("SELECT COUNT(*) AS n FROM transactions").get()).toEqual({ n: 20 });
});

test("when a batch cannot commit, every request in it answers 500 and nothing of it is kept", async () => {
  const { url, reader, log } = await serve("failing", (app) =>
    // A request that leaves a deferred foreign-key violation: the batch's COMMIT fails.
    app.post("/_test/poison", async ({ deps }) => {
      await deps.db.run(sql`PRAGMA defer_foreign_keys = ON`);
      await deps.db.run(
        sql`INSERT INTO customers (id, merchant_id, match_key, created_at, updated_at) VALUES ('poison', 'no-such-merchant', '', '', '')`,
      );
      return { ok: true };
    }),
  );
  const pm = await (await post(url, `/webpayment/${TOKEN}/tokenize`, CARD)).json();
  const statuses = await Promise.all([
    post(url, "/_test/poison", {}).then((r) => r.status),
    ...Array.from({ length: 10 }, () =>
      post(url, "/charge", { payment_method_id: pm.id, total: 3 }).then((r) => r.status),
    ),
  ]);
  expect(statuses.every((s) => s === 500 || s === 200)).toBe(true);
  expect(statuses[0]).toBe(500);
  const kept = (reader.query("SELECT COUNT(*) AS n FROM transactions").get() as { n: number }).n;
  // Exactly the charges answered 200 (committed in another batch) are kept.
  expect(kept).toBe(statuses.filter((s) => s === 200).length);
  expect(reader.query("SELECT 1 FROM customers WHERE id = 'poison'").get()).toBeNull();
  expect(log.lines.some((line) => line.includes("group commit failed"))).toBe(true);
  // The server carries on.
  expect((await post(url, "/charge", { payment_method_id: pm.id, total: 4 })).status).toBe(200);
});
