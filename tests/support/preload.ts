/**
 * Loaded before every test file (bunfig.toml): property tests draw from one fixed seed, so a
 * CI run is reproducible. PAYSANDBOX_FC_SEED picks another; `npm run fuzz` runs long and random.
 */
import { afterAll, beforeAll } from "bun:test";
import fc from "fast-check";
import { onPostgres } from "./database";
import { POSTGRES_TIMEOUT_MS, stopSharedPostgres, warmUpMigratedPostgres } from "./postgres";

const seed = Number(process.env.PAYSANDBOX_FC_SEED ?? 20261121);
fc.configureGlobal({ seed });

// The PostgreSQL server a test process may have started (tests/support/postgres.ts) stops after
// the last test file: bun test emits no "exit" event to stop it on. It drops every database the
// process made (one per setup() on PostgreSQL): seconds on a loaded machine, past bun's 5 s bound.
afterAll(stopSharedPostgres, POSTGRES_TIMEOUT_MS);

// With PAYSANDBOX_TEST_DB=postgres every setup() copies a migrated template on the shared server:
// start both before the first test, under a bound that fits initdb on a loaded machine.
if (onPostgres) beforeAll(warmUpMigratedPostgres, POSTGRES_TIMEOUT_MS);
