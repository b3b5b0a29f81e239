#!/usr/bin/env bun
/**
 * POST /charge on an Elysia server, with its storage written one of two ways, for
 * `npm run bench:data-access` (bench/data-access.ts):
 *
 * - `sql`: the `sql` tag of src/storage/database.ts on SqliteDatabase (src/storage/sqlite/database.ts)
 *   with group commit, as the sandbox server opens it;
 * - `kysely`: Kysely 0.29 on the same kind of connection with the same group commit
 *   (bench/data-access-kysely.ts).
 *
 * Both run exactly the statements of a sandbox /charge (tests/http/hot-path.test.ts): the merchant
 * by its key's hash (cached), in one unit of work the payment method and its customer by primary
 * key, the merchant's active webhooks (the outbox check, cached), the transaction INSERT …
 * RETURNING and one delivery INSERT per matching webhook; then the answer waits for the group
 * commit. Everything around the storage (routing, TypeBox validation of the body and the answer,
 * the simulated gateway, the record) is the same code for both.
 *
 * Run alone: `bun bench/data-access-server.ts --approach sql|kysely --db PATH`; prints "port N".
 * GET /_stats answers the process's CPU time (process.cpuUsage) and the charges answered so far.
 */
import { Elysia } from "elysia";
import type { Database as BunDatabase } from "bun:sqlite";
import type { Kysely } from "kysely";
import { sql, type Executor } from "../src/storage/database";
import { SqliteDatabase } from "../src/storage/sqlite/database";
import { closeDatabase, openDatabase } from "../src/storage/sqlite/open";
import { authorize } from "../src/domain/gateway";
import { centsToNumber } from "../src/domain/money";
import { constantTimeEqual, sha256Hex } from "../src/lib/crypto";
import { parseJson } from "../src/lib/json";
import { ChargeBody } from "../src/domain/schemas/charge";
import { DeclinedBody, ErrorBody, TransactionRecord } from "../src/domain/schemas/records";
import type { Outcome } from "../packages/rules/test-data";
import {
  kyselyWithGroupCommit,
  type ChargeTables,
  type CustomerRow,
  type HookRow,
  type MerchantRow,
  type PaymentMethodRow,
  type TransactionRow,
} from "./data-access-kysely";

/**
 * `sql`: the sql tag; `kysely`: Kysely with a first-come-first-served connection queue (as
 * SqliteDatabase has); `kysely-mutex`: Kysely with its own connection mutex (the in-process run only).
 */
export type Approach = "sql" | "kysely" | "kysely-mutex";
/** The two approaches the load runs compare. */
export const APPROACHES: readonly Approach[] = ["sql", "kysely"];

/** The columns POST /charge writes (the rest are the schema's defaults, read back by RETURNING). */
type NewTransaction = Omit<
  TransactionRow,
  | "parent_id"
  | "is_manual"
  | "is_captured"
  | "is_voided"
  | "total_refunded_cents"
  | "receipt_sms_at"
  | "batch_id"
  | "settled_at"
>;

interface NewDelivery {
  id: string;
  merchant_id: string;
  webhook_id: string;
  event: string;
  record_id: string;
  body: string;
  next_attempt_at_ms: number;
  created_at: string;
  updated_at: string;
}

/** The repository functions /charge calls, each taking the executor of its unit of work first. */
interface Repository<Ex> {
  merchantByKeyHash(ex: Ex, hash: string): Promise<MerchantRow | undefined>;
  paymentMethod(ex: Ex, merchantId: string, id: string): Promise<PaymentMethodRow | undefined>;
  customer(ex: Ex, merchantId: string, id: string): Promise<CustomerRow | undefined>;
  activeHooks(ex: Ex, merchantId: string): Promise<HookRow[]>;
  insertTransaction(ex: Ex, row: NewTransaction): Promise<TransactionRow>;
  insertDelivery(ex: Ex, row: NewDelivery): Promise<void>;
}

// ---------------------------------------------------------------- hand-written SQL (the `sql` tag)

