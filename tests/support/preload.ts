/**
 * Loaded before every test file (bunfig.toml): property tests draw from one fixed seed, so a
 * CI run is reproducible. PAYSANDBOX_FC_SEED picks another; `npm run fuzz` runs long and random.
 */
import { afterAll } from "bun:test";
import fc from "fast-check";
import { stopSharedPostgres } from "./postgres";

const seed = Number(process.env.PAYSANDBOX_FC_SEED ?? 20261121);
fc.configureGlobal({ seed });

// The PostgreSQL server a test process may have started (tests/support/postgres.ts) stops after
// the last test file: bun test emits no "exit" event to stop it on.
afterAll(stopSharedPostgres);
