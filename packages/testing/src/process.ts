/**
 * Runs the sandbox as a child process through the package's own Bun and waits for its
 * `--ready-json` line: the way the toolkit starts it under Node and under Bun alike.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { SERVER_MANIFEST_FILE, serverFiles } from "./server-bundle";

// `require` is the module's own in the CommonJS build and under Bun; the ESM build makes one.
// Both resolve relative to this file, wherever the package is installed.
const localRequire: NodeJS.Require = typeof require === "function" ? require : createRequire(import.meta.url);

/** The package's root folder (packages/testing/src or packages/testing/dist are three levels below it). */
export function packageRoot(): string {
  return dirname(localRequire.resolve("../../../package.json"));
}

/** The folder of the prebuilt server beside this toolkit (testing/dist/server), if it was built. */
function serverBundleDir(): string | undefined {
  try {
    return dirname(localRequire.resolve(`../dist/server/${SERVER_MANIFEST_FILE}`));
  } catch {
    return undefined;
  }
}

/** The bun package's placeholder binary is a few hundred bytes; the real one is tens of MB. */
const isRealBinary = (path: string) => {
  try {
    const stat = statSync(path);
    return stat.isFile() && stat.size > 1_000_000;
  } catch {
    return false;
  }
};

/**
 * The Bun this package depends on (node_modules/bun), never one on the PATH: the binary its
 * postinstall put in place, or the platform package it ships in when install scripts did not run.
 */
export function bunBinary(): string {
  const tried: string[] = [];
  let bunDir: string | undefined;
  try {
    bunDir = dirname(localRequire.resolve("bun/package.json"));
  } catch {
    tried.push("the bun package (not installed)");
  }
  if (bunDir) {
    const installed = join(bunDir, "bin", "bun.exe");
    if (isRealBinary(installed)) return installed;
    tried.push(`${installed} (a placeholder: bun's install script did not run)`);
    const fromBun = createRequire(join(bunDir, "package.json"));
    const arch = process.arch === "arm64" ? "aarch64" : process.arch;
    const platform = process.platform === "win32" ? "windows" : process.platform;
    for (const suffix of ["", "-baseline", "-musl", "-musl-baseline"]) {
      const name = `@oven/bun-${platform}-${arch}${suffix}`;
      try {
        const dir = dirname(fromBun.resolve(`${name}/package.json`));
        const binary = join(dir, "bin", platform === "windows" ? "bun.exe" : "bun");
        if (isRealBinary(binary)) return binary;
        tried.push(binary);
      } catch {
        // Not installed for this platform variant.
      }
    }
  }
  // Already running under Bun: that Bun runs the sandbox as well as any.
  if (process.versions.bun) return process.execPath;
  throw new Error(
    `paysandbox: cannot find the Bun it runs on. Tried: ${tried.join("; ")}. Reinstall paysandbox without --ignore-scripts (npm install) so its bun dependency is in place.`,
  );
}

export interface ChildSandbox {
  url: string;
  apiKey: string;
  webPaymentsToken: string;
  pid: number;
  /** The end of what the sandbox wrote on stderr. */
  stderrTail(): string;
  /** SIGTERM, then SIGKILL after 5 s; removes the temporary database. */
  stop(): Promise<void>;
  /** The same, synchronously and without waiting: for process "exit". */
  kill(): void;
}

const STDERR_KEEP = 16_384;

interface ReadyLine {
  paysandbox: "ready";
  url: string;
  api_key: string;
  web_payments_token: string;
  pid: number;
}

/** The environment without PAYSANDBOX_* settings: a developer's shell must not change what tests start. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("PAYSANDBOX_")) env[key] = value;
  return env;
}

export async function spawnSandbox(options: {
  args: readonly string[];
  startTimeoutMs: number;
  log: boolean;
  /** Run src/entry/server.ts on a new database even when the bundle is fresh (the bench's comparison). */
  fromSources?: boolean;
}): Promise<ChildSandbox> {
  const bun = bunBinary();
  // The prebuilt bundle when it matches the sources, else the sources themselves.
  const { script: server, template } = serverFiles(
    packageRoot(),
    options.fromSources ? undefined : serverBundleDir(),
    options.args,
  );
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-test-"));
  // Already migrated: the sandbox finds nothing to apply and only adds its default merchant.
  if (template) copyFileSync(template, join(dir, "sandbox.sqlite"));
  const args = [
    server,
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--db",
    join(dir, "sandbox.sqlite"),
    "--ready-json",
    "--stop-with-stdin",
    // A temporary sandbox serves one test run that may make a merchant per test; the default cap
    // (1,000) guards a long-lived sandbox, not this one. Idle merchants cost the clock job nothing.
    "--max-merchants",
    "100000",
    ...(options.log ? [] : ["--quiet"]),
    ...options.args,
  ];
  let child: ChildProcess;
  try {
    child = spawn(bun, args, { cwd: dir, env: childEnv(), stdio: ["pipe", "pipe", "pipe"] });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`paysandbox: cannot run ${bun}: ${(error as Error).message}`);
  }
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8");
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (text: string) => {
    stderr = (stderr + text).slice(-STDERR_KEEP);
    if (options.log) process.stderr.write(text);
  });
  child.stdin!.on("error", () => {}); // EPIPE when the sandbox is gone; its exit is reported elsewhere
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  let cleaned = false;
  const cleanUp = () => {
    if (cleaned) return;
    cleaned = true;
    rmSync(dir, { recursive: true, force: true });
  };

  const ready = await new Promise<ReadyLine>((resolve, reject) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      cleanUp();
      const log = stderr.trim() ? `\n--- sandbox stderr ---\n${stderr.trim()}` : " (nothing on stderr)";
      const out = stdout.trim() ? `\n--- sandbox stdout ---\n${stdout.trim().slice(-2000)}` : "";
      reject(new Error(`paysandbox: the sandbox (${bun} ${args.join(" ")}) ${reason}${log}${out}`));
    };
    const timer = setTimeout(
      () => fail(`did not report ready within ${options.startTimeoutMs} ms`),
      options.startTimeoutMs,
    );
    const onError = (error: Error) => fail(`could not be started: ${error.message}`);
    const onExit = (code: number | null, signal: string | null) =>
      fail(`exited (${signal ?? `code ${code}`}) before it was ready`);
    const onData = (text: string) => {
      stdout = (stdout + text).slice(-STDERR_KEEP);
      for (const line of stdout.split("\n")) {
        if (!line.startsWith('{"paysandbox":"ready"')) continue;
        let parsed: ReadyLine;
        try {
          parsed = JSON.parse(line) as ReadyLine;
        } catch {
          continue; // a partial line: the rest is on its way
        }
        clearTimeout(timer);
        child.off("error", onError).off("exit", onExit);
        child.stdout!.off("data", onData);
        resolve(parsed);
        return;
      }
    };
    child.once("error", onError).once("exit", onExit);
    child.stdout!.on("data", onData);
  });
  child.stdout!.resume(); // keep draining: a full pipe would stall the sandbox
  // Started and ready: from now on it must not keep the test process alive by itself.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as { unref?: () => void } | null)?.unref?.();

  let stopping: Promise<void> | null = null;
  return {
    url: ready.url,
    apiKey: ready.api_key,
    webPaymentsToken: ready.web_payments_token,
    pid: child.pid!,
    stderrTail: () => stderr,
    stop() {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.ref();
          child.kill("SIGTERM");
          const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
          await exited;
          clearTimeout(timer);
        }
        cleanUp();
      })();
      return stopping;
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      cleanUp();
    },
  };
}
