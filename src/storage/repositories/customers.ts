import { getBatched, sql, type Executor } from "../database";
import { sameMerchant } from "./keys";
import { containsText, insertionOrder } from "./order";

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
  match_key: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** The columns a create or an update writes. */
export type CustomerColumns = Omit<CustomerRow, "id" | "merchant_id" | "gravatar" | "created_at" | "deleted_at">;

/** A customer of this merchant (deleted ones included). */
export function findCustomer(ex: Executor, merchantId: string, id: string): Promise<CustomerRow | undefined> {
  return ex.get<CustomerRow>(sql`SELECT * FROM customers WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}`);
}

/**
 * The customer of a payment method, found through it: a read that needs nothing from the payment
 * method's own read, so both go to the server together (one round trip on PostgreSQL).
 */
export function findCustomerOfPaymentMethod(
  ex: Executor,
  merchantId: string,
  paymentMethodId: string,
): Promise<CustomerRow | undefined> {
  return ex.get<CustomerRow>(
    sql`SELECT * FROM customers WHERE id = (
          SELECT customer_id FROM payment_methods WHERE id = ${paymentMethodId} AND ${sameMerchant(ex, merchantId)}
        ) AND ${sameMerchant(ex, merchantId)}`,
  );
}

/** Customers by id, in one query (of any merchant: callers pass ids read from the merchant's own rows). */
export async function customersByIds(ex: Executor, ids: readonly string[]): Promise<Map<string, CustomerRow>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await ex.all<CustomerRow>(
    sql`SELECT * FROM customers WHERE id IN (${sql.join(unique.map((id) => sql`${id}`))})`,
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * The oldest live customer with this match key (tokenize's matching rule); on PostgreSQL, outside a
 * transaction, read together with concurrent tokenizes' (getBatched).
 */
export function findCustomerByMatchKey(
  ex: Executor,
  merchantId: string,
  matchKey: string,
): Promise<CustomerRow | undefined> {
  return getBatched<CustomerRow>(
    ex,
    sql`SELECT * FROM customers WHERE merchant_id = ${merchantId} AND match_key = ${matchKey} AND deleted_at IS NULL
        ORDER BY created_at LIMIT 1`,
    {
      key: "findCustomerByMatchKey",
      row: { merchant_id: merchantId, match_key: matchKey },
      select: (
        rows,
      ) => sql`SELECT c.*, k._row FROM json_to_recordset(${rows}) AS k(_row int, merchant_id text, match_key text)
        CROSS JOIN LATERAL (SELECT * FROM customers WHERE merchant_id = k.merchant_id AND match_key = k.match_key
          AND deleted_at IS NULL ORDER BY created_at LIMIT 1) c`,
    },
  );
}

/** A page of live customers, newest first, with the total; `keywords` searches names, e-mail, company and phone. */
export async function listCustomers(
  ex: Executor,
  merchantId: string,
  page: { limit: number; offset: number },
  keywords?: string,
): Promise<{ rows: CustomerRow[]; total: number }> {
  const where = keywords
    ? sql`merchant_id = ${merchantId} AND deleted_at IS NULL
          AND ${containsText(ex, sql`(firstname || ' ' || lastname || ' ' || email || ' ' || company || ' ' || phone)`, keywords)}`
    : sql`merchant_id = ${merchantId} AND deleted_at IS NULL`;
  const total = (await ex.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM customers WHERE ${where}`))!.n;
  const rows = await ex.all<CustomerRow>(
    sql`SELECT * FROM customers WHERE ${where}
        ORDER BY created_at DESC, ${insertionOrder(ex)} DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
  );
  return { rows, total };
}

export async function insertCustomer(
  ex: Executor,
  c: CustomerColumns & { id: string; merchant_id: string; created_at: string },
): Promise<void> {
  await ex.run(
    sql`INSERT INTO customers (id, merchant_id, firstname, lastname, company, email, phone, address_1, address_2,
          address_city, address_state, address_zip, address_country, reference, notes, options, cc_emails, cc_sms,
          allow_invoice_credit_card_payments, match_key, created_at, updated_at)
        VALUES (${c.id}, ${c.merchant_id}, ${c.firstname}, ${c.lastname}, ${c.company}, ${c.email}, ${c.phone},
          ${c.address_1}, ${c.address_2}, ${c.address_city}, ${c.address_state}, ${c.address_zip}, ${c.address_country},
          ${c.reference}, ${c.notes}, ${c.options}, ${c.cc_emails}, ${c.cc_sms}, ${c.allow_invoice_credit_card_payments},
          ${c.match_key}, ${c.created_at}, ${c.updated_at})`,
  );
}

export async function updateCustomer(ex: Executor, id: string, c: CustomerColumns): Promise<void> {
  await ex.run(
    sql`UPDATE customers SET firstname = ${c.firstname}, lastname = ${c.lastname}, company = ${c.company},
          email = ${c.email}, phone = ${c.phone}, address_1 = ${c.address_1}, address_2 = ${c.address_2},
          address_city = ${c.address_city}, address_state = ${c.address_state}, address_zip = ${c.address_zip},
          address_country = ${c.address_country}, reference = ${c.reference}, notes = ${c.notes},
          options = ${c.options}, cc_emails = ${c.cc_emails}, cc_sms = ${c.cc_sms},
          allow_invoice_credit_card_payments = ${c.allow_invoice_credit_card_payments}, match_key = ${c.match_key},
          updated_at = ${c.updated_at}
        WHERE id = ${id}`,
  );
}

export async function softDeleteCustomer(ex: Executor, id: string, now: string): Promise<void> {
  await ex.run(sql`UPDATE customers SET deleted_at = ${now}, updated_at = ${now} WHERE id = ${id}`);
}
