/**
 * A unit of work on one reserved PostgreSQL connection, in as few round trips and statements as
 * its statements allow. Bun's client writes statements started together into one packet when each
 * is a prepared statement (the extended protocol), and PostgreSQL answers each on its own (a Sync
 * after each), so a failure stays the failing statement's. This unit uses that:
 *
 * - BEGIN is never sent alone: it goes with the unit's first statement. A first statement that
 *   only reads (a SELECT that locks nothing) goes without it: under READ COMMITTED each statement
 *   reads its own snapshot anyway, so reading before BEGIN sees what reading after it would.
 * - A write nobody waits on ({@link UnitOfWork.hold}: an outbox row, an INSERT whose row the caller
 *   built itself) goes with the unit's next statement, or with its COMMIT. It still runs in order,
 *   before any later statement of the unit, which therefore sees it; if it fails, the statement it
 *   went with throws its error, and a COMMIT sent behind it ends the transaction as a ROLLBACK, so
 *   the unit fails whole, as if the write had thrown where it was made.
 * - At the end, what is held is sent as one statement where it can be: a single write, or writes
 *   that say they are independent of each other merged into data-modifying CTEs. A unit that had
 *   sent only reads then needs no BEGIN and no COMMIT: one statement is atomic on its own.
 * - A SAVEPOINT goes with the next statement; RELEASE too, unless held writes made inside it must be
 *   answered first (their failure is the savepoint's to undo).
 * - The unit reserves a connection of the pool only when it sends BEGIN. What goes before (plain
 *   reads, or the one statement of a unit that needs no BEGIN, as a `/charge` is) runs on whichever
 *   pooled connection is free, as any statement outside a transaction does: reserving and releasing
 *   a connection costs Bun's pool more than such a statement.
 *
 * Every round trip is told to the {@link StatementTrace}, if any (the bench and the statement tests).
 */
import type { ReservedSQL, SQL } from "bun";
import { sql, type HoldOptions, type ReadBatch, type RenderedSql, Sql, type SqlValue } from "../database";
import { renderShaped } from "../sql-shapes";
import type { StatementTrace } from "../statement-count";
import type { BatchedReads } from "./batched-reads";
import { GroupCommit } from "./group-commit";
import { rowsOf, translate, type ResultArray } from "./results";

/** Where a unit sends what may go with the same statement of concurrent units. */
export interface Batching {
  writes: GroupCommit;
  reads: BatchedReads;
}

interface Statement {
  text: string;
  /** Null for a control statement (BEGIN, COMMIT, SAVEPOINT…): it has no parameters. */
  values: SqlValue[] | null;
  /** A held write: its query and how it may be sent. */
  held?: { query: Sql; options: HoldOptions };
  /** Told the statement's answer. */
  answered?: (result: ResultArray) => void;
}

const templates = new Map<string, TemplateStringsArray>();

/**
 * `text` as a tagged template's strings: Bun sends a template without parameters as a prepared
 * statement, which it pipelines, where `unsafe(text)` would be a simple query, always sent alone.
 */
function templateOf(text: string): TemplateStringsArray {
  let strings = templates.get(text);
  if (!strings) {
    const array = Object.defineProperty([text], "raw", { value: Object.freeze([text]) });
    strings = Object.freeze(array) as unknown as TemplateStringsArray;
    templates.set(text, strings);
  }
  return strings;
}

const control = (text: string): Statement => ({ text, values: null });
const BEGIN = control("BEGIN");
const COMMIT = control("COMMIT");
const ROLLBACK = control("ROLLBACK");

const isWrite = (statement: Statement) => statement.held !== undefined || statement.values !== null;

/** A SELECT that takes no lock and calls nothing known to write or lock: it may run outside the transaction. */
const PLAIN_READ = /^\s*SELECT\b/i;
const LOCKS_OR_WRITES =
  /\bFOR\s+(NO\s+KEY\s+)?(UPDATE|SHARE)\b|\bFOR\s+KEY\s+SHARE\b|pg_advisory|nextval|setval|\b(INSERT|UPDATE|DELETE)\b/i;
const isPlainRead = (statement: Statement) =>
  statement.values !== null && PLAIN_READ.test(statement.text) && !LOCKS_OR_WRITES.test(statement.text);

