import type { CardBrand } from "../../../packages/rules/card-rules";
import { sameMerchant } from "./keys";
import type { Outcome } from "../../../packages/rules/test-data";
import type { CheckResult } from "../../../packages/rules/checks";
import type { BinType } from "../../domain/surcharge";
import { getBatched, rowsOfTable, sql, writeBehind, type Executor, type Sql, type WriteBatch } from "../database";
import { insertionOrder } from "./order";
import { findCustomerOfPaymentMethod, type CustomerRow } from "./customers";

export interface PaymentMethodRow {
  id: string;
  merchant_id: string;
  customer_id: string;
  method: "card" | "bank";
  person_name: string;
  card_type: CardBrand | null;
  /** A card's funding as its BIN says (src/domain/surcharge.ts); null for a bank account. */
  bin_type: BinType | null;
  card_last_four: string | null;
  card_exp: string | null;
  bank_name: string | null;
  bank_type: string | null;
  bank_holder_type: string | null;
  bank_last_four: string | null;
  bank_routing: string | null;
  address_zip: string | null;
  address_1: string | null;
  has_cvv: number;
  /** The CVV check's result, decided at tokenize (the CVV is never kept); null before migration 037. */
  cvv_result: CheckResult | null;
  fingerprint: string;
  outcome: Outcome;
  /** A returning test account (packages/rules/test-data.ts): its ACH return code and business days; else null. */
  ach_return_code: string | null;
  ach_return_days: number | null;
  /** A test card its brand updates: when (sandbox time; null once applied, or never) and to what (JSON). */
  card_update_at: string | null;
  card_update: string | null;
  /** A disputed test card: the reason its charges are disputed for, and the days after settlement; else null. */
  dispute_reason: string | null;
  dispute_days: number | null;
  nickname: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export function findPaymentMethod(ex: Executor, merchantId: string, id: string): Promise<PaymentMethodRow | undefined> {
  return ex.get<PaymentMethodRow>(
    sql`SELECT * FROM payment_methods WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}`,
  );
}

/** A payment method as a charge reads it: with whether an outcome sequence is armed for its card. */
export type ChargeablePaymentMethodRow = PaymentMethodRow & {
  /** 1 when POST /_sandbox/outcomes armed this card or account (its fingerprint) and some are pending. */
  outcomes_armed: number;
};

/**
 * `outcomes_armed` of the payment method `pm` (a table or alias): 1 when an outcome sequence is armed
 * for its card or account (any payment method of the merchant with its fingerprint). On PostgreSQL
 * sought from the merchant's outcomes (none, for most merchants) to each one's payment method by its
 * key, in that order whatever the planner's statistics say: as a join, planned while the tables
 * were nearly empty, it read every payment method of every merchant by fingerprint for each charge
 * (tests/storage/postgres-plans.test.ts). SQLite keeps the join (tests/storage/query-plans.test.ts).
 */
function outcomesArmed(ex: Executor, pm: string): Sql {
  return ex.dialect === "postgres"
    ? sql.raw(`CASE WHEN EXISTS (
          SELECT 1 FROM sandbox_outcomes o WHERE o.merchant_id = ${pm}.merchant_id
            AND (SELECT q.fingerprint FROM payment_methods q WHERE q.id = o.payment_method_id) = ${pm}.fingerprint
        ) THEN 1 ELSE 0 END AS outcomes_armed`)
    : sql.raw(`CASE WHEN EXISTS (
          SELECT 1 FROM sandbox_outcomes o JOIN payment_methods q ON q.id = o.payment_method_id
          WHERE o.merchant_id = ${pm}.merchant_id AND q.fingerprint = ${pm}.fingerprint
        ) THEN 1 ELSE 0 END AS outcomes_armed`);
}

/**
 * A charge's one read of its payment method, which also says whether an outcome sequence is armed
 * for its card (any payment method of the merchant with its fingerprint): a charge with nothing
 * armed runs no statement for the sequences (tests/http/hot-path.test.ts).
 */
export function findChargeablePaymentMethod(
  ex: Executor,
  merchantId: string,
  id: string,
): Promise<ChargeablePaymentMethodRow | undefined> {
  return ex.get<ChargeablePaymentMethodRow>(
    sql`SELECT *, ${outcomesArmed(ex, "payment_methods")}
        FROM payment_methods WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}`,
  );
}

/**
 * {@link findChargeablePaymentMethod} with its customer (`findCustomerOfPaymentMethod`). On
 * PostgreSQL one statement, the customer row as a JSON object beside the payment method's columns:
 * a statement fewer saves the server and Bun's client more than the JSON costs (row_to_json: ~8 µs of
 * server CPU less per read than to_jsonb, which builds and sorts a binary object first). On SQLite the two
 * reads, each a primary-key seek (a JOIN measured 2-3× slower in bun:sqlite).
 */
export async function findChargeableWithCustomer(
  ex: Executor,
  merchantId: string,
  id: string,
): Promise<{ pm?: ChargeablePaymentMethodRow; customer?: CustomerRow }> {
  if (ex.dialect !== "postgres") {
    const [pm, customer] = await Promise.all([
      findChargeablePaymentMethod(ex, merchantId, id),
      findCustomerOfPaymentMethod(ex, merchantId, id),
    ]);
    return { pm, customer };
  }
  const row = await getBatched<ChargeablePaymentMethodRow & { _customer: CustomerRow | null }>(
    ex,
    sql`SELECT *, ${outcomesArmed(ex, "payment_methods")},
        (SELECT row_to_json(c) FROM customers c
          WHERE c.id = payment_methods.customer_id
            AND ${sameMerchant(ex, sql.raw("payment_methods.merchant_id"), "c.merchant_id")}) AS _customer
        FROM payment_methods WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}`,
    {
      // Concurrent charges' reads in one statement: the same columns, for every (id, merchant) pair,
      // each sought by its key (LATERAL … LIMIT 1 keeps the planner from joining them by hash to a
      // sequential scan of every payment method, as it did on a nearly empty table).
      key: "findChargeableWithCustomer",
      row: { id, merchant_id: merchantId },
      select: (rows) => sql`SELECT p.*, k._row, ${outcomesArmed(ex, "p")},
        (SELECT row_to_json(c) FROM customers c
          WHERE c.id = p.customer_id AND ${sameMerchant(ex, sql.raw("p.merchant_id"), "c.merchant_id")}) AS _customer
        FROM json_to_recordset(${rows}) AS k(_row int, id text, merchant_id text)
        CROSS JOIN LATERAL (SELECT * FROM payment_methods
          WHERE id = k.id AND ${sameMerchant(ex, sql.raw("k.merchant_id"))} LIMIT 1) AS p`,
    },
  );
  if (!row) return {};
  const { _customer: customer, ...pm } = row;
  return { pm, customer: customer ?? undefined };
}

/** Payment methods by id, in one query. */
export async function paymentMethodsByIds(
  ex: Executor,
  ids: readonly string[],
): Promise<Map<string, PaymentMethodRow>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await ex.all<PaymentMethodRow>(
    sql`SELECT * FROM payment_methods WHERE id IN (${sql.join(unique.map((id) => sql`${id}`))})`,
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** A customer's live payment methods, oldest first. */
export function listCustomerPaymentMethods(
  ex: Executor,
  merchantId: string,
  customerId: string,
): Promise<PaymentMethodRow[]> {
  return ex.all<PaymentMethodRow>(
    sql`SELECT * FROM payment_methods WHERE merchant_id = ${merchantId} AND customer_id = ${customerId}
          AND deleted_at IS NULL
        ORDER BY created_at, ${insertionOrder(ex)}`,
  );
}

/**
 * Stores a payment method and answers the row as stored: the values given and the table's defaults,
 * built here rather than read back, so nothing waits on the INSERT (writeBehind: on PostgreSQL it
 * goes with the unit's next statement or its COMMIT, as one statement with the unit's other
 * independent writes, such as its create_payment_method outbox row).
 */
export async function insertPaymentMethod(
  ex: Executor,
  p: Omit<PaymentMethodRow, "nickname" | "deleted_at">,
): Promise<PaymentMethodRow> {
  await writeBehind(
    ex,
    sql`INSERT INTO payment_methods (id, merchant_id, customer_id, method, person_name, card_type, bin_type, card_last_four,
          card_exp, bank_name, bank_type, bank_holder_type, bank_last_four, bank_routing, address_zip, address_1,
          has_cvv, cvv_result, fingerprint, outcome, ach_return_code, ach_return_days, card_update_at, card_update,
          dispute_reason, dispute_days, created_at, updated_at)
        VALUES (${p.id}, ${p.merchant_id}, ${p.customer_id}, ${p.method}, ${p.person_name}, ${p.card_type}, ${p.bin_type},
          ${p.card_last_four}, ${p.card_exp}, ${p.bank_name}, ${p.bank_type}, ${p.bank_holder_type},
          ${p.bank_last_four}, ${p.bank_routing}, ${p.address_zip}, ${p.address_1}, ${p.has_cvv}, ${p.cvv_result}, ${p.fingerprint},
          ${p.outcome}, ${p.ach_return_code}, ${p.ach_return_days}, ${p.card_update_at}, ${p.card_update},
          ${p.dispute_reason}, ${p.dispute_days}, ${p.created_at}, ${p.updated_at})`,
    { independent: true, batch: paymentMethodBatch(p) },
  );
  // The columns this INSERT leaves to their defaults (both dialects' migrations).
  return { ...p, nickname: "", deleted_at: null };
}

/** The columns {@link insertPaymentMethod} writes; the others take the table's defaults. */
const PAYMENT_METHOD_COLUMNS = sql.raw(`id, merchant_id, customer_id, method, person_name, card_type, bin_type,
  card_last_four, card_exp, bank_name, bank_type, bank_holder_type, bank_last_four, bank_routing, address_zip,
  address_1, has_cvv, cvv_result, fingerprint, outcome, ach_return_code, ach_return_days, card_update_at, card_update,
  dispute_reason, dispute_days, created_at, updated_at`);

/**
 * insertPaymentMethod's row among those of concurrent tokenizes, all written by one INSERT
 * (PostgreSQL's group commit): the rows unnested from one JSON parameter as rows of the table's type.
 */
function paymentMethodBatch(p: Omit<PaymentMethodRow, "nickname" | "deleted_at">): WriteBatch {
  return {
    key: "insertPaymentMethod",
    row: { ...p },
    select: rowsOfTable("payment_methods"),
    insert: (source) =>
      sql`INSERT INTO payment_methods (${PAYMENT_METHOD_COLUMNS}) SELECT ${PAYMENT_METHOD_COLUMNS} FROM ${source}`,
  };
}

export async function softDeletePaymentMethod(ex: Executor, id: string, now: string): Promise<void> {
  await ex.run(sql`UPDATE payment_methods SET deleted_at = ${now}, updated_at = ${now} WHERE id = ${id}`);
}

export interface PaymentMethodFilters {
  customerId?: string;
  method?: "card" | "bank";
}

/** GET /payment-method: the merchant's live payment methods, newest first, one page and the total. */
export async function listPaymentMethods(
  ex: Executor,
  merchantId: string,
  filters: PaymentMethodFilters,
  limit: number,
  offset: number,
): Promise<{ rows: PaymentMethodRow[]; total: number }> {
  const where = [sql`merchant_id = ${merchantId}`, sql`deleted_at IS NULL`];
  if (filters.customerId) where.push(sql`customer_id = ${filters.customerId}`);
  if (filters.method) where.push(sql`method = ${filters.method}`);
  const condition = sql.join(where, " AND ");
  const count = await ex.get<{ n: number | string }>(sql`SELECT COUNT(*) AS n FROM payment_methods WHERE ${condition}`);
  const rows = await ex.all<PaymentMethodRow>(
    sql`SELECT * FROM payment_methods WHERE ${condition}
        ORDER BY created_at DESC, ${insertionOrder(ex)} DESC LIMIT ${limit} OFFSET ${offset}`,
  );
  return { rows, total: Number(count?.n ?? 0) };
}

/** The fields PUT /payment-method/{id} may change (never the number, brand or last four). */
export type PaymentMethodChanges = Pick<
  PaymentMethodRow,
  "person_name" | "nickname" | "card_exp" | "address_zip" | "address_1" | "bank_name" | "bank_type" | "bank_holder_type"
>;

export async function updatePaymentMethod(
  ex: Executor,
  id: string,
  c: PaymentMethodChanges,
  now: string,
): Promise<void> {
  await ex.run(
    sql`UPDATE payment_methods SET person_name = ${c.person_name}, nickname = ${c.nickname}, card_exp = ${c.card_exp},
          address_zip = ${c.address_zip}, address_1 = ${c.address_1}, bank_name = ${c.bank_name},
          bank_type = ${c.bank_type}, bank_holder_type = ${c.bank_holder_type}, updated_at = ${now}
        WHERE id = ${id}`,
  );
}
