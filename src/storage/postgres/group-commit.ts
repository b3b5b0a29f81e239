/**
 * PostgreSQL's group commit: units of work that end with only held writes, each declaring its batch
 * form ({@link WriteBatch}), and that never sent BEGIN (a `/charge`: its transaction row and its
 * outbox rows) would each send one statement of their own. Units ending together go out as ONE
 * statement instead: the rows of each kind of write, from every unit, unnested from one JSON
 * parameter and written by one INSERT … SELECT, the kinds merged as data-modifying CTEs.
 *
 * What each unit still gets:
 * - its own verdict: when the batch's statement fails (nothing of it is kept: one statement is
 *   atomic), each unit's own statement is sent alone, as it would have been without the batch, so
 *   only a faulty unit fails, with its own error;
 * - its own count: a write with `then` is told how many rows its own row of the batch wrote;
 * - its acknowledgement only once the statement that wrote it committed (autocommit: the server
 *   answers it once durable).
 * A unit alone in its batch sends its own statement, unchanged.
 */
import { sql, type HoldOptions, type Sql, type WriteBatch } from "../database";
import { Coalescer, rowsParameter, type Send } from "./batching";
import { rowsOf, type ResultArray } from "./results";

/** A unit of work at its end: its held writes, and how to send its own statement instead. */
interface EndingUnit {
  writes: HoldOptions[];
  alone: () => Promise<unknown>;
  done: () => void;
  failed: (error: unknown) => void;
}

/** Every write of one kind in a batch: its statement's form, its rows, and who is told a count. */
interface Group {
  form: WriteBatch;
  rows: WriteBatch["row"][];
  told: { row: number; then: NonNullable<HoldOptions["then"]> }[];
}

export class GroupCommit {
  private readonly units = new Coalescer<EndingUnit>((units) => this.write(units));

  constructor(private readonly send: Send) {}

  /** Whether the unit's held writes may go in a batch: each declares its form, and they are independent. */
  static accepts(writes: readonly HoldOptions[]): boolean {
    return writes.every((w) => w.batch && (writes.length === 1 || w.independent));
  }

  /** Writes a unit's held writes with those of units ending at the same time; `alone` sends its own statement. */
  end(writes: HoldOptions[], alone: () => Promise<unknown>): Promise<void> {
    return new Promise((done, failed) => this.units.add({ writes, alone, done, failed }));
  }

  private async write(units: EndingUnit[]): Promise<void> {
    if (units.length > 1) {
      const { query, answer } = batchOf(units);
      try {
        answer(await this.send(query));
        for (const unit of units) unit.done();
        return;
      } catch {
        // Some unit's write is at fault (or the server is): each unit alone gets its own verdict.
      }
    }
    await Promise.all(units.map((unit) => unit.alone().then(unit.done, unit.failed)));
  }
}

/** The one statement writing every unit's rows, and what tells each write its count from its answer. */
function batchOf(units: readonly EndingUnit[]): { query: Sql; answer: (result: ResultArray) => void } {
  const groups = new Map<string, Group>();
  for (const unit of units) {
    for (const write of unit.writes) {
      const form = write.batch!;
      let group = groups.get(form.key);
      if (!group) groups.set(form.key, (group = { form, rows: [], told: [] }));
      group.rows.push(form.row);
      if (write.then) group.told.push({ row: group.rows.length, then: write.then });
    }
  }
  // In a fixed order, so the same kinds of writes make the same text (one prepared statement).
  const sorted = [...groups.keys()].sort().map((key) => groups.get(key)!);
  const parts: Sql[] = [];
  const counts: Sql[] = [];
  sorted.forEach(({ form, rows, told }, index) => {
    const select = form.select(rowsParameter(rows));
    const source = sql.raw(`s${index}`);
    const written = sql.raw(`w${index}`);
    if (told.length === 0) {
      parts.push(sql`${written} AS (${form.insert(sql`(${select}) AS ${source}`)})`);
      return;
    }
    // Each row's count is what its own rows wrote: the source, read once, is what the INSERT wrote.
    parts.push(sql`${source} AS MATERIALIZED (${select})`, sql`${written} AS (${form.insert(source)})`);
    counts.push(
      sql`(SELECT json_object_agg(_row, n)::text FROM (SELECT _row, COUNT(*) AS n FROM ${source} GROUP BY _row) c)
        AS ${sql.raw(`c${index}`)}`,
    );
  });
  const query = sql`WITH ${sql.join(parts)} SELECT ${counts.length > 0 ? sql.join(counts) : sql`1 AS written`}`;
  const answer = (result: ResultArray) => {
    const row = rowsOf<Record<string, unknown>>(result)[0] ?? {};
    sorted.forEach(({ told }, index) => {
      if (told.length === 0) return;
      const value = row[`c${index}`];
      const byRow = (typeof value === "string" ? JSON.parse(value) : (value ?? {})) as Record<string, number>;
      for (const { row: at, then } of told) then({ changes: Number(byRow[at] ?? 0) });
    });
  };
  return { query, answer };
}
