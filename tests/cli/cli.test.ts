import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json";
import { OPTIONS } from "../../src/entry/cli";
import { FROM_SOURCES, freePort, runToExit, startServer } from "../support/process";
import { waitFor } from "../support/wait";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-cli-"));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const API_KEY = "sandbox_api_key";
const auth = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };

async function customerCount(url: string): Promise<number> {
  const res = await fetch(`${url}/customer`, { headers: auth });
  expect(res.status).toBe(200);
  return ((await res.json()) as { total: number }).total;
}

describe("paysandbox command line", () => {
  test("--help lists every option with its environment variable and exits 0", async () => {
    const run = await runToExit([...FROM_SOURCES, "--help"]);
    expect(run.code).toBe(0);
    for (const option of OPTIONS) {
      expect(run.stdout).toContain(option.flag);
      expect(run.stdout).toContain(option.env);
    }
    expect(run.stdout).toContain("--version");
  });

  test("--version prints the package version and exits 0", async () => {
    const run = await runToExit([...FROM_SOURCES, "--version"]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(`paysandbox ${pkg.version}`);
  });

  test("an unknown option is one clear line on stderr and a non-zero exit", async () => {
    const run = await runToExit([...FROM_SOURCES, "--prot", "80"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim()).toBe("paysandbox: unknown option --prot (see --help)");
  });

  test("a busy port is one clear line on stderr and a non-zero exit", async () => {
    const blocker = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const run = await runToExit([...FROM_SOURCES, "--port", String(blocker.port), "--db", ":memory:"]);
      expect(run.code).not.toBe(0);
      expect(run.stderr.trim()).toBe(`paysandbox: port ${blocker.port} on 127.0.0.1 is already in use (try --port)`);
      expect(run.stdout).not.toContain("API");
    } finally {
      blocker.stop(true);
    }
  });

  test("a database path under a file is one clear line on stderr and a non-zero exit", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "plain-file"), "not a directory");
    const run = await runToExit([...FROM_SOURCES, "--port", "0", "--db", join(dir, "plain-file", "sandbox.sqlite")]);
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain(`${join(dir, "plain-file")} is a file, not a directory`);
  });

  test("a database path that is a directory is refused with one clear line", async () => {
    const dir = tempDir();
    const run = await runToExit([...FROM_SOURCES, "--port", "0", "--db", dir]);
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim()).toBe(`paysandbox: the database path ${dir} is a directory; --db wants a file`);
  });

  test("a file that is not a SQLite database is refused with one clear line", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "notes.sqlite"), "these are my notes, not a database ".repeat(200));
    const run = await runToExit([...FROM_SOURCES, "--port", "0", "--db", join(dir, "notes.sqlite")]);
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim()).toBe(
      `paysandbox: cannot open the database at ${join(dir, "notes.sqlite")}: file is not a database`,
    );
  });

  test("first start creates the database; records survive a restart and --reset starts fresh", async () => {
    const dir = tempDir();
    const db = join(dir, "nested", "sandbox.sqlite");
    const first = await startServer([...FROM_SOURCES, "--port", "0", "--db", db]);
    try {
      expect(first.stdout()).toContain(`${db} (created)`);
      expect(existsSync(db)).toBe(true);
      const created = await fetch(`${first.url}/customer`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ firstname: "Grace", lastname: "Hopper", email: "grace@example.com" }),
      });
      expect(created.status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const second = await startServer([...FROM_SOURCES, "--port", "0", "--db", db]);
    try {
      expect(second.stdout()).not.toContain("(created)");
      expect(await customerCount(second.url)).toBe(1);
    } finally {
      await second.stop();
    }

    const reset = await startServer([...FROM_SOURCES, "--port", "0", "--db", db, "--reset"]);
    try {
      expect(reset.stdout()).toContain(`${db} (reset)`);
      expect(await customerCount(reset.url)).toBe(0);
    } finally {
      await reset.stop();
    }
  }, 30_000);

  test("Ctrl-C stops the server at once even while a dashboard tab holds a live-refresh stream", async () => {
    const server = await startServer([...FROM_SOURCES, "--port", "0", "--db", ":memory:", "--quiet"]);
    const controller = new AbortController();
    try {
      const stream = await fetch(`${server.url}/dashboard/events`, { signal: controller.signal });
      expect(stream.status).toBe(200);
      const reader = stream.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain("retry:");
      server.child.kill("SIGINT");
      const code = await Promise.race([server.child.exited, Bun.sleep(5000).then(() => "still running")]);
      expect(code).toBe(0);
      expect(server.stdout()).toContain("SIGINT: stopping");
    } finally {
      controller.abort();
      server.child.kill("SIGKILL");
    }
  });

  test("the banner shows the dashboard, keys, script tag and a curl charge on the chosen port", async () => {
    const port = freePort();
    const server = await startServer([...FROM_SOURCES, "--port", String(port), "--db", ":memory:"]);
    try {
      const banner = server.stdout();
      expect(server.url).toBe(`http://localhost:${port}`);
      expect(banner).toContain(`Dashboard      http://localhost:${port}/`);
      expect(banner).toContain("sandbox_web_payments_token");
      expect(banner).toContain(API_KEY);
      expect(banner).toContain(`<script src="http://localhost:${port}/payjs.js"></script>`);
      expect(banner).toContain(`curl -s http://localhost:${port}/charge`);
    } finally {
      await server.stop();
    }
  });

  test("with --log-requests, requests are logged as method, path, status and time, never with a card number; by default and with --quiet they are not", async () => {
    const card = {
      method: "card",
      card_number: "4111111111111111",
      card_cvv: "987",
      card_exp: "1230",
      person_name: "Ada Lovelace",
      phone: "5555550100",
      address_1: "1 Analytical Way",
      address_city: "London",
      address_state: "LN",
    };
    const loud = await startServer([...FROM_SOURCES, "--port", "0", "--db", ":memory:", "--log-requests"]);
    try {
      const res = await fetch(`${loud.url}/webpayment/sandbox_web_payments_token/tokenize`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(card),
      });
      expect(res.status).toBe(200);
      await fetch(`${loud.url}/self?card_number=4111111111111111`, { headers: auth });
      await fetch(`${loud.url}/nowhere`, { headers: auth });
      await waitFor(() => /\/nowhere/.test(loud.stderr()), { what: "the request line of /nowhere" });
      const log = loud.stderr();
      expect(log).toMatch(/^POST \/webpayment\/sandbox_web_payments_token\/tokenize 200 \d+(\.\d+)?ms$/m);
      expect(log).toMatch(/^GET \/self 200 \d+(\.\d+)?ms$/m);
      expect(log).toMatch(/^GET \/nowhere 404 \d+(\.\d+)?ms$/m);
      expect(log).not.toContain("4111111111111111");
    } finally {
      await loud.stop();
    }

    for (const flags of [[], ["--quiet"]]) {
      const server = await startServer([...FROM_SOURCES, "--port", "0", "--db", ":memory:", ...flags]);
      try {
        expect((await fetch(`${server.url}/self`, { headers: auth })).status).toBe(200);
        expect((await fetch(`${server.url}/nowhere`, { headers: auth })).status).toBe(404);
        // A request line would be written before the process exits: read all of stderr once it has.
        await server.stop();
        expect(server.stderr()).not.toContain("GET /self");
        expect(server.stderr()).not.toContain("GET /nowhere");
      } finally {
        await server.stop();
      }
    }
  }, 30_000);
  test("--ready-json prints one JSON line instead of the banner; --stop-with-stdin stops when stdin closes", async () => {
    const child = Bun.spawn([...FROM_SOURCES, "--port", "0", "--db", ":memory:", "--ready-json", "--stop-with-stdin"], {
      cwd: tempDir(),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = child.stdout.getReader();
    let out = "";
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    const ready = JSON.parse(out.split("\n")[0]!) as Record<string, unknown>;
    expect(ready).toMatchObject({
      paysandbox: "ready",
      version: pkg.version,
      pid: child.pid,
      api_key: API_KEY,
      web_payments_token: "sandbox_web_payments_token",
      database: ":memory:",
    });
    expect(out).not.toContain("Script tag");
    const self = await fetch(`${ready.url}/self`, { headers: auth });
    expect(self.status).toBe(200);
    await child.stdin.end(); // what happens when the process that started it goes away
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    expect(await child.exited).toBe(0);
    clearTimeout(timer);
  });
});
