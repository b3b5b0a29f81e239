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
 * The last three are issue 19's budget table: what the stack under the sandbox costs on this
 * machine, so the ratio of POST /charge to the ceiling can be read against them.
 */
import { Database } from "bun:sqlite";
import { Elysia, t } from "elysia";

const MODES = ["bare", "elysia", "memory", "wal"] as const;
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
  if (mode === "wal" && !walFile) throw new Error("bench/ceiling.ts wal: give the SQLite file to write");
  const insert = mode === "memory" ? inserter(":memory:") : mode === "wal" ? inserter(walFile!) : undefined;
  const body = t.Object({
    payment_method_id: t.String(),
    total: t.Number(),
    meta: t.Optional(t.Record(t.String(), t.Unknown())),
  });
  const app = new Elysia()
    .get("/", () => ({ ok: true }))
    .post(
      "/",
      ({ body }) => {
        const id = crypto.randomUUID();
        insert?.(id, body.payment_method_id, body.total);
        return { id, success: true, total: body.total };
      },
      { body },
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
