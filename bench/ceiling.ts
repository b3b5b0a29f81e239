/**
 * The servers `npm run bench` compares the sandbox with, in the same run. Prints "port <n>" once
 * listening. `bun bench/ceiling.ts [mode] [wal-file]`:
 *
 * - `bare` (default): the ceiling. A bare Bun.serve JSON endpoint that parses the same POST body
 *   and answers a small JSON object, with no routing, validation or storage.
 * - `elysia`: Elysia with a TypeBox body schema for that body, no database.
 * - `memory`: the same plus one INSERT into an in-memory SQLite table per request.
 * - `wal`: the same plus one autocommit INSERT into a SQLite file in WAL mode (synchronous =
 *   NORMAL, as the sandbox), given as the second argument.
 *
 * - `schema`: the floor of POST /charge on the sandbox's own schema: the same Elysia route plus
 *   what a charge does in SQL and nothing else — read the payment method and its customer, one
 *   INSERT into `transactions` (its indexes, trigger and foreign keys) — with the requests of one
 *   turn of the event loop sharing one commit that each answer waits for, as the sandbox does. The
 *   second argument is a copy of the bench's seeded database (the default merchant charges).
 *
 * - `route`: the floor with the route's declaration and answer: `schema`'s SQL, on POST /charge
 *   declared as the sandbox declares it (its body, headers and seven response schemas), answering
 *   the stored charge as the sandbox's record (buildRecord of the inserted row, its payment method
 *   and customer) — what the floor leaves out of "the same Elysia route", so that the difference
 *   between it and POST /charge is the sandbox's own JavaScript (authentication, the pipeline, the
 *   charge's rules, the unit of work) and nothing of Elysia's or the answer's.
 *
 * `elysia`, `memory` and `wal` are issue 19's budget table: what the stack under the sandbox costs
 * on this machine, so the ratio of POST /charge to the ceiling can be read against them.
 */
import { Database } from "bun:sqlite";
import { Elysia, t } from "elysia";
import { configure } from "../src/storage/sqlite/open";
import { AUTH_ERRORS, DeclinedBody, ErrorBody, TransactionRecord } from "../src/domain/schemas/records";
import { ChargeBody } from "../src/domain/schemas/charge";
import { IdempotencyHeaders } from "../src/http/idempotency";
import { buildRecord } from "../src/services/transactions/records";
import type { TransactionRow } from "../src/storage/repositories/transactions";
import type { PaymentMethodRow } from "../src/storage/repositories/payment-methods";
import type { CustomerRow } from "../src/services/customers";

const MODES = ["bare", "elysia", "memory", "wal", "schema", "route"] as const;
type Mode = (typeof MODES)[number];

const mode = (process.argv[2] ?? "bare") as Mode;
if (!MODES.includes(mode)) throw new Error(`bench/ceiling.ts: unknown mode ${mode} (${MODES.join(", ")})`);

function inserter(file: string): (id: string, paymentMethodId: string, total: number) => void {
  const db = new Database(file);
  if (file !== ":memory:") {
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
  }
  db.exec(
    "CREATE TABLE IF NOT EXISTS charges (id TEXT PRIMARY KEY, payment_method_id TEXT NOT NULL, total REAL NOT NULL)",
  );
  const insert = db.prepare("INSERT INTO charges (id, payment_method_id, total) VALUES (?, ?, ?)");
  return (id, paymentMethodId, total) => void insert.run(id, paymentMethodId, total);
}

/**
 * A charge's SQL on the sandbox's schema (see `schema` above): the payment method, its customer and
 * the INSERT of an approved charge, each request in a savepoint of the turn's one transaction.
 */
/** The stored charge and what its record is built from (`route` answers it; `schema` its id). */
interface Stored {
  row: TransactionRow;
  pm: PaymentMethodRow;
  customer: CustomerRow;
}

