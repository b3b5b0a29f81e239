/**
 * The bench's constants, its command line and the shape of one load phase's result (scripts/bench.ts).
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "..", "..");
export const BUN = process.execPath;
export const API_KEY = "sandbox_api_key";
export const TOKEN = "sandbox_web_payments_token";
export const BIG_KEY = "bench_big_api_key";
export const SMALL_KEY = "bench_small_api_key";
/** Seeded payment method ids: this prefix and a 12-digit counter (UUID-shaped). */
export const PM_PREFIX = "0000bec0-0000-4000-8000-";

export const CARD = {
  method: "card",
  card_number: "4111111111111111",
  card_cvv: "123",
  card_exp: "1230",
  person_name: "Bench Mark",
  firstname: "Bench",
  lastname: "Mark",
  email: "bench@example.com",
  phone: "5555550100",
  address_1: "1 Load Street",
  address_city: "Orlando",
  address_state: "FL",
  address_zip: "32822",
};

/** pay()'s extra details without the card fields: the invoice step's body. */
export const { card_number: _n, card_cvv: _c, card_exp: _e, method: _m, ...CUSTOMER } = CARD;

export interface Options {
  duration: number;
  connections: number;
  driver: "wrk" | "autocannon";
  rows: number;
  methods: number;
}

export function parseArgs(argv: string[]): Options {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const quick = argv.includes("--quick");
  const hasWrk = spawnSync("wrk", ["--version"]).error === undefined;
  const driver = (value("--driver") ?? (hasWrk ? "wrk" : "autocannon")) as Options["driver"];
  if (driver === "wrk" && !hasWrk) throw new Error("--driver wrk: wrk is not installed");
  return {
    duration: Number(value("--duration") ?? (quick ? 3 : 8)),
    connections: Number(value("--connections") ?? 50),
    driver,
    rows: Number(value("--rows") ?? (quick ? 200_000 : 1_000_000)),
    methods: 200_000,
  };
}

export interface Load {
  driver: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
}

export type Scenario = "ceiling" | "charge" | "get" | "pay";

/** A load phase with the server's CPU microseconds per request. */
/** A measured phase: the load, the sandbox's CPU per request, and on PostgreSQL the database server's. */
export type Phase = Load & { cpu_us_per_request: number; db_cpu_us_per_request?: number };

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
export const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
