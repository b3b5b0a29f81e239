/**
 * A real PostgreSQL server for tests: Debian's `postgresql` binaries, `initdb` into a fresh
 * temporary directory, `pg_ctl start` listening on 127.0.0.1 only (a free port; its unix socket
 * inside the temporary directory), one database per suite, and everything removed afterwards.
 *
 * One server is shared by every file of a `bun test` run ({@link sharedPostgres}): the first test
 * process of the run that needs it starts it and migrates the app's template, the others (the
 * other files and `--parallel` workers) find it through a file named after the run's coordinator
 * process. Each file drops the databases it made when it ends ({@link stopSharedPostgres}); a
 * watchdog stops the server and removes its directory when the run's coordinator ends, however it
 * ends (even SIGKILL), so no server outlives the run. A test that needs a server of its own calls
 * {@link startPostgres}.
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
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { randomBytes } from "node:crypto";
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
  /**
   * A server of its own ({@link startPostgres}): stops it at once (`pg_ctl stop -m immediate`) and
   * removes its directory. The run's shared server: drops the databases this handle created.
   */
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
  const started = await initAndStart(process.pid);
  let stopped = false;
  const stopSync = () => {
    if (stopped) return;
    stopped = true;
    started.stopSync();
  };
  process.once("exit", stopSync);
  let counter = 0;
  return serverHandle(
    started.port,
    started.dir,
    (label) => `${label}_${++counter}`,
    async () => {
      process.off("exit", stopSync);
      stopSync();
    },
  );
}

interface StartedServer {
  port: number;
  dir: string;
  /** Stops the server at once and removes its directory. */
  stopSync(): void;
}

/** initdb into a new temporary directory, then pg_ctl start; a watchdog stops it when `watched` ends. */
async function initAndStart(watched: number, also: string[] = []): Promise<StartedServer> {
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
    startWatchdog(watched, dir, data, also);
    return {
      port,
      dir,
      stopSync() {
        Bun.spawnSync(stopCommand, {
          cwd: "/",
          uid: account?.uid,
          gid: account?.gid,
          stdout: "ignore",
          stderr: "ignore",
        });
        cleanup();
      },
    };
  } catch (error) {
    cleanup();
    throw error;
  }
}

/**
 * The handle tests hold on a server: databases are named by `name(label)`; `stop` runs `stopServer`
 * (with the URLs of the databases this handle created), then closes the admin connection.
 */
function serverHandle(
  port: number,
  dir: string,
  name: (label: string) => string,
  stopServer: (handle: PostgresServer, created: ReadonlySet<string>) => Promise<void>,
): PostgresServer {
  const created = new Set<string>();
  let admin: SQL | undefined;
  const adminConnection = () => (admin ??= new SQL({ url: server.url("postgres"), database: "postgres", max: 1 }));
  const server: PostgresServer = {
    host: "127.0.0.1",
    port,
    dir,
    url: (database) => `postgres://${POSTGRES_USER}@127.0.0.1:${port}/${encodeURIComponent(database)}`,
    async createDatabase(label = "test", template?: string) {
      const database = name(
        label
          .toLowerCase()
          .replace(/[^a-z0-9_]+/g, "_")
          .slice(0, 40),
      );
      const from = template === undefined ? "" : ` TEMPLATE "${template.replaceAll('"', '""')}" STRATEGY FILE_COPY`;
      await adminConnection().unsafe(`CREATE DATABASE "${database}"${from}`);
      created.add(server.url(database));
      return server.url(database);
    },
    async dropDatabase(url) {
      const database = decodeURIComponent(new URL(url).pathname.slice(1));
      await adminConnection().unsafe(`DROP DATABASE IF EXISTS "${database.replaceAll('"', '""')}" WITH (FORCE)`);
    },
    async stop() {
      await stopServer(server, created);
      created.clear();
      await admin?.close({ timeout: 0 }).catch(() => {});
      admin = undefined;
    },
  };
  return server;
}

/**
 * A detached shell that waits for the process `watched` to end however it ends (even SIGKILL),
 * then stops the server with SIGQUIT (PostgreSQL's immediate shutdown) and removes its directory
 * and the directories in `also`. A server of a test's own is stopped by its handle before that;
 * the watchdog then finds nothing left to do.
 */
function startWatchdog(watched: number, dir: string, data: string, also: string[] = []) {
  const script = [
    "parent=$1; dir=$2; data=$3; shift 3",
    'while kill -0 "$parent" 2>/dev/null; do sleep 0.2; done',
    'pid=$(head -n 1 "$data/postmaster.pid" 2>/dev/null)',
    'if [ -n "$pid" ]; then kill -QUIT "$pid" 2>/dev/null; i=0; while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; fi',
    'rm -rf "$dir" "$@"',
  ].join("\n");
  // The loop runs in a background subshell, not in the shell Bun starts: `bun test --parallel` ends
  // the processes a test file spawned when that file ends, which would take the watchdog of the
  // run's shared server with it while the server (daemonized by pg_ctl) lived on after the run.
  const child = Bun.spawn(
    ["sh", "-c", `(\n${script}\n) </dev/null >/dev/null 2>&1 &`, "pg-watchdog", String(watched), dir, data, ...also],
    { cwd: "/", detached: true, stdio: ["ignore", "ignore", "ignore"] },
  );
  child.unref();
}