const sqlRepository: Repository<Executor> = {
  merchantByKeyHash: (ex, hash) => ex.get<MerchantRow>(sql`SELECT * FROM merchants WHERE api_key_hash = ${hash}`),
  paymentMethod: (ex, merchantId, id) =>
    ex.get<PaymentMethodRow>(sql`SELECT * FROM payment_methods WHERE id = ${id} AND merchant_id = ${merchantId}`),
  customer: (ex, merchantId, id) =>
    ex.get<CustomerRow>(sql`SELECT * FROM customers WHERE id = ${id} AND merchant_id = ${merchantId}`),
  activeHooks: (ex, merchantId) =>
    ex.all<HookRow>(
      sql`SELECT id, event, created_at FROM webhooks
          WHERE merchant_id = ${merchantId} AND deleted_at IS NULL AND disabled_at IS NULL ORDER BY created_at, id`,
    ),
  insertTransaction: async (ex, r) =>
    (await ex.get<TransactionRow>(
      sql`INSERT INTO transactions (id, merchant_id, invoice_id, customer_id, payment_method_id, method, type, success,
            total_cents, last_four, auth_id, issuer_auth_code, message, decline_code, meta, is_merchant_present,
            reference_id, source, pre_auth, receipt_email_at, created_at, updated_at)
          VALUES (${r.id}, ${r.merchant_id}, ${r.invoice_id}, ${r.customer_id}, ${r.payment_method_id}, ${r.method},
            ${r.type}, ${r.success}, ${r.total_cents}, ${r.last_four}, ${r.auth_id}, ${r.issuer_auth_code}, ${r.message},
            ${r.decline_code}, ${r.meta}, ${r.is_merchant_present}, ${r.reference_id}, ${r.source}, ${r.pre_auth},
            ${r.receipt_email_at}, ${r.created_at}, ${r.updated_at})
          RETURNING *`,
    ))!,
  insertDelivery: async (ex, d) => {
    await ex.run(
      sql`INSERT INTO webhook_deliveries (id, merchant_id, webhook_id, event, record_id, body, next_attempt_at_ms,
            created_at, updated_at)
          VALUES (${d.id}, ${d.merchant_id}, ${d.webhook_id}, ${d.event}, ${d.record_id}, ${d.body},
            ${d.next_attempt_at_ms}, ${d.created_at}, ${d.updated_at})`,
    );
  },
};

// ---------------------------------------------------------------- the query builder (Kysely)

type K = Kysely<ChargeTables>;

const kyselyRepository: Repository<K> = {
  merchantByKeyHash: (ex, hash) =>
    ex.selectFrom("merchants").selectAll().where("api_key_hash", "=", hash).executeTakeFirst(),
  paymentMethod: (ex, merchantId, id) =>
    ex
      .selectFrom("payment_methods")
      .selectAll()
      .where("id", "=", id)
      .where("merchant_id", "=", merchantId)
      .executeTakeFirst(),
  customer: (ex, merchantId, id) =>
    ex
      .selectFrom("customers")
      .selectAll()
      .where("id", "=", id)
      .where("merchant_id", "=", merchantId)
      .executeTakeFirst(),
  activeHooks: (ex, merchantId) =>
    ex
      .selectFrom("webhooks")
      .select(["id", "event", "created_at"])
      .where("merchant_id", "=", merchantId)
      .where("deleted_at", "is", null)
      .where("disabled_at", "is", null)
      .orderBy("created_at")
      .orderBy("id")
      .execute(),
  insertTransaction: (ex, row) =>
    ex.insertInto("transactions").values(row).returningAll().executeTakeFirstOrThrow() as Promise<TransactionRow>,
  insertDelivery: async (ex, row) => {
    await ex.insertInto("webhook_deliveries").values(row).execute();
  },
};

// ---------------------------------------------------------------- storage: connection + unit of work

/** One approach's storage on a bun:sqlite connection (already migrated and configured). */
export interface ChargeStorage {
  readonly approach: Approach;
  merchantByKeyHash(hash: string): Promise<MerchantRow | undefined>;
  /** A unit of work: `work` gets the repository bound to the unit's executor. */
  unit<T>(work: (repo: BoundRepository) => Promise<T>): Promise<T>;
  /** Resolves once everything acknowledged so far is committed (group commit). */
  settled(): Promise<void>;
  /** Group-commit batches committed so far. */
  batches(): number;
}

type BoundRepository = {
  [N in keyof Repository<unknown>]: Repository<unknown>[N] extends (ex: unknown, ...args: infer A) => infer R
    ? (...args: A) => R
    : never;
};

function bind<Ex>(repository: Repository<Ex>, ex: Ex): BoundRepository {
  return {
    merchantByKeyHash: (hash) => repository.merchantByKeyHash(ex, hash),
    paymentMethod: (merchantId, id) => repository.paymentMethod(ex, merchantId, id),
    customer: (merchantId, id) => repository.customer(ex, merchantId, id),
    activeHooks: (merchantId) => repository.activeHooks(ex, merchantId),
    insertTransaction: (row) => repository.insertTransaction(ex, row),
    insertDelivery: (row) => repository.insertDelivery(ex, row),
  };
}

