/**
 * What PostgreSQL's batched writes (./group-commit.ts) and batched reads (./batched-reads.ts) share:
 * gathering what concurrent requests ask for into batches, and the batch's rows as one parameter.
 *
 * A batch leaves when the event loop has nothing else to run in its turn (setImmediate: no timer,
 * so a request alone waits for nothing), or, while as many batches as allowed are out, as soon as
 * one of them is answered: classic group commit. What arrives meanwhile waits for that.
 */
import { sql, type BatchRow, type Sql } from "../database";
import type { ResultArray } from "./results";

/** Sends one statement on any pooled connection, told to the trace as one round trip of its own. */
export type Send = (query: Sql) => Promise<ResultArray>;

/**
 * Batches out at once, per kind of batch. Two: while one batch is on the server the next one is
 * gathered and sent, so the server's work on one overlaps the sandbox's on the other.
 */
export const BATCHES_IN_FLIGHT = 2;

/** Items gathered while the event loop turns, handed to `run` as one batch. */
export class Coalescer<Item> {
  private waiting: Item[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly run: (items: Item[]) => Promise<void>,
    private readonly limit = BATCHES_IN_FLIGHT,
  ) {}

  add(item: Item): void {
    this.waiting.push(item);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.limit || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.inFlight >= this.limit || this.waiting.length === 0) return;
    const items = this.waiting;
    this.waiting = [];
    this.inFlight++;
    // `run` answers every item itself, failures included; a throw here would be a bug in it.
    void this.run(items).finally(() => {
      this.inFlight--;
      this.schedule();
    });
  }
}

/**
 * A batch's rows as one parameter: a JSON array of them, each with `_row`, its place counting from 1
 * (WITH ORDINALITY's count). Sent as text: Bun would encode a JSON parameter a second time.
 */
export function rowsParameter(rows: readonly BatchRow[]): Sql {
  const numbered = rows.map((row, index) => ({ ...row, _row: index + 1 }));
  return sql`${JSON.stringify(numbered)}::text::json`;
}
