import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/entry/cli";
import { databaseTarget } from "../../src/lib/config";

/** The ConfigError message loadConfig gives for these flags and environment. */
function refusal(argv: string[], env: Record<string, string> = {}): string {
  try {
    loadConfig(argv, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`expected ${argv.join(" ")} to be refused`);
}

describe("--db: SQLite file, :memory: or a PostgreSQL URL", () => {
  test("paths and :memory: stay SQLite", () => {
    expect(databaseTarget(":memory:")).toEqual({ kind: "sqlite", path: ":memory:" });
    expect(databaseTarget("./data/sandbox.sqlite")).toEqual({ kind: "sqlite", path: "./data/sandbox.sqlite" });
    expect(databaseTarget("/var/lib/paysandbox/db.sqlite")).toEqual({
      kind: "sqlite",
      path: "/var/lib/paysandbox/db.sqlite",
    });
    expect(databaseTarget("./odd:name.sqlite")).toEqual({ kind: "sqlite", path: "./odd:name.sqlite" });
    expect(loadConfig([], {}).dbPath).toBe("./.paysandbox/sandbox.sqlite");
  });

  test("postgres:// and postgresql:// URLs are PostgreSQL, shown without their password", () => {
    expect(databaseTarget("postgres://sandbox@db.internal:5432/paysandbox")).toEqual({
      kind: "postgres",
      url: "postgres://sandbox@db.internal:5432/paysandbox",
      display: "postgres://sandbox@db.internal:5432/paysandbox",
    });
    const withPassword = databaseTarget("postgresql://sandbox:s3cret@127.0.0.1/team?sslmode=require");
    expect(withPassword).toEqual({
      kind: "postgres",
      url: "postgresql://sandbox:s3cret@127.0.0.1/team?sslmode=require",
      display: "postgresql://sandbox@127.0.0.1/team?sslmode=require",
    });
  });

  test("PAYSANDBOX_DB names the database too, and --db wins over it", () => {
    const url = "postgres://sandbox@127.0.0.1:5432/team";
    expect(loadConfig([], { PAYSANDBOX_DB: url }).dbPath).toBe(url);
    expect(loadConfig(["--db", ":memory:"], { PAYSANDBOX_DB: url }).dbPath).toBe(":memory:");
    expect(refusal([], { PAYSANDBOX_DB: "mysql://root@localhost/db" })).toContain('"mysql://root@localhost/db"');
  });

  test("another database's URL is refused by name, never taken as a file called mysql:", () => {
    const message = refusal(["--db", "mysql://root:hunter2@localhost:3306/shop"]);
    expect(message).toBe(
      '--db "mysql://root:***@localhost:3306/shop": mysql: is not a database paysandbox runs on; --db takes a SQLite file, ":memory:" or postgres://USER@HOST:PORT/DATABASE. For a file whose name has a colon, write it as a path (./NAME).',
    );
    expect(message).not.toContain("hunter2");
    expect(refusal(["--db", "sqlite://sandbox.sqlite"])).toContain("For SQLite give the file's path itself");
    expect(refusal(["--db", "file:sandbox.sqlite"])).toContain("file: is not a database paysandbox runs on");
    expect(refusal(["--db", "mysql:"])).toContain("mysql: is not a database paysandbox runs on");
  });

  test("a malformed PostgreSQL URL is refused with what is wrong, and never its password", () => {
    expect(refusal(["--db", "postgres://sandbox@db.internal"])).toBe(
      "--db postgres://sandbox@db.internal: the database name is missing; expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE",
    );
    expect(refusal(["--db", "postgres:paysandbox"])).toContain("the host is missing");
    expect(refusal(["--db", "postgres:///paysandbox"])).toContain("the host is missing");
    const badPort = refusal(["--db", "postgres://sandbox:pw@db:99999/team"]);
    expect(badPort).toBe(
      '--db "postgres://sandbox:***@db:99999/team" is not a valid URL; expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE',
    );
    expect(refusal(["--db", "postgres://sandbox:pw@db/team?sslmode=sometimes"])).toBe(
      '--db postgres://sandbox@db/team?sslmode=sometimes: sslmode must be one of disable, prefer, require, verify-ca, verify-full, got "sometimes"; expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE',
    );
    expect(refusal(["--db", "postgres://db/team?pool=5"])).toContain("unknown parameter pool (supported: sslmode)");
    expect(refusal(["--db", "postgres://db/a/b"])).toContain('"a/b" is not a database name');
    expect(refusal(["--db", ""])).toContain("--db needs a SQLite file");
  });

  test("--reset is refused on PostgreSQL: it deletes a SQLite file, never a shared database", () => {
    const message = refusal(["--db", "postgres://sandbox:pw@db/team", "--reset"]);
    expect(message).toContain("--reset deletes a SQLite file");
    expect(message).toContain("postgres://sandbox@db/team");
    expect(message).toContain("drop and re-create it");
    expect(message).not.toContain(":pw@");
    expect(refusal(["--reset"], { PAYSANDBOX_DB: "postgresql://db/team" })).toContain("--reset deletes a SQLite file");
    expect(loadConfig(["--db", "./x.sqlite", "--reset"], {}).reset).toBe(true);
  });
});