/** Where the run's shared server is published: its port, directory and migrated template. */
interface RunServerInfo {
  port: number;
  dir: string;
  template: string;
}

/**
 * The process a `bun test` run is: the coordinator when this is a `--parallel` worker (each
 * worker runs many files, one module registry each), else this process.
 */
function testRunPid(): number {
  try {
    if (readFileSync("/proc/self/cmdline", "utf8").split("\0").includes("--test-worker")) return process.ppid;
  } catch {
    // no /proc: this process is the run
  }
  return process.pid;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The run's server: started here (and its template migrated) when this is the first process of
 * the run to ask, found through `<tmp>/paysandbox-pg-run-<coordinator pid>/server.json` otherwise.
 */
async function runServer(): Promise<{ server: PostgresServer; template: string }> {
  const run = testRunPid();
  const home = join(tmpdir(), `paysandbox-pg-run-${run}`);
  const infoFile = join(home, "server.json");
  const starterFile = join(home, "starter");
  const deadline = Date.now() + POSTGRES_TIMEOUT_MS;
  // Databases of this handle get a random part: other files of the run name theirs too.
  const name = (label: string) => `${label}_${randomBytes(6).toString("hex")}`;
  const attach = (info: RunServerInfo) => {
    const server = serverHandle(info.port, info.dir, name, async (handle, created) => {
      // The server outlives this file; the databases this file made do not.
      for (const url of created) await handle.dropDatabase(url).catch(() => {});
    });
    return { server, template: info.template };
  };

  for (;;) {
    try {
      mkdirSync(home);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      // Another process of this run starts it, or has.
      const text = existsSync(infoFile) ? readFileSync(infoFile, "utf8") : undefined;
      if (text !== undefined) {
        const info = JSON.parse(text) as RunServerInfo | { failed: string };
        if ("failed" in info) throw new Error(`the run's PostgreSQL server did not start: ${info.failed}`);
        if (existsSync(info.dir)) return attach(info);
      } else {
        const starter = Number(existsSync(starterFile) ? readFileSync(starterFile, "utf8") : NaN);
        if (Number.isInteger(starter) && alive(starter)) {
          if (Date.now() > deadline)
            throw new Error(`the run's PostgreSQL server did not start within ${POSTGRES_TIMEOUT_MS} ms`);
          await Bun.sleep(50);
          continue;
        }
        if (!Number.isInteger(starter) && Date.now() < deadline) {
          await Bun.sleep(50); // just made: its starter file comes next
          continue;
        }
      }
      // Left by an earlier run whose coordinator had this pid: not ours.
      rmSync(home, { recursive: true, force: true });
      continue;
    }
    writeFileSync(starterFile, String(process.pid));
    try {
      const started = await initAndStart(run, [home]);
      const owner = serverHandle(started.port, started.dir, name, async () => {});
      const template = await migratedTemplateOn(owner);
      await owner.stop();
      const info: RunServerInfo = { port: started.port, dir: started.dir, template };
      writeFileSync(`${infoFile}.tmp`, JSON.stringify(info));
      renameSync(`${infoFile}.tmp`, infoFile);
      return attach(info);
    } catch (error) {
      writeFileSync(infoFile, JSON.stringify({ failed: String(error) }));
      throw error;
    }
  }
}

let shared: Promise<{ server: PostgresServer; template: string }> | undefined;

function sharedRunServer() {
  shared ??= runServer().catch((error) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

/** The server shared by every file of this test run: started by the first to ask, stopped when the run ends. */
export async function sharedPostgres(): Promise<PostgresServer> {
  return (await sharedRunServer()).server;
}

/**
 * Drops the databases this file made on the run's server and closes its admin connection. The test
 * preload calls it after each file (bun test emits no "exit" to do it on).
 */
export async function stopSharedPostgres(): Promise<void> {
  const run = shared;
  shared = undefined;
  if (run) await (await run.catch(() => undefined))?.server.stop();
}

/**
 * A fresh database on the shared server holding paysandbox's migrated schema and nothing else:
 * a copy of the template the run migrated once (`CREATE DATABASE ... TEMPLATE`), for the app
 * suites on PostgreSQL (tests/support/app.ts). Returns its URL.
 */
export async function migratedPostgresDatabase(label = "app"): Promise<string> {
  const { server, template } = await sharedRunServer();
  return server.createDatabase(label, template);
}

/**
 * Finds or starts the run's server (which migrates its template), for a preload hook with a bound
 * that fits initdb (the first setup() of a file would otherwise pay it inside a test's 5 s).
 */
export async function warmUpMigratedPostgres(): Promise<void> {
  await sharedRunServer();
}

/** Makes and migrates the app's template database on `server`; returns its name. */
async function migratedTemplateOn(server: PostgresServer): Promise<string> {
  const url = await server.createDatabase("paysandbox_template");
  const db = await openPostgres(url, { max: 1 });
  try {
    await migratePostgres(db);
  } finally {
    await db.close(); // a template may have no open connection while it is copied
  }
  return decodeURIComponent(new URL(url).pathname.slice(1));
}

/** A fresh, empty database on the shared server, for one suite; returns its URL. */
export async function postgresDatabase(label = "test"): Promise<string> {
  return (await sharedPostgres()).createDatabase(label);
}
