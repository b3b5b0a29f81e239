/**
 * Runs the sandbox as a real process (from sources, or the compiled binary) and reads its banner,
 * for the CLI and binary tests.
 */
import type { Subprocess } from "bun";
import { resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "../..");
/** The command that runs the sandbox from sources. */
export const FROM_SOURCES = [process.execPath, resolve(ROOT, "src/entry/server.ts")];

export interface Exited {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command that exits by itself (--help, a failing start); killed after timeoutMs. */
export async function runToExit(
  command: string[],
  options: { cwd?: string; timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<Exited> {
  const env = { ...cleanEnv(), ...options.env };
  const child = Bun.spawn(command, { cwd: options.cwd ?? ROOT, stdout: "pipe", stderr: "pipe", env });
  const timer = setTimeout(() => child.kill(), options.timeoutMs ?? 15_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** The environment without PAYSANDBOX_* settings of the developer's shell. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("PAYSANDBOX_") && value !== undefined) env[key] = value;
  }
  return env;
}

export interface Running {
  url: string;
  child: Subprocess<"ignore", "pipe", "pipe">;
  /** Everything printed on stdout so far (the banner). */
  stdout(): string;
  /** Everything printed on stderr so far (the request log). */
  stderr(): string;
  /** SIGTERM, then waits for the exit code and the last of its output. */
  stop(): Promise<number>;
}

/** Starts a server and resolves once its banner names the URL it listens on. */
export async function startServer(
  command: string[],
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<Running> {
  const child = Bun.spawn(command, { cwd: options.cwd ?? ROOT, stdout: "pipe", stderr: "pipe", env: cleanEnv() });
  let out = "";
  let err = "";
  const pump = async (stream: ReadableStream<Uint8Array>, add: (text: string) => void) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) add(decoder.decode(chunk, { stream: true }));
  };
  const pumped = Promise.all([
    pump(child.stdout, (text) => (out += text)),
    pump(child.stderr, (text) => (err += text)),
  ]).catch(
    () => undefined, // a broken pipe ends the output early; the exit code still tells
  );
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const url = /API\s+(http:\/\/\S+)/.exec(out)?.[1];
    if (url) {
      return {
        url,
        child,
        stdout: () => out,
        stderr: () => err,
        async stop() {
          child.kill("SIGTERM");
          const code = await child.exited;
          await pumped; // everything it printed, to the last line
          return code;
        },
      };
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`the server did not start (exit ${child.exitCode}):\n${out}\n${err}`);
    }
    await Bun.sleep(25);
  }
}

/** A TCP port nobody listens on right now. */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** A sandbox started with `--ready-json` on a database (a file or a PostgreSQL URL). */
export interface ReadySandbox {
  child: Subprocess<"pipe", "pipe", "pipe">;
  url: string;
  apiKey: string;
  token: string;
}

/**
 * Starts `bun src/entry/server.ts --db DB --ready-json` on a free port and resolves with what its
 * ready line says. stdin stays open; SIGKILL the child to stop it (the multi-process tests do).
 */
export async function startReadySandbox(db: string): Promise<ReadySandbox> {
  const child = Bun.spawn([...FROM_SOURCES, "--port", "0", "--db", db, "--ready-json", "--quiet"], {
    cwd: ROOT,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let out = "";
  const deadline = Date.now() + 60_000;
  while (!out.includes("\n")) {
    if (Date.now() > deadline) throw new Error(`the sandbox did not get ready: ${out}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`the sandbox exited: ${out}${await new Response(child.stderr).text()}`);
    out += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  const ready = JSON.parse(out.slice(0, out.indexOf("\n"))) as {
    url: string;
    api_key: string;
    web_payments_token: string;
  };
  return { child, url: ready.url, apiKey: ready.api_key, token: ready.web_payments_token };
}

/** Reads a child's output line by line (undefined at its end). */
export function readLines(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  return {
    async next(): Promise<string | undefined> {
      for (;;) {
        const newline = buffer.indexOf("\n");
        if (newline >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          return line;
        }
        const { value, done } = await reader.read();
        if (done) return buffer || undefined;
        buffer += decoder.decode(value, { stream: true });
      }
    },
  };
}
