/**
 * Group commit for the HTTP server, over SqliteDatabase's batches (src/storage/sqlite/database.ts,
 * opened with `groupCommit: true`): the writes of the requests of one turn of the event loop share
 * one SQLite transaction, and no response leaves before the commit that holds its writes.
 * Durability is unchanged — an answer is only sent once its rows are in the WAL — but N concurrent
 * writes cost one commit instead of N. When a batch's COMMIT fails, every request that was in
 * flight during it answers 500 (nothing of it was kept). src/entry/server.ts wraps its fetch with
 * `around`; in-process tests (app.handle) do not use it.
 */
import type { Worker } from "../../lib/worker";
import type { SqliteDatabase } from "./database";

const COMMIT_FAILED = {
  message: "Internal error: the database could not commit this request; nothing was kept.",
  code: "internal_error",
};

/** Runs one request and holds its response until the batch holding its writes is committed. */
export async function around(db: SqliteDatabase, handle: () => Response | Promise<Response>): Promise<Response> {
  const failuresBefore = db.commitFailures;
  const response = await handle();
  try {
    await db.settled();
  } catch {
    return Response.json(COMMIT_FAILED, { status: 500 });
  }
  if (db.commitFailures !== failuresBefore) return Response.json(COMMIT_FAILED, { status: 500 });
  return response;
}

/** A worker whose stop() commits the open batch, so shutdown never drops acknowledged work. */
export function groupCommitWorker(db: SqliteDatabase): Worker {
  return { name: "group-commit", start: () => {}, stop: () => db.flush() };
}
