/**
 * Runs documented shell blocks exactly as printed, against a sandbox on the port the docs name
 * (http://localhost:7290, the default keys). Each run gets a network namespace of its own
 * (`unshare --net`, with only its loopback interface up), so the blocks' port 7290 is free
 * whatever else this machine runs, and nothing they start can reach beyond loopback (an npm
 * install in one runs from npm's cache or fails).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./blocks";

export interface BlockRun {
  code: number;
  output: string;
}

export interface NamespaceRun {
  /** One entry per script given, in order. */
  runs: BlockRun[];
  /** Everything the namespace printed, for failure messages. */
  log: string;
}

const BUN = process.execPath;

/**
 * Runs each script with bash, one after another, in `cwd` inside a fresh network namespace.
 * `sandbox: true` first starts `bun src/entry/server.ts --port 7290 --db :memory:` there (what
 * `npm start` serves, on a database of its own) and waits until it answers. Bounded by `timeoutMs`;
 * the sandbox is itself bounded by `timeout`, so nothing outlives the run.
 */
export async function runInNamespace(
  scripts: string[],
  options: { cwd?: string; sandbox?: boolean; timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<NamespaceRun> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-doc-shell-"));
  const seconds = Math.ceil(timeoutMs / 1000);
  const lines = ["ip link set lo up"];
  if (options.sandbox) {
    lines.push(
      `timeout ${seconds} ${JSON.stringify(BUN)} ${JSON.stringify(join(ROOT, "src/entry/server.ts"))} --port 7290 --db :memory: --quiet >"${dir}/sandbox.log" 2>&1 &`,
      "sandbox=$!",
      "trap 'kill $sandbox 2>/dev/null' EXIT",
      "for i in $(seq 200); do curl -s -o /dev/null http://localhost:7290/openapi/json && break; sleep 0.05; done",
    );
  }
  scripts.forEach((script, index) => {
    const file = join(dir, `block-${index}.sh`);
    writeFileSync(file, script);
    lines.push(`echo "@@@ begin ${index}"`, `bash ${JSON.stringify(file)}`, `echo "@@@ end ${index} $?"`);
  });
  if (options.sandbox) lines.push(`echo "@@@ sandbox log"`, `cat "${dir}/sandbox.log"`);
  writeFileSync(join(dir, "run.sh"), lines.join("\n") + "\n");
  // A PID namespace too: when the script ends (or the run is killed), so does everything it
  // started, such as a block's own `… &`.
  const child = Bun.spawn(["unshare", "--net", "--pid", "--fork", "--kill-child", "bash", join(dir, "run.sh")], {
    cwd: options.cwd ?? dir,
    env: { ...withoutSandboxSettings(), ...options.env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  await child.exited;
  clearTimeout(timer);
  rmSync(dir, { recursive: true, force: true });
  const log = `${stdout}\n--- stderr ---\n${stderr}`;
  const runs: BlockRun[] = scripts.map((_, index) => {
    const match = new RegExp(`@@@ begin ${index}\\n([\\s\\S]*?)@@@ end ${index} (\\d+)`).exec(stdout);
    if (!match) throw new Error(`block ${index} did not finish:\n${log}`);
    return { code: Number(match[2]), output: match[1]! };
  });
  return { runs, log };
}

/** The environment without PAYSANDBOX_* settings of the developer's shell. */
function withoutSandboxSettings(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("PAYSANDBOX_") && value !== undefined) env[key] = value;
  }
  return env;
}
