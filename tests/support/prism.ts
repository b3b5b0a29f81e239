/**
 * Stoplight Prism (@stoplight/prism-cli, a validator nobody here wrote) as a validating proxy in
 * front of a served sandbox: every request is checked against the sandbox's own OpenAPI document
 * before it is forwarded, and every answer after. With --errors, Prism answers a request the
 * document forbids itself (its own 4xx, a `https://stoplight.io/prism/errors#…` problem) and marks
 * an answer the document does not allow (the sl-violations header, or its own 500).
 */
import type { Subprocess } from "bun";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./process";

const CLI = join(ROOT, "node_modules", "@stoplight", "prism-cli", "dist", "index.js");

export interface PrismProxy {
  url: string;
  /** Everything Prism printed (its log names each violation). */
  output(): string;
  stop(): Promise<void>;
}

/** What one call through the proxy came to. */
export interface Proxied {
  status: number;
  body: any;
  /** Prism refused the request itself: the document forbids it. */
  refusedByPrism: boolean;
  /** What Prism found wrong with the request or the answer (empty: nothing). */
  violations: string[];
}

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** Starts `prism proxy` on loopback for `document` (written to a temporary file) in front of `upstream`. */
export async function startPrismProxy(document: unknown, upstream: string, timeoutMs = 90_000): Promise<PrismProxy> {
  const spec = join(tmpdir(), `paysandbox-openapi-${process.pid}-${Date.now()}.json`);
  writeFileSync(spec, JSON.stringify(document));
  const port = await freePort();
  let printed = "";
  const child: Subprocess<"ignore", "pipe", "pipe"> = Bun.spawn(
    ["node", CLI, "proxy", spec, upstream, "--errors", "--host", "127.0.0.1", "--port", String(port)],
    { cwd: ROOT, stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } },
  );
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) printed += decoder.decode(chunk, { stream: true });
  };
  void drain(child.stdout);
  void drain(child.stderr);
  const deadline = Date.now() + timeoutMs;
  while (!printed.includes("Prism is listening")) {
    if (child.exitCode !== null) throw new Error(`prism exited with ${child.exitCode}:\n${printed}`);
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`prism did not start within ${timeoutMs} ms:\n${printed}`);
    }
    await Bun.sleep(100);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => printed,
    stop: async () => {
      child.kill();
      await child.exited;
    },
  };
}

const PRISM_PROBLEM = "https://stoplight.io/prism/errors#";

/** Reads an answer that came through the proxy. */
export async function readProxied(response: Response): Promise<Proxied> {
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a page or a text answer
  }
  const violations: string[] = [];
  const header = response.headers.get("sl-violations");
  if (header) {
    for (const v of JSON.parse(header) as { location?: string[]; message: string }[]) {
      violations.push(`${(v.location ?? []).join(".")}: ${v.message}`);
    }
  }
  const refusedByPrism = typeof body?.type === "string" && body.type.startsWith(PRISM_PROBLEM);
  if (refusedByPrism) {
    for (const v of (body.validation ?? []) as { location?: string[]; message: string }[]) {
      violations.push(`${(v.location ?? []).join(".")}: ${v.message}`);
    }
    if (!body.validation) violations.push(`${body.title}: ${body.detail}`);
  }
  return { status: response.status, body, refusedByPrism, violations };
}
