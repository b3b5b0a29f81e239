/**
 * PostgreSQL's batched reads: a plain read made outside any transaction (or before a unit's BEGIN)
 * that declares its batch form ({@link ReadBatch}: the merchant by API key, a charge's payment
 * method) goes out with the same read of concurrent requests as ONE statement, the reads' parameters
 * unnested from one JSON parameter, and each caller gets the rows answering its own read.
 *
 * Under READ COMMITTED a statement outside a transaction reads a snapshot of its own taken when it
 * starts, so a read that waits for its batch answers what it would have answered alone a moment
 * later. A read inside a transaction is never batched. A read alone in its batch is sent as it is.
 */
import type { ReadBatch, Sql } from "../database";
import { Coalescer, rowsParameter, type Send } from "./batching";
import { rowsOf } from "./results";

interface PendingRead {
  query: Sql;
  batch: ReadBatch;
  answered: (rows: Record<string, unknown>[]) => void;
  failed: (error: unknown) => void;
}

export class BatchedReads {
  /** One coalescer per kind of read: each kind is its own statement. */
  private readonly kinds = new Map<string, Coalescer<PendingRead>>();

  constructor(private readonly send: Send) {}

  /** The first row answering `query`, read with the same read of concurrent requests. */
  async get<T>(query: Sql, batch: ReadBatch): Promise<T | undefined> {
    let kind = this.kinds.get(batch.key);
    if (!kind) this.kinds.set(batch.key, (kind = new Coalescer((reads) => this.read(reads))));
    const coalescer = kind;
    const rows = await new Promise<Record<string, unknown>[]>((answered, failed) =>
      coalescer.add({ query, batch, answered, failed }),
    );
    return rows[0] as T | undefined;
  }

  private async read(reads: PendingRead[]): Promise<void> {
    if (reads.length > 1 && (await this.together(reads))) return;
    // Alone, or the batch failed (a read's own parameter, or the server): each read gets its own answer.
    await Promise.all(
      reads.map((read) => this.send(read.query).then((result) => read.answered(rowsOf(result)), read.failed)),
    );
  }

  /** Answers every read from one statement; false when that failed. */
  private async together(reads: PendingRead[]): Promise<boolean> {
    try {
      const result = await this.send(reads[0]!.batch.select(rowsParameter(reads.map((read) => read.batch.row))));
      const byRow = new Map<number, Record<string, unknown>[]>();
      for (const row of rowsOf<Record<string, unknown>>(result)) {
        const at = Number(row._row);
        delete row._row;
        const answered = byRow.get(at);
        if (answered) answered.push(row);
        else byRow.set(at, [row]);
      }
      reads.forEach((read, index) => read.answered(byRow.get(index + 1) ?? []));
      return true;
    } catch {
      return false;
    }
  }
}
