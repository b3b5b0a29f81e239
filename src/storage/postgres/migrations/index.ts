/**
 * The PostgreSQL migrations, in order (run by src/storage/migrate.ts). Imported as text so they are embedded in the compiled binary.
 * Add a file NNN_name.sql (the twin of the SQLite migration of the same number) and one line here;
 * never edit a migration that has shipped. A migration with no SQLite twin (030) says why.
 */
import type { Migration } from "../../migrate";
import m001 from "./001_init.sql" with { type: "text" };
import m019 from "./019_webhook_claims.sql" with { type: "text" };
import m020 from "./020_outbox_order.sql" with { type: "text" };
import m025 from "./025_one_default_merchant.sql" with { type: "text" };
import m026 from "./026_rate_limit_buckets.sql" with { type: "text" };
import m030 from "./030_insertion_order.sql" with { type: "text" };
import m031 from "./031_invoice_transactions.sql" with { type: "text" };
import m032 from "./032_lookup_indexes.sql" with { type: "text" };
import m033 from "./033_email_sender_name.sql" with { type: "text" };
import m034 from "./034_outbox_seq.sql" with { type: "text" };
import m035 from "./035_transaction_count_slots.sql" with { type: "text" };
import m036 from "./036_outbox_numbers.sql" with { type: "text" };
import m037 from "./037_check_results_and_outcomes.sql" with { type: "text" };
import m038 from "./038_snapshots.sql" with { type: "text" };
import m039 from "./039_fixtures.sql" with { type: "text" };
import m040 from "./040_invoice_schedules.sql" with { type: "text" };
import m041 from "./041_catalog_and_payment_links.sql" with { type: "text" };
import m042 from "./042_surcharging.sql" with { type: "text" };
import m043 from "./043_after_the_charge.sql" with { type: "text" };
import m044 from "./044_files_and_disputes.sql" with { type: "text" };
import m045 from "./045_credit_transactions.sql" with { type: "text" };
import m046 from "./046_outside_payments.sql" with { type: "text" };
import m047 from "./047_dispute_lifecycle.sql" with { type: "text" };
import m049 from "./049_webhook_retry.sql" with { type: "text" };
import m050 from "./050_transaction_schedule.sql" with { type: "text" };
import m052 from "./052_counter_triggers_planned_once.sql" with { type: "text" };
import m053 from "./053_fewer_row_work.sql" with { type: "text" };
import m056 from "./056_lighter_pay_writes.sql" with { type: "text" };

export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "001_init", sql: m001 },
  { version: 19, name: "019_webhook_claims", sql: m019 },
  { version: 20, name: "020_outbox_order", sql: m020 },
  { version: 25, name: "025_one_default_merchant", sql: m025 },
  { version: 26, name: "026_rate_limit_buckets", sql: m026 },
  // PostgreSQL only: SQLite's twin is its rowid.
  { version: 30, name: "030_insertion_order", sql: m030 },
  { version: 31, name: "031_invoice_transactions", sql: m031 },
  { version: 32, name: "032_lookup_indexes", sql: m032 },
  { version: 33, name: "033_email_sender_name", sql: m033 },
  { version: 34, name: "034_outbox_seq", sql: m034 },
  // PostgreSQL only: SQLite has one writer, so its one counter row per merchant never waits.
  { version: 35, name: "035_transaction_count_slots", sql: m035 },
  // PostgreSQL only: on SQLite one writer makes MAX(seq) + 1 a new number.
  { version: 36, name: "036_outbox_numbers", sql: m036 },
  { version: 37, name: "037_check_results_and_outcomes", sql: m037 },
  { version: 38, name: "038_snapshots", sql: m038 },
  { version: 39, name: "039_fixtures", sql: m039 },
  { version: 40, name: "040_invoice_schedules", sql: m040 },
  { version: 41, name: "041_catalog_and_payment_links", sql: m041 },
  { version: 42, name: "042_surcharging", sql: m042 },
  { version: 43, name: "043_after_the_charge", sql: m043 },
  { version: 44, name: "044_files_and_disputes", sql: m044 },
  { version: 45, name: "045_credit_transactions", sql: m045 },
  { version: 46, name: "046_outside_payments", sql: m046 },
  { version: 47, name: "047_dispute_lifecycle", sql: m047 },
  { version: 49, name: "049_webhook_retry", sql: m049 },
  { version: 50, name: "050_transaction_schedule", sql: m050 },
  // PostgreSQL only: the counter slots of 035 are.
  { version: 52, name: "052_counter_triggers_planned_once", sql: m052 },
  // Both databases drop two indexes; PostgreSQL only: its counter triggers (035's slots) go per statement.
  { version: 53, name: "053_fewer_row_work", sql: m053 },
  // Both databases drop emails_by_to; PostgreSQL only: 64 counter slots (035's), lz4 for e-mail bodies.
  { version: 56, name: "056_lighter_pay_writes", sql: m056 },
];