/** The storage of `approach` on `raw`, with the server's group commit. */
export function openStorage(approach: Approach, raw: BunDatabase): ChargeStorage {
  if (approach === "sql") {
    const db = new SqliteDatabase(raw, { groupCommit: true });
    return {
      approach,
      merchantByKeyHash: (hash) => sqlRepository.merchantByKeyHash(db, hash),
      unit: (work) => db.transaction((tx) => work(bind(sqlRepository, tx))),
      settled: () => db.settled(),
      batches: () => db.batches,
    };
  }
  const k = kyselyWithGroupCommit<ChargeTables>(raw, approach === "kysely" ? "fifo" : "kysely");
  return {
    approach,
    merchantByKeyHash: (hash) => kyselyRepository.merchantByKeyHash(k.db, hash),
    unit: (work) => k.db.transaction().execute((trx) => work(bind(kyselyRepository, trx))),
    settled: k.settled,
    batches: k.batches,
  };
}

// ---------------------------------------------------------------- /charge (the same for both)

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function timestamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace("T", " ");
}

function record(row: TransactionRow, pm: PaymentMethodRow, customer: CustomerRow): typeof TransactionRecord.static {
  const settled = row.settled_at !== null;
  const live = row.parent_id === null && row.success === 1 && row.is_voided === 0;
  return {
    id: row.id,
    parent_id: row.parent_id,
    invoice_id: row.invoice_id ?? "",
    customer_id: row.customer_id,
    payment_method_id: row.payment_method_id,
    payment_method: {
      id: pm.id,
      customer: {
        id: customer.id,
        firstname: customer.firstname,
        lastname: customer.lastname,
        company: customer.company,
        email: customer.email,
        phone: customer.phone,
        address_1: customer.address_1,
        address_2: customer.address_2,
        address_city: customer.address_city,
        address_state: customer.address_state,
        address_zip: customer.address_zip,
        address_country: customer.address_country,
        reference: customer.reference,
        notes: customer.notes,
        options: parseJson(customer.options, null),
        cc_emails: parseJson(customer.cc_emails, null),
        cc_sms: parseJson(customer.cc_sms, null),
        allow_invoice_credit_card_payments: customer.allow_invoice_credit_card_payments === 1,
        gravatar: customer.gravatar === 1,
        created_at: customer.created_at,
        updated_at: customer.updated_at,
        deleted_at: customer.deleted_at,
      },
      method: pm.method,
      card_type: pm.card_type,
      card_last_four: pm.card_last_four,
      card_exp: pm.card_exp,
      bank_name: pm.bank_name,
      bank_type: pm.bank_type,
      person_name: pm.person_name,
    },
    method: row.method,
    type: row.type as "charge",
    success: row.success === 1,
    total: centsToNumber(row.total_cents),
    last_four: row.last_four,
    auth_id: row.auth_id,
    issuer_auth_code: row.issuer_auth_code,
    message: row.message,
    decline_code: row.decline_code,
    meta: parseJson(row.meta, {}),
    is_manual: row.is_manual === 1,
    is_merchant_present: row.is_merchant_present === 1,
    receipt_email_at: row.receipt_email_at,
    receipt_sms_at: row.receipt_sms_at,
    reference_id: row.reference_id,
    source: row.source,
    created_at: row.created_at,
    updated_at: row.updated_at,
    pre_auth: row.pre_auth === 1,
    is_captured: row.is_captured === 1,
    total_refunded: centsToNumber(row.total_refunded_cents),
    is_refundable: false,
    is_voidable: live && !settled && row.total_refunded_cents === 0,
    is_voided: row.is_voided === 1,
    batch_id: row.batch_id,
    settled_at: row.settled_at,
    child_transactions: [],
  };
}

