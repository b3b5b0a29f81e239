/**
 * Kysely on bun:sqlite for `npm run bench:data-access` (bench/data-access.ts): the best case we
 * could give Kysely if the storage layer adopted it, so that the comparison with the `sql` tag of
 * src/storage/database.ts measures the query builder and its executor, not a weaker driver.
 *
 * Kysely 0.29 has no bun:sqlite dialect. Its SqliteDialect takes a better-sqlite3-like database,
 * so `bunSqliteAdapter` hands it the bun:sqlite connection with statements prepared once per
 * query text (as SqliteDatabase does; the `kysely-bun-sqlite` package 0.4.0 calls `db.prepare()`
 * on every query and opens a plain BEGIN/COMMIT per transaction, so it has neither the cache nor
 * group commit). Kysely serialises the single connection itself (its RuntimeDriver holds a mutex
 * when the adapter says `supportsMultipleConnections === false`, which SqliteAdapter does).
 *
 * Kysely's own lock for that connection (ConnectionMutex) wakes every waiter on each release and
 * all but one go back to waiting: with 50 requests in flight that is ~50 wake-ups per unit of
 * work. SqliteDatabase hands the connection to the next waiter in line instead. `lock: "fifo"`
 * (the default here) gives Kysely the same queue — the adapter then tells Kysely the connection
 * may be shared and the driver queues for it itself — so the comparison is not about the lock;
 * `lock: "kysely"` keeps Kysely's own, to measure what that costs.
 *
 * `GroupCommitSqliteDialect` adds the server's group commit (src/storage/sqlite/database.ts) to
 * Kysely's transactions: the first unit of work in a turn of the event loop opens the batch
 * (BEGIN IMMEDIATE), each unit is a SAVEPOINT inside it, and the batch commits at setImmediate,
 * after taking the connection through Kysely like any query; `settled()` resolves once the batch
 * holding a unit's writes is committed.
 */
import type { Database as BunDatabase, Statement } from "bun:sqlite";
import {
  Kysely,
  SqliteAdapter,
  SqliteDialect,
  type DialectAdapter,
  type DatabaseConnection,
  type Driver,
  type Generated,
  type SqliteDatabase as KyselySqliteDatabase,
  type SqliteStatement,
  type TransactionSettings,
} from "kysely";

/** The bun:sqlite connection as the better-sqlite3-like database Kysely's SqliteDialect expects. */
export function bunSqliteAdapter(raw: BunDatabase): KyselySqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => raw.close(),
    prepare(text: string): SqliteStatement {
      let adapted = statements.get(text);
      if (!adapted) {
        const statement: Statement = raw.prepare(text);
        adapted = {
          // better-sqlite3's `reader`: the statement returns rows (a SELECT, or RETURNING).
          reader: statement.columnNames.length > 0,
          all: (parameters) => statement.all(...(parameters as never[])),
          run: (parameters) => statement.run(...(parameters as never[])),
          iterate: (parameters) => statement.iterate(...(parameters as never[])),
        };
        statements.set(text, adapted);
      }
      return adapted;
    },
  };
}

/** Which lock serialises the one connection: Kysely's own mutex, or a first-come-first-served queue. */
export type ConnectionLock = "kysely" | "fifo";

/** SqliteAdapter, but telling Kysely not to lock the connection (the driver queues for it itself). */
class SelfLockingSqliteAdapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

/**
 * Delegates to Kysely's SqliteDriver, except that transactions share one group commit per turn
 * and, with the "fifo" lock, the connection goes to the next waiter in line.
 */
class GroupCommitDriver implements Driver {
  private busy = false;
  private readonly waiters: (() => void)[] = [];
  batchOpen = false;
  batch: Promise<void> = Promise.resolve();
  batches = 0;
  /** Set once the Kysely instance exists: runs `step` holding the connection. */
  withConnection?: (step: () => void) => Promise<void>;

  constructor(
    private readonly inner: Driver,
    private readonly raw: BunDatabase,
    private readonly lock: ConnectionLock,
  ) {}

  init() {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.lock === "fifo") {
      if (this.busy) await new Promise<void>((resolve) => this.waiters.push(resolve));
      else this.busy = true;
    }
    return this.inner.acquireConnection();
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await this.inner.releaseConnection(connection);
    if (this.lock === "fifo") {
      const next = this.waiters.shift();
      if (next) next();
      else this.busy = false;
    }
  }
  destroy() {
    return this.inner.destroy();
  }

  async beginTransaction(_connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    this.joinBatch();
    this.raw.run('SAVEPOINT "unit"');
  }

  async commitTransaction(): Promise<void> {
    this.raw.run('RELEASE "unit"');
  }

  async rollbackTransaction(): Promise<void> {
    this.raw.run('ROLLBACK TO "unit"');
    this.raw.run('RELEASE "unit"');
  }

  private joinBatch(): void {
    if (this.batchOpen) return;
    this.raw.run("BEGIN IMMEDIATE");
    this.batchOpen = true;
    let done!: () => void;
    let failed!: (error: unknown) => void;
    this.batch = new Promise<void>((resolve, reject) => {
      done = resolve;
      failed = reject;
    });
    this.batch.catch(() => {});
    setImmediate(() => {
      this.withConnection!(() => {
        this.batchOpen = false;
        this.batches++;
        this.raw.run("COMMIT");
      }).then(done, (error) => {
        if (this.raw.inTransaction) this.raw.run("ROLLBACK");
        failed(error);
      });
    });
  }
}

