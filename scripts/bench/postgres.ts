/** The PostgreSQL phases (a shared sandbox): /charge on one process, then on two over the same database. */
import { findPostgresBin, startPostgres } from "../../tests/support/postgres";
import { drive, sideBySide, withCpu } from "./load";
import { API_KEY, BUN, type Options, type Phase } from "./options";
import { startServer, stopChild } from "./processes";
import { seedPostgres } from "./seed";

export interface PostgresPhases {
  pgOne: Phase | null;
  pgTwo: Phase | null;
  pgPay: Phase | null;
}

export async function postgresPhases(
  options: Options,
  context: {
    hasPay: boolean;
    payLoad: Record<string, unknown>;
    warm: number;
    serverArgs: (db: string) => string[];
    log: (line: string) => void;
  },
): Promise<PostgresPhases> {
  const { hasPay, payLoad, warm, serverArgs, log } = context;
  let pgOne: Phase | null = null;
  let pgTwo: Phase | null = null;
  let pgPay: Phase | null = null;
  if (findPostgresBin()) {
    log("PostgreSQL: starting a server and seeding…");
    const pg = await startPostgres();
    try {
      const url = await pg.createDatabase("bench");
      await seedPostgres(url, options.methods);
      const one = await startServer(BUN, serverArgs(url));
      log("POST /charge on PostgreSQL, one process…");
      await drive(options, "charge", one.url, "/charge", { apiKey: API_KEY }, warm);
      pgOne = await withCpu(one.child.pid!, () => drive(options, "charge", one.url, "/charge", { apiKey: API_KEY }));
      if (hasPay) {
        log("pay() path on PostgreSQL, one process…");
        pgPay = await withCpu(one.child.pid!, () => drive(options, "pay", one.url, "/", payLoad));
      }
      const two = await startServer(BUN, serverArgs(url));
      log("POST /charge on PostgreSQL, two processes (half the connections each)…");
      const half = { ...options, connections: Math.max(1, Math.floor(options.connections / 2)) };
      const both = await Promise.all(
        [one, two].map((p) =>
          withCpu(p.child.pid!, () => drive(half, "charge", p.url, "/charge", { apiKey: API_KEY })),
        ),
      );
      pgTwo = sideBySide(both[0]!, both[1]!);
      await Promise.all([stopChild(one.child), stopChild(two.child)]);
    } finally {
      await pg.stop();
    }
  } else log("PostgreSQL phases skipped: no initdb/pg_ctl (apt-get install postgresql)");
  return { pgOne, pgTwo, pgPay };
}
