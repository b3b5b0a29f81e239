/**
 * A real PostgreSQL server for tests: Debian's `postgresql` binaries, `initdb` into a fresh
 * temporary directory, `pg_ctl start` listening on 127.0.0.1 only (a free port; its unix socket
 * inside the temporary directory), one database per suite, and everything removed afterwards.
 *
 * One server is shared by every suite of a test process ({@link postgresDatabase}); it starts on
 * first use and is stopped after the last test file ({@link stopSharedPostgres}) or when the
 * process exits. A watchdog process stops it too when the test process is killed, so no server
 * outlives the run.
 *
 * Without the binaries the suites are skipped with a notice ({@link describePostgres}), except
 * under `CI=true`, where a missing PostgreSQL fails the run (`.ci/run` installs it).
 *
 * PostgreSQL refuses to run as root. When the tests run as root the server runs as the `postgres`
 * user (Debian's package creates it) or else `nobody`, and owns the temporary directory.
 *
 * @example
 * describePostgres("payments on PostgreSQL", () => {
 *   let url: string;
 *   beforeAll(async () => (url = await postgresDatabase("payments")));
 * });
 */
import { beforeAll, describe, test } from "bun:test";
import { SQL } from "bun";
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { openPostgres } from "../../src/storage/postgres/database";
import { migratePostgres } from "../../src/storage/postgres/migrate";

/**
 * A bound for a test or hook that starts a server or creates databases: initdb takes ~1 s on an
 * idle machine and many times that on a loaded one (bun test's default is 5 s).
 */
export const POSTGRES_TIMEOUT_MS = 120_000;

/** The superuser initdb creates; every test database belongs to it (trust auth on loopback). */
export const POSTGRES_USER = "paysandbox";
const START_TIMEOUT_S = 60;
const PORT_ATTEMPTS = 5;

export interface PostgresServer {
  readonly host: "127.0.0.1";
  readonly port: number;
  /** The temporary directory holding the data directory, the socket and the server log. */
  readonly dir: string;
  /** postgres://paysandbox@127.0.0.1:PORT/<database> */
  url(database: string): string;
  /**
   * Creates a database (named after label, made unique) and returns its URL: empty, or a copy of
   * `template` (CREATE DATABASE ... TEMPLATE, a file copy: far faster than migrating).
   */
  createDatabase(label?: string, template?: string): Promise<string>;
  /** Drops a database this server created (its connections must be closed). */
  dropDatabase(url: string): Promise<void>;
  /** Stops the server at once (`pg_ctl stop -m immediate`) and removes its directory. */
  stop(): Promise<void>;
}

const hasTools = (dir: string) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"));

/**
 * The directory holding initdb and pg_ctl: PAYSANDBOX_PG_BIN when set (and only it), else PATH,
 * else Debian's newest /usr/lib/postgresql/N/bin.
 */
export function findPostgresBin(): string | undefined {
  const chosen = process.env.PAYSANDBOX_PG_BIN;
  if (chosen) return hasTools(chosen) ? chosen : undefined;
  const onPath = Bun.which("initdb");
  if (onPath) {
    const dir = dirname(realpathSync(onPath));
    if (hasTools(dir)) return dir;
  }
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((name) => /^\d+(\.\d+)?$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const major of majors) {
    const bin = join(root, major, "bin");
    if (hasTools(bin)) return bin;
  }
  return undefined;
}

const MISSING =
  "PostgreSQL is not installed (no initdb/pg_ctl in PAYSANDBOX_PG_BIN, on PATH or in /usr/lib/postgresql/*/bin): " +
  "install Debian's `postgresql` package (`apt-get install postgresql`; .ci/run does it)";

function onCi(): boolean {
  return /^(true|1)$/i.test(process.env.CI ?? "");
}

let noticeShown = false;

/**
 * `describe` for a suite that needs PostgreSQL. Without the binaries: skipped with a notice on
 * stderr, or, under CI=true, one failing test that says what is missing.
 */
export function describePostgres(name: string, body: () => void): void {
  if (findPostgresBin()) {
    describe(name, () => {
      // The shared server starts here, under a bound that fits initdb, not in a test's 5 s.
      beforeAll(() => sharedPostgres().then(() => undefined), POSTGRES_TIMEOUT_MS);
      body();
    });
  } else if (onCi()) {
    describe(name, () => {
      test("PostgreSQL is installed (CI=true requires it)", () => {
        throw new Error(MISSING);
      });
    });
  } else {
    if (!noticeShown) console.warn(`\nNOTICE: ${MISSING}. Skipping the PostgreSQL suites.\n`);
    noticeShown = true;
    describe.skip(name, body);
  }
}

