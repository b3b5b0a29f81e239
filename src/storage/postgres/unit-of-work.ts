/**
 * A unit of work on one reserved PostgreSQL connection, in as few round trips as its statements
 * allow. Bun's client writes statements started together into one packet when each is a prepared
 * statement (the extended protocol), and PostgreSQL answers each on its own (a Sync after each),
 * so a failure stays the failing statement's. This unit uses that:
 *
 * - BEGIN is never sent alone: it goes with the unit's first statement. A unit that sends nothing
 *   costs nothing (no BEGIN, no COMMIT).
 * - A write nobody waits on ({@link UnitOfWork.hold}: an outbox row, an INSERT whose row the caller
 *   built itself) goes with the unit's next statement, or with its COMMIT. It still runs in order,
 *   before any later statement of the unit, which therefore sees it; if it fails, the statement it
 *   went with throws its error, and a COMMIT sent behind it ends the transaction as a ROLLBACK, so
 *   the unit fails whole, as if the write had thrown where it was made.
 * - A SAVEPOINT goes with the next statement; RELEASE too, unless held writes made inside it must be
 *   answered first (their failure is the savepoint's to undo).
 *
 * Every round trip is told to the {@link StatementTrace}, if any (the bench and the statement tests).
 */
import type { ReservedSQL } from "bun";
import { renderSql, type RunResult, type Sql, type SqlValue } from "../database";
import type { StatementTrace } from "../statement-count";
import { translate, type ResultArray } from "./results";

interface Statement {
  text: string;
  /** Null for a control statement (BEGIN, COMMIT, SAVEPOINT…): it has no parameters. */
  values: SqlValue[] | null;
  /** A held write's caller, told what it changed once answered. */
  then?: (result: RunResult) => void;
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

const isWrite = (statement: Statement) => statement.values !== null;

export class UnitOfWork {
  private begun = false;
  private ended = false;
  private held: Statement[] = [];
  private depth = 0;
  private inFlight = 0;

  constructor(
    private readonly conn: ReservedSQL,
    private readonly trace: StatementTrace | undefined,
  ) {}

  /** Runs `query`, with whatever is held before it, and answers its rows. */
  async query(query: Sql): Promise<ResultArray> {
    const { text, values } = renderSql(query, "postgres");
    return (await this.send({ text, values }))!;
  }

  /** A write sent with the unit's next statement or its COMMIT; `then` is told what it changed. */
  hold(query: Sql, then?: (result: RunResult) => void): void {
    const { text, values } = renderSql(query, "postgres");
    this.held.push({ text, values, then });
  }

  /** Runs SQL text of several statements without parameters (migrations), after what is held. */
  async script(text: string): Promise<void> {
    await this.send(null);
    this.trace?.sent([text], true);
    try {
      await this.conn.unsafe(text).simple();
    } catch (error) {
      throw translate(error);
    }
  }

  /** Commits: what is held goes with the COMMIT. A unit that sent nothing has nothing to commit. */
  async commit(): Promise<void> {
    if (!this.begun && this.held.length === 0) {
      this.ended = true;
      return;
    }
    try {
      const answer = await this.send(COMMIT);
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
      await this.send(ROLLBACK);
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
      } else await this.send(control(`RELEASE SAVEPOINT ${name}`));
      return result;
    } catch (error) {
      const at = this.held.indexOf(opened);
      if (at >= 0) this.held.length = at;
      else {
        this.held = [];
        await this.send(control(`ROLLBACK TO SAVEPOINT ${name}`));
        this.held.push(control(`RELEASE SAVEPOINT ${name}`));
      }
      throw error;
    } finally {
      this.depth--;
    }
  }

  /** Sends BEGIN (the first time), what is held and `statement`, together; answers `statement`'s result. */
  private async send(statement: Statement | null): Promise<ResultArray | undefined> {
    const batch = this.held;
    this.held = [];
    if (!this.begun) {
      batch.unshift(BEGIN);
      this.begun = true;
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
      settled = await Promise.allSettled(batch.map((s) => this.start(s)));
    } finally {
      this.inFlight--;
    }
    // The first failure is the cause; the statements after it failed because the transaction had.
    for (const outcome of settled) if (outcome.status === "rejected") throw translate(outcome.reason);
    const results = settled.map((outcome) => (outcome as PromiseFulfilledResult<ResultArray>).value);
    batch.forEach((s, index) => s.then?.({ changes: results[index]!.affectedRows ?? 0 }));
    return statement ? results.at(-1) : undefined;
  }

  private start(statement: Statement): Promise<ResultArray> {
    const query =
      statement.values === null
        ? this.conn(templateOf(statement.text))
        : this.conn.unsafe(statement.text, statement.values);
    return query as unknown as Promise<ResultArray>;
  }
}