/** The Elysia app serving POST /charge (and GET /_stats) on `storage`. */
export function chargeApp(storage: ChargeStorage) {
  const merchants = new Map<string, MerchantRow>();
  const hooks = new Map<string, HookRow[]>();
  let charges = 0;

  const merchantOf = async (authorization: string | undefined): Promise<MerchantRow> => {
    const key = authorization?.startsWith("Bearer ") ? authorization.slice(7) : "";
    const hash = sha256Hex(key);
    let merchant = merchants.get(hash);
    if (!merchant) {
      merchant = await storage.merchantByKeyHash(hash);
      if (merchant) merchants.set(hash, merchant);
    }
    if (!merchant || !constantTimeEqual(merchant.api_key, key)) throw new HttpError(401, "unauthenticated", "Bad key.");
    return merchant;
  };

  const charge = (merchant: MerchantRow, body: ChargeBody) =>
    storage.unit(async (repo) => {
      const pm = await repo.paymentMethod(merchant.id, body.payment_method_id);
      if (!pm || pm.deleted_at) throw new HttpError(404, "not_found", "Payment method not found.");
      const customer = (await repo.customer(merchant.id, pm.customer_id))!;
      const now = new Date();
      if (pm.method === "card" && pm.card_exp) {
        const month = Number(pm.card_exp.slice(0, 2));
        const year = 2000 + Number(pm.card_exp.slice(2));
        if (year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1)) {
          throw new HttpError(422, "invalid_state", "The card on this payment method has expired.");
        }
      }
      const auth = authorize(pm.outcome as Outcome, pm.method);
      const stamp = timestamp(now);
      const row = await repo.insertTransaction({
        id: Bun.randomUUIDv7(),
        merchant_id: merchant.id,
        invoice_id: body.invoice_id ?? null,
        customer_id: pm.customer_id,
        payment_method_id: pm.id,
        method: pm.method,
        type: body.pre_auth ? "pre_auth" : "charge",
        success: auth.success ? 1 : 0,
        total_cents: Math.round(Number(body.total) * 100),
        last_four: (pm.method === "card" ? pm.card_last_four : pm.bank_last_four) ?? "",
        auth_id: auth.authId,
        issuer_auth_code: auth.issuerAuthCode,
        message: auth.message,
        decline_code: auth.declineCode,
        meta: JSON.stringify(body.meta ?? {}),
        is_merchant_present: 1,
        reference_id: auth.authId ?? "",
        source: "api",
        pre_auth: body.pre_auth ? 1 : 0,
        receipt_email_at: null,
        created_at: stamp,
        updated_at: stamp,
      });
      const result = record(row, pm, customer);
      // The outbox: one delivery per active webhook that wants the event (the list is cached).
      let active = hooks.get(merchant.id);
      if (!active) hooks.set(merchant.id, (active = await repo.activeHooks(merchant.id)));
      const wanted = active.filter((hook) => hook.event === "create_transaction" || hook.event === "*");
      if (wanted.length > 0) {
        const json = JSON.stringify(result);
        for (const hook of wanted) {
          await repo.insertDelivery({
            id: crypto.randomUUID(),
            merchant_id: merchant.id,
            webhook_id: hook.id,
            event: "create_transaction",
            record_id: row.id,
            body: json,
            next_attempt_at_ms: now.getTime(),
            created_at: stamp,
            updated_at: stamp,
          });
        }
      }
      return { row, result };
    });

  return new Elysia()
    .error({ HttpError })
    .onError(({ code, error, set }) => {
      if (code === "HttpError") {
        set.status = error.status;
        return { message: error.message, code: error.code };
      }
    })
    .get("/_stats", () => ({ cpu: process.cpuUsage(), charges, batches: storage.batches() }))
    .post(
      "/charge",
      async ({ headers, body, set }) => {
        const merchant = await merchantOf(headers.authorization);
        const { row, result } = await charge(merchant, body);
        // The answer waits for the commit that holds the write (the server's group-commit rule).
        await storage.settled();
        charges++;
        if (row.success === 1) return result;
        set.status = 402;
        return { message: result.message ?? "Declined.", code: "payment_declined" as const, transaction: result };
      },
      { body: ChargeBody, response: { 200: TransactionRecord, 402: DeclinedBody, 401: ErrorBody, 404: ErrorBody } },
    );
}

function argument(flag: string): string | undefined {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

if (import.meta.main) {
  const approach = argument("--approach") as Approach;
  const path = argument("--db");
  if (!["sql", "kysely", "kysely-mutex"].includes(approach) || !path) {
    console.error("usage: bun bench/data-access-server.ts --approach sql|kysely|kysely-mutex --db PATH");
    process.exit(2);
  }
  const raw = openDatabase(path);
  const app = chargeApp(openStorage(approach, raw));
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => app.handle(request) });
  process.stdout.write(`port ${server.port}\n`);
  process.on("SIGTERM", () => {
    void server.stop(true);
    setImmediate(() => {
      closeDatabase(raw);
      process.exit(0);
    });
  });
}