/** The account the server runs as: ourselves, or when we are root the `postgres` user, else `nobody`. */
function serverAccount(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    const uid = Bun.spawnSync(["id", "-u", name], { stderr: "ignore" });
    const gid = Bun.spawnSync(["id", "-g", name], { stderr: "ignore" });
    if (uid.exitCode === 0 && gid.exitCode === 0) {
      return { uid: Number(uid.stdout.toString().trim()), gid: Number(gid.stdout.toString().trim()) };
    }
  }
  throw new Error("running as root, and neither a `postgres` nor a `nobody` user exists to run PostgreSQL as");
}

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** Runs a PostgreSQL tool as the server account; throws with its output when it fails. */
async function runTool(command: string[], account: { uid: number; gid: number } | undefined, cwd: string) {
  const child = Bun.spawn(command, {
    cwd,
    uid: account?.uid,
    gid: account?.gid,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C", LC_ALL: "C" },
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, output: `${stdout}${stderr}`.trim() };
}

/**
 * Starts a new server of its own (most suites want the shared one: {@link postgresDatabase}).
 * Resolves once it accepts connections.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = findPostgresBin();
  if (!bin) throw new Error(MISSING);
  const account = serverAccount();
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-pg-"));
  const data = join(dir, "data");
  const socketDir = join(dir, "sock");
  const log = join(dir, "server.log");
  mkdirSync(socketDir);
  chmodSync(dir, 0o700);
  if (account) {
    chownSync(dir, account.uid, account.gid);
    chownSync(socketDir, account.uid, account.gid);
  }
  const cleanup = () => rmSync(dir, { recursive: true, force: true });

  try {
    const init = await runTool(
      [join(bin, "initdb"), "-D", data, "-U", POSTGRES_USER, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"],
      account,
      dir,
    );
    if (init.code !== 0) throw new Error(`initdb failed (exit ${init.code}):\n${init.output}`);
    // A throwaway server: durability is not what these tests check of PostgreSQL itself (they kill
    // sandbox processes, never the database server), and fsync would make every commit wait on the
    // shared disk.
    appendFileSync(
      join(data, "postgresql.conf"),
      [
        "",
        "# paysandbox test harness",
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${socketDir.replaceAll("'", "''")}'`,
        "fsync = off",
        "synchronous_commit = off",
        "full_page_writes = off",
        "max_connections = 400",
        "shared_buffers = 32MB",
        "",
      ].join("\n"),
    );

    let port = 0;
    let lastError = "";
    for (let attempt = 0; attempt < PORT_ATTEMPTS && port === 0; attempt++) {
      const candidate = await freePort();
      const start = await runTool(
        [
          join(bin, "pg_ctl"),
          "start",
          "-D",
          data,
          "-l",
          log,
          "-w",
          "-t",
          String(START_TIMEOUT_S),
          "-o",
          `-p ${candidate}`,
        ],
        account,
        dir,
      );
      if (start.code === 0) port = candidate;
      else
        lastError = `${start.output}\n${await Bun.file(log)
          .text()
          .catch(() => "")}`;
    }
    if (port === 0) throw new Error(`pg_ctl start failed ${PORT_ATTEMPTS} times:\n${lastError}`);

    const stopCommand = [join(bin, "pg_ctl"), "stop", "-D", data, "-m", "immediate", "-w"];
    const watchdog = startWatchdog(dir, data);
    let admin: SQL | undefined;
    let counter = 0;
    let stopped = false;

    const stopSync = () => {
      if (stopped) return;
      stopped = true;
      Bun.spawnSync(stopCommand, {
        cwd: "/",
        uid: account?.uid,
        gid: account?.gid,
        stdout: "ignore",
        stderr: "ignore",
      });
      cleanup();
      watchdog.kill();
    };
    process.once("exit", stopSync);

    const server: PostgresServer = {
      host: "127.0.0.1",
      port,
      dir,
      url: (database) => `postgres://${POSTGRES_USER}@127.0.0.1:${port}/${encodeURIComponent(database)}`,
      async createDatabase(label = "test", template?: string) {
        const name = `${label
          .toLowerCase()
          .replace(/[^a-z0-9_]+/g, "_")
          .slice(0, 40)}_${++counter}`;
        admin ??= new SQL({ url: server.url("postgres"), database: "postgres", max: 1 });
        const from = template === undefined ? "" : ` TEMPLATE "${template.replaceAll('"', '""')}" STRATEGY FILE_COPY`;
        await admin.unsafe(`CREATE DATABASE "${name}"${from}`);
        return server.url(name);
      },
      async dropDatabase(url) {
        const name = decodeURIComponent(new URL(url).pathname.slice(1));
        admin ??= new SQL({ url: server.url("postgres"), database: "postgres", max: 1 });
        await admin.unsafe(`DROP DATABASE IF EXISTS "${name.replaceAll('"', '""')}" WITH (FORCE)`);
      },
      async stop() {
        process.off("exit", stopSync);
        await admin?.close({ timeout: 0 }).catch(() => {});
        stopSync();
      },
    };
    return server;
  } catch (error) {
    cleanup();
    throw error;
  }
}

/**
 * A detached shell that waits for this process to end however it ends (even SIGKILL), then stops
 * the server with SIGQUIT (PostgreSQL's immediate shutdown) and removes its directory. On a normal
 * exit the exit handler does that and kills the watchdog.
 */
function startWatchdog(dir: string, data: string) {
  const script = [
    "parent=$1; dir=$2; data=$3",
    'while kill -0 "$parent" 2>/dev/null; do sleep 0.2; done',
    'pid=$(head -n 1 "$data/postmaster.pid" 2>/dev/null)',
    'if [ -n "$pid" ]; then kill -QUIT "$pid" 2>/dev/null; i=0; while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; fi',
    'rm -rf "$dir"',
  ].join("\n");
  const child = Bun.spawn(["sh", "-c", script, "pg-watchdog", String(process.pid), dir, data], {
    cwd: "/",
    detached: true,
    stdio: ["ignore", "ignore", "ignore"],
  });
  child.unref();
  return child;
}

let shared: Promise<PostgresServer> | undefined;

/** The server shared by every suite of this test process: started on first use, stopped at exit. */
export function sharedPostgres(): Promise<PostgresServer> {
  shared ??= startPostgres().catch((error) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

/**
 * Stops the shared server if this process started one. The test preload calls it after the last
 * file (bun test does not emit "exit"); the watchdog is the backstop for a killed run.
 */
export async function stopSharedPostgres(): Promise<void> {
  const server = shared;
  shared = undefined;
  if (server) await (await server.catch(() => undefined))?.stop();
}

let migratedTemplate: { server: PostgresServer; name: Promise<string> } | undefined;

/**
 * A fresh database on the shared server holding paysandbox's migrated schema and nothing else:
 * a copy of a template migrated once per server (`CREATE DATABASE ... TEMPLATE`), for the app
 * suites on PostgreSQL (tests/support/app.ts). Returns its URL.
 */
export async function migratedPostgresDatabase(label = "app"): Promise<string> {
  return (await sharedPostgres()).createDatabase(label, await migratedTemplateName());
}

/** The name of the migrated template on the shared server, made on first use. */
function migratedTemplateName(): Promise<string> {
  return sharedPostgres().then((server) => templateOn(server));
}

/**
 * Starts the shared server and migrates its template, for a preload hook with a bound that fits
 * initdb (the first setup() of a file would otherwise pay it inside a test's 5 s).
 */
export async function warmUpMigratedPostgres(): Promise<void> {
  await migratedTemplateName();
}

function templateOn(server: PostgresServer): Promise<string> {
  if (migratedTemplate?.server !== server) {
    const name = (async () => {
      const url = await server.createDatabase("paysandbox_template");
      const db = await openPostgres(url, { max: 1 });
      try {
        await migratePostgres(db);
      } finally {
        await db.close(); // a template may have no open connection while it is copied
      }
      return decodeURIComponent(new URL(url).pathname.slice(1));
    })();
    migratedTemplate = { server, name };
    name.catch(() => (migratedTemplate = undefined));
  }
  return migratedTemplate.name;
}

/** A fresh, empty database on the shared server, for one suite; returns its URL. */
export async function postgresDatabase(label = "test"): Promise<string> {
  return (await sharedPostgres()).createDatabase(label);
}