function charger(file: string): (paymentMethodId: string, total: number) => Promise<Stored | null> {
  const db = new Database(file, { strict: true });
  configure(db); // the sandbox's own connection pragmas

  const merchant = (db.query("SELECT id FROM merchants WHERE is_default = 1").get() as { id: string }).id;
  const paymentMethod = db.prepare("SELECT * FROM payment_methods WHERE id = +? AND merchant_id = +?");
  const customer = db.prepare("SELECT * FROM customers WHERE id = +? AND merchant_id = +?");
  const insert = db.prepare(
    `INSERT INTO transactions (id, merchant_id, customer_id, payment_method_id, method, type, success, total_cents,
       last_four, auth_id, issuer_auth_code, message, meta, reference_id, source, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'charge', 1, ?, ?, ?, ?, 'Approved', '{}', ?, 'api', ?, ?) RETURNING *`,
  );
  const [begin, commit, savepoint, release] = ["BEGIN IMMEDIATE", "COMMIT", 'SAVEPOINT "unit"', 'RELEASE "unit"'].map(
    (text) => db.prepare(text),
  );
  let batch: Promise<void> | undefined;
  return async (paymentMethodId, total) => {
    if (!batch) {
      begin!.run();
      batch = new Promise((done) =>
        setImmediate(() => {
          batch = undefined;
          commit!.run();
          done();
        }),
      );
    }
    const committed = batch;
    savepoint!.run();
    const method = paymentMethod.get(paymentMethodId, merchant) as PaymentMethodRow | null;
    const owner = method && (customer.get(method.customer_id, merchant) as CustomerRow | null);
    const now = new Date().toISOString();
    const id = Bun.randomUUIDv7();
    let row: TransactionRow | null = null;
    if (method && owner) {
      const auth = crypto.randomUUID();
      row = insert.get(
        id,
        merchant,
        owner.id,
        method.id,
        method.method,
        Math.round(total * 100),
        method.card_last_four,
        auth,
        "123456",
        auth,
        now,
        now,
      ) as TransactionRow;
    }
    release!.run();
    await committed;
    return row && { row, pm: method!, customer: owner! };
  };
}

function listenBare(): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = request.method === "POST" ? ((await request.json()) as Record<string, unknown>) : {};
      return Response.json({ id: crypto.randomUUID(), success: true, total: body.total ?? null });
    },
  });
}

function listenElysia(): number {
  const walFile = process.argv[3];
  if ((mode === "wal" || mode === "schema" || mode === "route") && !walFile)
    throw new Error(`bench/ceiling.ts ${mode}: give the SQLite file to write`);
  const insert = mode === "memory" ? inserter(":memory:") : mode === "wal" ? inserter(walFile!) : undefined;
  const charge = mode === "schema" || mode === "route" ? charger(walFile!) : undefined;
  if (mode === "route") return listenRoute(charge!);
  const body = t.Object({
    payment_method_id: t.String(),
    total: t.Number(),
    meta: t.Optional(t.Record(t.String(), t.Unknown())),
  });
  const app = new Elysia()
    .get("/", () => ({ ok: true }))
    .post(
      "/",
      async ({ body, status }) => {
        if (charge) {
          const stored = await charge(body.payment_method_id, body.total);
          return stored
            ? { id: stored.row.id, success: true, total: body.total }
            : status(404, { message: "No such payment method." });
        }
        const id = crypto.randomUUID();
        insert?.(id, body.payment_method_id, body.total);
        return { id, success: true, total: body.total };
      },
      { body },
    )
    .listen({ hostname: "127.0.0.1", port: 0 });
  return app.server!.port!;
}

/**
 * `route`: POST /charge declared as src/http/routes/charge.ts declares it, answering the sandbox's
 * record of the stored charge; no authentication, pipeline, rules or unit of work of the sandbox.
 */
function listenRoute(charge: NonNullable<ReturnType<typeof charger>>): number {
  const app = new Elysia()
    .get("/", () => ({ ok: true }))
    .post(
      "/charge",
      async ({ body, status }) => {
        const stored = await charge(body.payment_method_id, Number(body.total));
        if (!stored) return status(404, { message: "No such payment method.", code: "not_found" });
        return buildRecord(stored.row, { pm: stored.pm, customer: stored.customer, children: [] });
      },
      {
        body: ChargeBody,
        headers: IdempotencyHeaders,
        response: { 200: TransactionRecord, 402: DeclinedBody, ...AUTH_ERRORS, 404: ErrorBody, 409: ErrorBody },
      },
    )
    .listen({ hostname: "127.0.0.1", port: 0 });
  return app.server!.port!;
}

const server = mode === "bare" ? listenBare() : undefined;
const port = server ? server.port : listenElysia();
process.stdout.write(`port ${port}\n`);
process.on("SIGTERM", () => {
  void server?.stop(true);
  process.exit(0);
});
