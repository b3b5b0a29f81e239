/**
 * What one request costs in SQL on each database: statements, and on PostgreSQL round trips, for
 * POST /charge, each request of payjs pay() (tokenize, invoice, pay) and GET /transaction. Shared
 * by `npm run bench` (its "statements per request" table) and tests/http/statements-per-request.test.ts
 * (which holds the numbers, so a regression fails in CI rather than in a benchmark).
 *
 * Counted in-process on the server's own stack (the app, and on SQLite its group commit), with a
 * warm merchant (caches filled, statements prepared), no webhook, and no Idempotency-Key.
 */
import { buildDeps, composeApp } from "../../src/entry/app";
import { createLogger } from "../../src/lib/logger";
import type { Database } from "../../src/storage/database";
import { openPostgres } from "../../src/storage/postgres/database";
import { StatementTally, type StatementCount } from "../../src/storage/statement-count";
import { openSqlite, type SqliteDatabase } from "../../src/storage/sqlite/database";
import { around } from "../../src/storage/sqlite/group-commit";
import { countStatements } from "../../src/storage/sqlite/statement-counter";

export interface CountedDatabase {
  db: Database;
  take(): StatementCount;
}

/** A group-committed SQLite `:memory:` database whose statements are counted (as the server runs it). */
export async function countedSqlite(): Promise<CountedDatabase> {
  const db = await openSqlite(":memory:", { groupCommit: true });
  return { db, ...countStatements(db.raw) };
}

/** The PostgreSQL database at `url` (migrated by the caller), its statements and round trips counted. */
export async function countedPostgres(url: string): Promise<CountedDatabase> {
  const tally = new StatementTally(true);
  const db = await openPostgres(url, { trace: tally, idleTimeout: 1 });
  return { db, take: () => tally.take() };
}

export const REQUESTS = ["charge", "tokenize", "invoice", "pay", "list"] as const;
export type RequestName = (typeof REQUESTS)[number];
export type RequestCounts = Record<RequestName, StatementCount>;

const CARD = {
  method: "card",
  card_number: "4111111111111111",
  card_cvv: "123",
  card_exp: "1230",
  person_name: "Count Statements",
  firstname: "Count",
  lastname: "Statements",
  email: "count@example.com",
  phone: "5555550100",
  address_1: "1 Load Street",
  address_city: "Orlando",
  address_state: "FL",
  address_zip: "32822",
};
const { card_number: _n, card_cvv: _c, card_exp: _e, method: _m, ...CUSTOMER } = CARD;

/**
 * Runs each request once to warm up, then once counted, and answers each one's count. What a
 * request sets off after its answer (pay()'s receipt e-mail) is counted with it. The database is
 * closed afterwards.
 */
export async function countPerRequest(counted: CountedDatabase): Promise<RequestCounts> {
  const { db } = counted;
  const deps = await buildDeps({ db, config: { quiet: true }, log: createLogger({ quiet: true }) });
  try {
    const app = composeApp(deps);
    const merchant = await deps.services.merchants.getDefault();
    const call = async (method: string, path: string, body?: unknown) => {
      const request = () =>
        app.handle(
          new Request(`http://localhost${path}`, {
            method,
            headers: { "content-type": "application/json", authorization: `Bearer ${merchant.api_key}` },
            body: body === undefined ? undefined : JSON.stringify(body),
          }),
        );
      const response = db.dialect === "sqlite" ? await around(db as SqliteDatabase, request) : await request();
      if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as { id: string };
    };
    const base = `/webpayment/${merchant.web_payments_token}`;
    const round = async () => {
      const counts = {} as RequestCounts;
      // What follows an answer (a receipt e-mail) is written within a few ms of it.
      const measure = async <T>(name: RequestName, run: () => Promise<T>): Promise<T> => {
        await Bun.sleep(50);
        counted.take();
        const result = await run();
        await Bun.sleep(50);
        counts[name] = counted.take();
        return result;
      };
      const forCharge = await call("POST", `${base}/tokenize`, CARD);
      await measure("charge", () =>
        call("POST", "/charge", { payment_method_id: forCharge.id, total: 10.5, meta: { reference: "bench" } }),
      );
      const pm = await measure("tokenize", () => call("POST", `${base}/tokenize`, CARD));
      const invoice = await measure("invoice", () =>
        call("POST", `${base}/invoice`, {
          ...CUSTOMER,
          total: 10.5,
          meta: { reference: "bench" },
          payment_method_id: pm.id,
        }),
      );
      await measure("pay", () => call("POST", `${base}/invoice/${invoice.id}/pay`, { payment_method_id: pm.id }));
      await measure("list", () => call("GET", "/transaction"));
      return counts;
    };
    await round(); // warm: caches filled, statements prepared
    return await round();
  } finally {
    for (const worker of deps.workers) await worker.stop();
    await db.close();
  }
}
