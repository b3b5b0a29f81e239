/** The bench's data: the seeded SQLite file and its PostgreSQL twin. */
import { buildDeps, composeApp } from "../../src/entry/app";
import { openSqlite } from "../../src/storage/sqlite/database";
import { createLogger } from "../../src/lib/logger";
import { sql } from "../../src/storage/database";
import { openPostgres } from "../../src/storage/postgres/database";
import { migratePostgres } from "../../src/storage/postgres/migrate";
import { BIG_KEY, CARD, PM_PREFIX, SMALL_KEY, type Options } from "./options";

/**
 * Builds the benchmark database directly with SQL (not through HTTP): the default merchant with
 * `methods` payment methods cloned from one tokenized test card, and two merchants whose
 * transaction lists hold `rows` and 1,000 transactions (already settled, so the start-up settlement
 * catch-up has nothing to batch).
 */
export async function seed(path: string, options: Options): Promise<void> {
  const storage = await openSqlite(path);
  const db = storage.raw;
  const deps = await buildDeps({ db: storage, config: { quiet: true }, log: createLogger({ quiet: true }) });
  const { merchants, paymentMethods } = deps.services;
  const tokenized = (merchant: Parameters<typeof paymentMethods.tokenize>[1]) =>
    storage.transaction((tx) => paymentMethods.tokenize(tx, merchant, { ...CARD } as never));
  const merchant = await merchants.getDefault();
  const template = await tokenized(merchant);
  const others: { key: string; rows: number; m: Awaited<ReturnType<typeof merchants.create>>; pm: typeof template }[] =
    [];
  for (const [key, rows] of [
    [BIG_KEY, options.rows],
    [SMALL_KEY, 1000],
  ] as const) {
    const m = await merchants.create({ name: `bench ${rows}`, apiKey: key });
    others.push({ key, rows, m, pm: await tokenized(m) });
  }
  const clone = (merchantId: string, prefix: string, count: number, template: string) =>
    db.run(
      `INSERT INTO payment_methods (id, merchant_id, customer_id, method, person_name, card_type, card_last_four,
         card_exp, address_zip, address_1, has_cvv, fingerprint, outcome, created_at, updated_at)
       WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ? - 1)
       SELECT ? || printf('%012d', n), merchant_id, customer_id, method, person_name, card_type, card_last_four,
         card_exp, address_zip, address_1, has_cvv, fingerprint, outcome, created_at, updated_at
       FROM seq, payment_methods p WHERE p.id = ? AND p.merchant_id = ?`,
      [count, prefix, template, merchantId],
    );
  db.transaction(() => {
    clone(merchant.id, PM_PREFIX, options.methods, template.id);
    for (const { key, rows, m, pm } of others) {
      db.run(
        `INSERT INTO transactions (id, merchant_id, customer_id, payment_method_id, method, type, success, total_cents,
           last_four, auth_id, issuer_auth_code, message, meta, reference_id, source, batch_id, settled_at, fee_cents,
           created_at, updated_at)
         WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ? - 1)
         SELECT printf('%08x-0000-4000-8000-%012d', ?, n), ?, ?, ?, 'card', 'charge', 1, 100 + n % 9900, '1111',
           printf('A%09d', n), '123456', 'Approved', '{}', printf('A%09d', n), 'api', 'bench-seeded',
           strftime('%Y-%m-%d %H:%M:%S', 'now', '-' || n || ' seconds'), 0,
           strftime('%Y-%m-%d %H:%M:%S', 'now', '-' || n || ' seconds'),
           strftime('%Y-%m-%d %H:%M:%S', 'now', '-' || n || ' seconds')
         FROM seq`,
        [rows, key === SMALL_KEY ? 0x5a11 : 0xb16, m.id, pm.customer_id, pm.id],
      );
    }
  }).immediate();
  await storage.close();
}

/**
 * The /charge set-up of `seed` on a PostgreSQL database: the default merchant, a template payment
 * method made through the services, and `count` clones of it with the bench's predictable ids.
 */
export async function seedPostgres(url: string, count: number): Promise<void> {
  const storage = await openPostgres(url);
  try {
    await migratePostgres(storage);
    const deps = await buildDeps({ db: storage, config: { quiet: true }, log: createLogger({ quiet: true }) });
    const { merchants, paymentMethods } = deps.services;
    const merchant = await merchants.getDefault();
    const template = await storage.transaction((tx) => paymentMethods.tokenize(tx, merchant, { ...CARD } as never));
    await storage.run(sql`
      INSERT INTO payment_methods (id, merchant_id, customer_id, method, person_name, card_type, card_last_four,
        card_exp, address_zip, address_1, has_cvv, fingerprint, outcome, created_at, updated_at)
      SELECT ${PM_PREFIX} || lpad(n::text, 12, '0'), merchant_id, customer_id, method, person_name, card_type,
        card_last_four, card_exp, address_zip, address_1, has_cvv, fingerprint, outcome, created_at, updated_at
      FROM generate_series(0, ${count} - 1) AS n, payment_methods p WHERE p.id = ${template.id}`);
    for (const worker of deps.workers) await worker.stop();
  } finally {
    await storage.close();
  }
}
