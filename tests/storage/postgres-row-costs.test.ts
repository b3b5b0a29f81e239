/**
 * Issue 33's cuts of PostgreSQL's own work per row and per statement keep every answer as it was:
 * the charge's one-statement read of a payment method and its customer (row_to_json).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "../../src/storage/database";
import { openPostgres, type PostgresDatabase } from "../../src/storage/postgres/database";
import { findCustomerOfPaymentMethod } from "../../src/storage/repositories/customers";
import { findChargeableWithCustomer } from "../../src/storage/repositories/payment-methods";
import { describePostgres, migratedPostgresDatabase, POSTGRES_TIMEOUT_MS } from "../support/postgres";

const NOW = "2026-11-27 10:00:00";

describePostgres("PostgreSQL's work per row (issue 33)", () => {
  let db: PostgresDatabase;
  beforeAll(async () => {
    db = await openPostgres(await migratedPostgresDatabase("row-costs"));
    await db.run(sql`INSERT INTO merchants (id, name, web_payments_token, web_payments_token_hash, api_key,
      api_key_hash, webhook_secret, created_at, updated_at)
      VALUES ('m1', 'm1', 't-m1', 'th-m1', 'k-m1', 'kh-m1', 's', ${NOW}, ${NOW})`);
    // Text that JSON must escape, a NULL, numbers and an empty string: what the JSON object carries.
    await db.run(sql`INSERT INTO customers (id, merchant_id, firstname, lastname, company, notes, options,
      allow_invoice_credit_card_payments, match_key, created_at, updated_at)
      VALUES ('c1', 'm1', ${'Zoë "Q" \\ O\'Neil'}, ${"line\nbreak\ttab"}, '', NULL, ${'{"a":[1,2]}'}, 0,
        'k', ${NOW}, ${NOW})`);
    await db.run(sql`INSERT INTO payment_methods (id, merchant_id, customer_id, method, person_name, fingerprint,
      outcome, created_at, updated_at)
      VALUES ('pm1', 'm1', 'c1', 'card', 'Zoë', 'f', 'approve', ${NOW}, ${NOW})`);
  }, POSTGRES_TIMEOUT_MS);
  afterAll(() => db?.close());

  test("the charge's read answers the customer field for field as its own read of the row does", async () => {
    const { pm, customer } = await findChargeableWithCustomer(db, "m1", "pm1");
    expect(pm?.id).toBe("pm1");
    const row = await findCustomerOfPaymentMethod(db, "m1", "pm1");
    expect(row?.firstname).toBe('Zoë "Q" \\ O\'Neil');
    // The row's seq (BIGINT) comes as a string from the driver and as a number in JSON; nothing else differs.
    const seq = (r: object | undefined) => String((r as { seq?: unknown } | undefined)?.seq);
    expect({ ...customer, seq: seq(customer) }).toEqual({ ...row!, seq: seq(row) });
    expect(await findChargeableWithCustomer(db, "m2", "pm1")).toEqual({});
  });
});
