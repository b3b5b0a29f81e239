/**
 * Loaded before every test file (bunfig.toml): property tests draw from one fixed seed, so a
 * CI run is reproducible. PAYSANDBOX_FC_SEED picks another; `npm run fuzz` runs long and random.
 */
import fc from "fast-check";

const seed = Number(process.env.PAYSANDBOX_FC_SEED ?? 20261121);
fc.configureGlobal({ seed });
