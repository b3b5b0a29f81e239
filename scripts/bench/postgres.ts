/**
 * The PostgreSQL phases (a shared sandbox): /charge and pay() on one process, then /charge on two
 * over the same database, each with the database server's CPU beside the sandbox's; and the SQL
 * statements and round trips each request sends (tests/support/statements.ts).
 */
import { join } from "node:path";
import { findPostgresBin, startPostgres } from "../../tests/support/postgres";
import { countedPostgres, countPerRequest, type RequestCounts } from "../../tests/support/statements";
import { openPostgres } from "../../src/storage/postgres/database";
import { migratePostgres } from "../../src/storage/postgres/migrate";
import { drive, sideBySide, withCpu } from "./load";
import { API_KEY, BUN, round, type Options, type Phase } from "./options";
import { serverCpuMicros, startServer, stopChild } from "./processes";
import { seedPostgres } from "./seed";

export interface PostgresPhases {
  pgOne: Phase | null;
  pgTwo: Phase | null;
  pgPay: Phase | null;
  pgStatements: RequestCounts | null;
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
  let pgStatements: RequestCounts | null = null;
  if (findPostgresBin()) {
    log("PostgreSQL: starting a server and seeding…");
    const pg = await startPostgres();
    const dbCpu = () => serverCpuMicros(join(pg.dir, "data"));
    try {
      const counted = await pg.createDatabase("statements");
      const migrating = await openPostgres(counted);
      await migratePostgres(migrating);
      await migrating.close();
      pgStatements = await countPerRequest(await countedPostgres(counted));

      const url = await pg.createDatabase("bench");
      await seedPostgres(url, options.methods);
      const one = await startServer(BUN, serverArgs(url));
      log("POST /charge on PostgreSQL, one process…");
      await drive(options, "charge", one.url, "/charge", { apiKey: API_KEY }, warm);
      pgOne = await withCpu(
        one.child.pid!,
        () => drive(options, "charge", one.url, "/charge", { apiKey: API_KEY }),
        dbCpu,
      );
      if (hasPay) {
        log("pay() path on PostgreSQL, one process…");
        pgPay = await withCpu(one.child.pid!, () => drive(options, "pay", one.url, "/", payLoad), dbCpu);
      }
      const two = await startServer(BUN, serverArgs(url));
      log("POST /charge on PostgreSQL, two processes (half the connections each)…");
      const half = { ...options, connections: Math.max(1, Math.floor(options.connections / 2)) };
      const dbBefore = dbCpu();
      const both = await Promise.all(
        [one, two].map((p) =>
          withCpu(p.child.pid!, () => drive(half, "charge", p.url, "/charge", { apiKey: API_KEY })),
        ),
      );
      const dbUsed = dbCpu() - dbBefore;
      pgTwo = sideBySide(both[0]!, both[1]!);
      pgTwo.db_cpu_us_per_request = round(dbUsed / Math.max(1, pgTwo.requests), 0);
      await Promise.all([stopChild(one.child), stopChild(two.child)]);
    } finally {
      await pg.stop();
    }
  } else log("PostgreSQL phases skipped: no initdb/pg_ctl (apt-get install postgresql)");
  return { pgOne, pgTwo, pgPay, pgStatements };
}
