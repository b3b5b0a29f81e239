/**
 * The README's first ten minutes, for real: `npm start` on a free port with a file database,
 * the curl flow (tokenize → charge → list), then Ctrl-C.
 * SQLite-only (npm test's PostgreSQL pass leaves it out): it reads the SQLite file the server wrote.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type Running } from "../support/process";

const dir = mkdtempSync(join(tmpdir(), "paysandbox-server-"));
const dbPath = join(dir, "nested", "sandbox.sqlite");
let server: Running | undefined;

afterAll(() => {
  server?.child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** Every process below pid. */
function descendants(pid: number): number[] {
  const out = Bun.spawnSync(["ps", "-e", "-o", "pid=,ppid="]).stdout.toString();
  const children = new Map<number, number[]>();
  for (const line of out.trim().split("\n")) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    children.set(parent!, [...(children.get(parent!) ?? []), child!]);
  }
  const all: number[] = [];
  const walk = (p: number) => (children.get(p) ?? []).forEach((c) => (all.push(c), walk(c)));
  walk(pid);
  return all;
}

async function curl(...args: string[]): Promise<{ status: number; body: any }> {
  const child = Bun.spawn(["curl", "-s", "-w", "\n%{http_code}", ...args], { stdout: "pipe" });
  const out = await new Response(child.stdout).text();
  await child.exited;
  const at = out.lastIndexOf("\n");
  return { status: Number(out.slice(at + 1)), body: JSON.parse(out.slice(0, at)) };
}

describe("npm start", () => {
  test("serves the curl flow from the README on a file database and shuts down cleanly on Ctrl-C", async () => {
    server = await startServer(["npm", "start", "--silent", "--", "--port", "0", "--db", dbPath]);
    const { url } = server;
    const banner = server.stdout();
    expect(banner).toContain("sandbox_web_payments_token");
    expect(banner).toContain("sandbox_api_key");
    expect(banner).toContain(`<script src="${url}/payjs.js"></script>`);
    expect(banner).toContain(`curl -s ${url}/charge -H 'Authorization: Bearer sandbox_api_key'`);

    const pm = await curl(
      `${url}/webpayment/sandbox_web_payments_token/tokenize`,
      "-H",
      "Content-Type: application/json",
      "-d",
      '{"method":"card","card_number":"4111111111111111","card_exp":"1230","person_name":"Ada Lovelace"}',
    );
    expect(pm.status).toBe(200);
    expect(pm.body.card_last_four).toBe("1111");

    const charged = await curl(
      `${url}/charge`,
      "-H",
      "Authorization: Bearer sandbox_api_key",
      "-H",
      "Content-Type: application/json",
      "-d",
      JSON.stringify({ payment_method_id: pm.body.id, total: 10.5 }),
    );
    expect(charged.status).toBe(200);
    expect(charged.body).toMatchObject({ success: true, total: 10.5, payment_method_id: pm.body.id });

    const listed = await curl(`${url}/transaction`, "-H", "Authorization: Bearer sandbox_api_key");
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((t: { id: string }) => t.id)).toContain(charged.body.id);

    // Ctrl-C reaches the sandbox process (npm itself would report 130 for its own SIGINT).
    const sandbox = descendants(server.child.pid).at(-1)!;
    process.kill(sandbox, "SIGINT");
    expect(await server.child.exited).toBe(0);
    expect(server.stdout()).toContain("stopping");
    // The WAL was folded back into the database file on the way out.
    const wal = `${dbPath}-wal`;
    expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
    const db = new Database(dbPath, { readonly: true });
    expect(db.query("SELECT COUNT(*) AS n FROM transactions").get()).toEqual({ n: 1 });
    expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    db.close();
  }, 60_000);
});
