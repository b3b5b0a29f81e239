/**
 * `--db` from the command line: another database's URL or a malformed PostgreSQL URL stops
 * start-up with one clear line (and no stray file), and a PostgreSQL the sandbox cannot use is
 * named without its password (tests/support/postgres.ts starts a real server).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describePostgres, POSTGRES_TIMEOUT_MS, postgresDatabase, sharedPostgres } from "../support/postgres";
import { FROM_SOURCES, runToExit, startServer } from "../support/process";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-dburl-"));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("--db names a database the sandbox cannot run on", () => {
  test("a mysql:// URL stops start-up with one line naming it, and creates no file", async () => {
    const cwd = tempDir();
    const run = await runToExit([...FROM_SOURCES, "--port", "0", "--db", "mysql://root:hunter2@localhost/shop"], {
      cwd,
    });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toStartWith('paysandbox: --db "mysql://root:***@localhost/shop": mysql: is not a database');
    expect(run.stderr).not.toContain("hunter2");
    expect(run.stdout).not.toContain("API");
    expect(readdirSync(cwd)).toEqual([]);
  });

  test("PAYSANDBOX_DB is checked the same way", async () => {
    const cwd = tempDir();
    const run = await runToExit([...FROM_SOURCES, "--port", "0"], {
      cwd,
      env: { PAYSANDBOX_DB: "postgres://sandbox@db.internal" },
    });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      "paysandbox: --db postgres://sandbox@db.internal: the database name is missing; expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE",
    );
    expect(readdirSync(cwd)).toEqual([]);
  });

  test("--reset with a PostgreSQL URL is refused before anything is touched", async () => {
    const run = await runToExit([
      ...FROM_SOURCES,
      "--port",
      "0",
      "--db",
      "postgres://sandbox@127.0.0.1:1/team",
      "--reset",
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("--reset deletes a SQLite file");
  });
});

describePostgres("--db postgres:// on a real PostgreSQL", () => {
  test(
    "a database that does not exist is one line naming the URL without its password",
    async () => {
      const server = await sharedPostgres();
      const url = `postgres://paysandbox:hunter2@127.0.0.1:${server.port}/no_such_database`;
      const run = await runToExit([...FROM_SOURCES, "--port", "0", "--db", url], { timeoutMs: 60_000 });
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).toStartWith(
        `paysandbox: cannot connect to PostgreSQL at postgres://paysandbox@127.0.0.1:${server.port}/no_such_database: `,
      );
      expect(run.stderr).toContain("no_such_database");
      expect(run.stderr).not.toContain("hunter2");
    },
    POSTGRES_TIMEOUT_MS,
  );

  test(
    "nobody listening is one line naming the URL",
    async () => {
      const run = await runToExit([...FROM_SOURCES, "--port", "0", "--db", "postgresql://sandbox:pw@127.0.0.1:1/team"]);
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).toStartWith(
        "paysandbox: cannot connect to PostgreSQL at postgresql://sandbox@127.0.0.1:1/team: ",
      );
    },
    POSTGRES_TIMEOUT_MS,
  );

  test(
    "the sandbox runs on it: migrated at first start, the URL shown without its password, records kept across a restart",
    async () => {
      const url = await postgresDatabase("cli_start");
      const withPassword = url.replace("paysandbox@", "paysandbox:hunter2@");
      const auth = { authorization: "Bearer sandbox_api_key", "content-type": "application/json" };
      const first = await startServer([...FROM_SOURCES, "--port", "0", "--db", withPassword], { timeoutMs: 60_000 });
      try {
        expect(first.stdout()).toContain(`Database       ${url} (migrated)`);
        expect(first.stdout() + first.stderr()).not.toContain("hunter2");
        const tokenized = await fetch(`${first.url}/webpayment/sandbox_web_payments_token/tokenize`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            method: "card",
            card_number: "4111111111111111",
            card_exp: "1230",
            person_name: "Ada",
          }),
        });
        expect(tokenized.status).toBe(200);
        const pm = (await tokenized.json()) as { id: string };
        const charged = await fetch(`${first.url}/charge`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ payment_method_id: pm.id, total: 10.5 }),
        });
        expect(charged.status).toBe(200);
      } finally {
        expect(await first.stop()).toBe(0);
      }
      // A second process on the same database: nothing left to migrate, the charge is there.
      const run = Bun.spawn([...FROM_SOURCES, "--port", "0", "--ready-json", "--db", withPassword], {
        stdout: "pipe",
        stderr: "pipe",
      });
      try {
        const reader = run.stdout.getReader();
        let text = "";
        while (!text.includes("\n")) {
          const { value, done } = await reader.read();
          if (done) break;
          text += new TextDecoder().decode(value);
        }
        const ready = JSON.parse(text) as { url: string; database: string };
        expect(ready.database).toBe(url);
        const list = await fetch(`${ready.url}/transaction`, { headers: auth });
        expect(((await list.json()) as { total: number; data: { total: number }[] }).data.map((t) => t.total)).toEqual([
          10.5,
        ]);
      } finally {
        run.kill("SIGTERM");
        expect(await run.exited).toBe(0);
      }
    },
    POSTGRES_TIMEOUT_MS,
  );
});