/** The table a write changes, and whether it only adds rows. */
const TARGET = /^\s*(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+("?[\w.]+"?)/i;

/**
 * Whether independent writes may be one statement of data-modifying CTEs. Not when two of them
 * change the same table and one of them updates or deletes: CTEs that change one row twice keep
 * only one of the changes (PostgreSQL's manual, WITH), and nothing here can tell the rows apart.
 * Such writes still go in one packet, as statements of their own.
 */
export function mergeable(queries: readonly Sql[]): boolean {
  const seen = new Map<string, boolean>();
  for (const query of queries) {
    const match = TARGET.exec(leadingText(query));
    if (!match) return false;
    const table = match[2]!.replaceAll('"', "").toLowerCase();
    const onlyAdds = /^INSERT/i.test(match[1]!);
    const before = seen.get(table);
    if (before !== undefined && !(before && onlyAdds)) return false;
    seen.set(table, before === undefined ? onlyAdds : before && onlyAdds);
  }
  return true;
}

/** The text a query begins with, without rendering it (a nested fragment first is looked into). */
function leadingText(query: Sql): string {
  const first = query.strings[0] ?? "";
  if (first.trim() === "" && query.values[0] instanceof Sql) return leadingText(query.values[0]);
  return first;
}

/** Writes that say they are independent of each other, as one statement telling what each changed. */
function merged(writes: Statement[]): Statement {
  const parts = writes.map((w, index) => sql`${sql.raw(`w${index}`)} AS (${w.held!.query} RETURNING 1)`);
  const counts = writes.map((_, index) => sql.raw(`(SELECT COUNT(*) FROM w${index}) AS w${index}`));
  const query = sql`WITH ${sql.join(parts)} SELECT ${sql.join(counts)}`;
  const { text, values } = renderShaped(query, "postgres");
  const answered = (result: ResultArray) =>
    writes.forEach((w, index) => w.held!.options.then?.({ changes: Number(result[0]?.[`w${index}`] ?? 0) }));
  return { text, values, answered };
}

export class UnitOfWork {
  private begun = false;
  private ended = false;
  private held: Statement[] = [];
  private depth = 0;
  private inFlight = 0;
  /** The reserved connection, from the unit's BEGIN on. */
  private reserved: Promise<ReservedSQL> | undefined;

  constructor(
    private readonly pool: SQL,
    private readonly trace: StatementTrace | undefined,
    private readonly batching?: Batching,
  ) {}

  /** Gives the reserved connection back to the pool (Bun closes it if it is still inside a transaction). */
  async release(): Promise<void> {
    const reserved = this.reserved;
    this.reserved = undefined;
    if (reserved) await (await reserved.catch(() => undefined))?.release();
  }

  /** Runs `query`, with whatever is held before it, and answers its rows. */
  async query(query: Sql): Promise<ResultArray> {
    const { text, values } = renderShaped(query, "postgres");
    return (await this.send({ text, values }))!;
  }

  /**
   * A read's first row; before BEGIN, with nothing held, read together with the same read of
   * concurrent requests (./batched-reads.ts), as a plain read goes out of the transaction anyway.
   */
  async getBatched<T>(query: Sql, batch: ReadBatch): Promise<T | undefined> {
    if (this.batching && !this.begun && this.held.length === 0) return this.batching.reads.get<T>(query, batch);
    return rowsOf<T>(await this.query(query))[0];
  }

  /** A write sent with the unit's next statement or at its end (see the module's comment). */
  hold(query: Sql, options: HoldOptions = {}): void {
    const answered = options.then && ((result: ResultArray) => options.then!({ changes: result.affectedRows ?? 0 }));
    // Rendered only if sent as it is: a write that goes in a batch of concurrent units never is.
    let rendered: RenderedSql | undefined;
    const render = () => (rendered ??= renderShaped(query, "postgres"));
    this.held.push({
      get text() {
        return render().text;
      },
      get values() {
        return render().values;
      },
      held: { query, options },
      answered,
    });
  }

  /** Runs SQL text of several statements without parameters (migrations), after what is held. */
  async script(text: string): Promise<void> {
    await this.send(null, true);
    this.trace?.sent([text], true);
    try {
      await (await this.reserved!).unsafe(text).simple();
    } catch (error) {
      throw translate(error);
    }
  }

  /** Commits: what is held goes with the COMMIT, as one statement where it can be. */
  async commit(): Promise<void> {
    try {
      const writes = this.held.filter(isWrite);
      const onlyWrites = writes.length === this.held.length;
      const single =
        onlyWrites &&
        (writes.length === 1 ||
          (writes.length > 1 &&
            writes.every((w) => w.held?.options.independent) &&
            mergeable(writes.map((w) => w.held!.query))));
      // Built only when sent: a unit whose writes go in a batch of concurrent units never sends it.
      const one = () => (writes.length === 1 ? writes[0]! : merged(writes));
      if (!this.begun) {
        // Nothing but reads went out: the writes left are the unit; a single statement needs no BEGIN.
        if (writes.length === 0) return;
        if (single) {
          this.held = [];
          const options = writes.map((w) => w.held!.options);
          // With the same writes of units ending now, as one statement (./group-commit.ts), or alone.
          if (this.batching && GroupCommit.accepts(options)) {
            await this.batching.writes.end(options, () => this.send(one(), false));
          } else await this.send(one(), false);
          return;
        }
      }
      if (single) this.held = [one()];
      const answer = await this.send(COMMIT, true);
      // A statement failed and its error was not thrown here (a caller caught it): nothing was kept.
      if (answer?.command === "ROLLBACK") throw new Error("PostgreSQL rolled the unit of work back at its COMMIT");
    } finally {
      this.ended = true;
    }
  }

  /** Rolls back what was sent; what is held is dropped. */
  async rollback(): Promise<void> {
    this.held = [];
    if (!this.begun || this.ended) return;
    this.ended = true;
    try {
      await this.send(ROLLBACK, true);
    } catch {
      // A connection that fails here is closed when released inside its transaction, never reused.
    }
  }

  /** A nested unit (a savepoint): a throw undoes only what `work` wrote, then rethrows. */
  async savepoint<T>(work: () => Promise<T>): Promise<T> {
    const name = `unit_${++this.depth}`;
    const opened = control(`SAVEPOINT ${name}`);
    this.held.push(opened);
    try {
      const result = await work();
      const at = this.held.indexOf(opened); // still held: nothing of the savepoint was sent
      const inside = this.held.slice(at + 1);
      if (!inside.some(isWrite)) {
        if (at >= 0) this.held.splice(at, 1);
        else this.held.push(control(`RELEASE SAVEPOINT ${name}`));
      } else await this.send(control(`RELEASE SAVEPOINT ${name}`), true);
      return result;
    } catch (error) {
      const at = this.held.indexOf(opened);
      if (at >= 0) this.held.length = at;
      else {
        this.held = [];
        await this.send(control(`ROLLBACK TO SAVEPOINT ${name}`), true);
        this.held.push(control(`RELEASE SAVEPOINT ${name}`));
      }
      throw error;
    } finally {
      this.depth--;
    }
  }

  /**
   * Sends what is held and `statement`, together, with BEGIN first when the unit has none yet and
   * `transactional` (by default: unless `statement` is a plain read with nothing held before it).
   * Answers `statement`'s result.
   */
  private async send(
    statement: Statement | null,
    transactional = !(statement && this.held.length === 0 && isPlainRead(statement)),
  ): Promise<ResultArray | undefined> {
    const batch = this.held;
    this.held = [];
    if (!this.begun && transactional) {
      batch.unshift(BEGIN);
      this.begun = true;
      this.reserved = this.pool.reserve();
    }
    if (statement) batch.push(statement);
    if (batch.length === 0) return undefined;
    this.trace?.sent(
      batch.map((s) => s.text),
      this.inFlight === 0,
    );
    this.inFlight++;
    let settled: PromiseSettledResult<ResultArray>[];
    try {
      // Before BEGIN: any pooled connection. After: the reserved one, in the order sent (units
      // waiting on the same reservation resume in the order they began to wait).
      const conn = this.reserved ? await this.reserved : this.pool;
      settled = await Promise.allSettled(batch.map((s) => this.start(conn, s)));
    } finally {
      this.inFlight--;
    }
    // The first failure is the cause; the statements after it failed because the transaction had.
    for (const outcome of settled) if (outcome.status === "rejected") throw translate(outcome.reason);
    const results = settled.map((outcome) => (outcome as PromiseFulfilledResult<ResultArray>).value);
    batch.forEach((s, index) => s.answered?.(results[index]!));
    return statement ? results.at(-1) : undefined;
  }

  private start(conn: SQL, statement: Statement): Promise<ResultArray> {
    const query =
      statement.values === null ? conn(templateOf(statement.text)) : conn.unsafe(statement.text, statement.values);
    return query as unknown as Promise<ResultArray>;
  }
}
