/**
 * Group commit for the HTTP server: the requests that arrive in one turn of the event loop share one
 * SQLite transaction, committed once at the end of that turn (setImmediate), and no response leaves
 * before the commit that holds its writes. Durability is unchanged — an answer is only sent once
 * its rows are in the WAL — but N concurrent writes cost one commit instead of N, and the commit
 * (writing the WAL frames, the locks) was the largest single cost of POST /charge.
 *
 * Everything else keeps working as written: code that opens its own transaction
 * (`db.transaction(...)`, runIdempotent) gets a SAVEPOINT inside the batch, so a request that fails
 * still rolls back alone; plain statements simply join the batch. When a batch's COMMIT fails, every
 * request that was in flight during it answers 500 (nothing of it was kept). src/entry/server.ts wraps its
 * fetch with `around`; in-process tests (app.handle) do not use it.
 */
import type { Database } from "bun:sqlite";
import type { Worker } from "../../lib/worker";
import type { Logger } from "../../lib/logger";

export class GroupCommit {
  private open = false;
  private committed: Promise<void> = Promise.resolve();
  /** Batches whose COMMIT failed, ever. */
  private failures = 0;
  /** Batches committed, ever (for the bench and tests). */
  batches = 0;

  constructor(
    private readonly db: Database,
    private readonly log?: Logger,
  ) {}

  /** Opens a batch for this turn of the event loop unless one is open (or someone else's transaction is). */
  private begin(): void {
    if (this.open || this.db.inTransaction) return;
    this.db.run("BEGIN IMMEDIATE");
    this.open = true;
    let done!: () => void;
    this.committed = new Promise((resolve) => (done = resolve));
    setImmediate(() => {
      this.commit();
      done();
    });
  }

  private commit(): void {
    if (!this.open) return;
    this.open = false;
    this.batches++;
    try {
      this.db.run("COMMIT");
    } catch (error) {
      this.failures++;
      this.log?.error(`group commit failed; the batch was rolled back: ${(error as Error)?.stack ?? error}`);
      try {
        this.db.run("ROLLBACK");
      } catch {
        // already rolled back
      }
    }
  }

  /** Resolves once every write made so far is committed. */
  async settled(): Promise<void> {
    if (this.open) await this.committed;
  }

  /** Runs one request inside the current batch and holds its response until the batch is committed. */
  async around(handle: () => Response | Promise<Response>): Promise<Response> {
    const failuresBefore = this.failures;
    this.begin();
    const response = await handle();
    await this.settled();
    if (this.failures !== failuresBefore) {
      return Response.json(
        {
          message: "Internal error: the database could not commit this request; nothing was kept.",
          code: "internal_error",
        },
        { status: 500 },
      );
    }
    return response;
  }

  /** Commits any open batch now (shutdown). */
  flush(): void {
    this.commit();
  }

  /** A worker whose stop() commits the open batch, so shutdown never drops acknowledged work. */
  worker(): Worker {
    return { name: "group-commit", start: () => {}, stop: () => this.flush() };
  }
}