export class GroupCommitSqliteDialect extends SqliteDialect {
  readonly driver: GroupCommitDriver;

  constructor(
    raw: BunDatabase,
    private readonly lock: ConnectionLock,
  ) {
    super({ database: bunSqliteAdapter(raw) });
    this.driver = new GroupCommitDriver(super.createDriver(), raw, lock);
  }

  override createDriver(): Driver {
    return this.driver;
  }

  override createAdapter(): DialectAdapter {
    return this.lock === "fifo" ? new SelfLockingSqliteAdapter() : super.createAdapter();
  }
}

/** Kysely on a bun:sqlite connection with group commit, and the settled() of the server. */
export function kyselyWithGroupCommit<Tables>(raw: BunDatabase, lock: ConnectionLock = "fifo") {
  const dialect = new GroupCommitSqliteDialect(raw, lock);
  const db = new Kysely<Tables>({ dialect });
  dialect.driver.withConnection = (step) => db.connection().execute(async () => step());
  return {
    db,
    /** Resolves once every unit of work committed so far is durable (like SqliteDatabase.settled). */
    settled: (): Promise<void> => (dialect.driver.batchOpen ? dialect.driver.batch : Promise.resolve()),
    batches: () => dialect.driver.batches,
  };
}

/** Kysely on a bun:sqlite connection, plain (no group commit): the microbenchmark's reads. */
export function kyselyPlain<Tables>(raw: BunDatabase): Kysely<Tables> {
  return new Kysely<Tables>({ dialect: new SqliteDialect({ database: bunSqliteAdapter(raw) }) });
}

// ---------------------------------------------------------------- the tables a charge touches

export interface MerchantRow {
  id: string;
  api_key: string;
  api_key_hash: string;
}

export interface CustomerRow {
  id: string;
  merchant_id: string;
  firstname: string;
  lastname: string;
  company: string;
  email: string;
  phone: string;
  address_1: string;
  address_2: string;
  address_city: string;
  address_state: string;
  address_zip: string;
  address_country: string;
  reference: string;
  notes: string | null;
  options: string | null;
  cc_emails: string | null;
  cc_sms: string | null;
  allow_invoice_credit_card_payments: number;
  gravatar: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface PaymentMethodRow {
  id: string;
  merchant_id: string;
  customer_id: string;
  method: "card" | "bank";
  person_name: string;
  card_type: string | null;
  card_last_four: string | null;
  card_exp: string | null;
  bank_name: string | null;
  bank_type: string | null;
  bank_last_four: string | null;
  outcome: string;
  deleted_at: string | null;
}

export interface TransactionRow {
  id: string;
  merchant_id: string;
  parent_id: string | null;
  invoice_id: string | null;
  customer_id: string;
  payment_method_id: string;
  method: "card" | "bank";
  type: string;
  success: number;
  total_cents: number;
  last_four: string;
  auth_id: string | null;
  issuer_auth_code: string | null;
  message: string | null;
  decline_code: string | null;
  meta: string;
  is_manual: number;
  is_merchant_present: number;
  reference_id: string;
  source: string | null;
  pre_auth: number;
  is_captured: number;
  is_voided: number;
  total_refunded_cents: number;
  receipt_email_at: string | null;
  receipt_sms_at: string | null;
  batch_id: string | null;
  settled_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface HookRow {
  id: string;
  event: string;
  created_at: string;
}

/** Kysely's view of the schema: only what /charge reads and writes. */
export interface ChargeTables {
  merchants: MerchantRow;
  customers: CustomerRow;
  payment_methods: PaymentMethodRow;
  transactions: {
    [K in keyof TransactionRow]: K extends
      | "parent_id"
      | "is_manual"
      | "is_captured"
      | "is_voided"
      | "total_refunded_cents"
      | "receipt_sms_at"
      | "batch_id"
      | "settled_at"
      ? Generated<TransactionRow[K]>
      : TransactionRow[K];
  };
  webhooks: HookRow & { merchant_id: string; deleted_at: string | null; disabled_at: string | null };
  webhook_deliveries: {
    id: string;
    merchant_id: string;
    webhook_id: string;
    event: string;
    record_id: string;
    body: string;
    next_attempt_at_ms: number;
    created_at: string;
    updated_at: string;
  };
}
