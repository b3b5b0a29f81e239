/**
 * ACH returns survive a crash: a real sandbox process is SIGKILLed while a clock advance (and then
 * a restart's catch-up) is settling and returning bank payments, then started again. Each step
 * happens exactly once: one void child per returned payment, one return and one fee adjustment,
 * one update_transaction_settled delivery per event, and the deposits add up to the cent. On the
 * database of the run (SQLite file, or PostgreSQL under PAYSANDBOX_TEST_DB=postgres).
 *
 * Bounded: 80 returning and 10 kept payments, 3 kills, every wait capped.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startReadySandbox, type ReadySandbox } from "../support/process";
import { onPostgres } from "../support/database";
import { postgresDatabase, POSTGRES_TIMEOUT_MS } from "../support/postgres";
import { BANK } from "../support/app";
import { nextMondayNoon } from "../support/settlement";

const RETURNED = 80;
const KEPT = 10;
const KILLS = 3;
const dir = mkdtempSync(join(tmpdir(), "paysandbox-ach-restart-"));
let running: ReadySandbox | undefined;

afterAll(() => {
  running?.child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

async function call(sandbox: ReadySandbox, method: string, path: string, body?: unknown) {
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox.apiKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, json: (await res.json()) as any };
}

async function kill(sandbox: ReadySandbox): Promise<void> {
  sandbox.child.kill("SIGKILL");
  await sandbox.child.exited;
}

test(
  "a process killed while an advance returns ACH payments does each step once after restart",
  async () => {
    const db = onPostgres ? await postgresDatabase("ach_restart") : join(dir, "sandbox.sqlite");
    let sandbox = await startReadySandbox(db);
    running = sandbox;
    const hook = await call(sandbox, "POST", "/webhook", { target_url: "http://127.0.0.1:9/hooks", event: "*" });
    expect(hook.status).toBe(200);
    const clock = (await call(sandbox, "GET", "/_sandbox/clock")).json;
    const nowMs = Date.parse(`${clock.now.replace(" ", "T")}Z`);
    const monday = nextMondayNoon(nowMs);
    expect((await call(sandbox, "POST", "/_sandbox/clock/advance", { seconds: (monday - nowMs) / 1000 })).status).toBe(
      200,
    );

    const tokenize = async (account: string) =>
      (await call(sandbox, "POST", "/payment-method/", { ...BANK, bank_account: account })).json.id as string;
    const returning = await tokenize("2000000003");
    const approving = await tokenize("9876543210");
    const returnedIds: string[] = [];
    const keptIds: string[] = [];
    for (let i = 0; i < RETURNED + KEPT; i++) {
      const pm = i < RETURNED ? returning : approving;
      const res = await call(sandbox, "POST", "/charge", { payment_method_id: pm, total: 10 });
      expect(res.status).toBe(200);
      (i < RETURNED ? returnedIds : keptIds).push(res.json.id);
    }

    // Monday's debits settle when Wednesday ends and R03 comes back when Thursday ends. Each cycle
    // sends the advance still to go (it stores the new time, then runs the midnight's returns) and kills the process at a random moment (before the time is stored,
    // during the midnights' jobs, or after), and starts it again (its catch-up runs what is due).
    const target = monday + 4 * 86_400_000;
    // First, uninterrupted, to Thursday noon: settled, the returns scheduled for the end of Thursday.
    const thursday = (await call(sandbox, "POST", "/_sandbox/clock/advance", { seconds: 3 * 86_400 })).json;
    expect(thursday.ran.settled).toBe(RETURNED + KEPT);
    const clockMs = async () =>
      Date.parse(`${(await call(sandbox, "GET", "/_sandbox/clock")).json.now.replace(" ", "T")}Z`);
    for (let kills = 0; kills < KILLS; kills++) {
      const left = Math.ceil((target - (await clockMs())) / 1000);
      if (left > 0) void call(sandbox, "POST", "/_sandbox/clock/advance", { seconds: left }).catch(() => undefined);
      await Bun.sleep(Math.floor(Math.random() * (onPostgres ? 400 : 200)));
      await kill(sandbox);
      sandbox = await startReadySandbox(db);
      running = sandbox;
    }
    const left = Math.ceil((target - (await clockMs())) / 1000);
    if (left > 0) expect((await call(sandbox, "POST", "/_sandbox/clock/advance", { seconds: left })).status).toBe(200);
    // The last start has caught up on whatever was left; an advance of a second runs the jobs once more.
    const after = (await call(sandbox, "POST", "/_sandbox/clock/advance", { seconds: 1 })).json;
    expect(Date.parse(`${after.now.replace(" ", "T")}Z`)).toBeGreaterThanOrEqual(target);

    for (const id of returnedIds) {
      const record = (await call(sandbox, "GET", `/transaction/${id}`)).json;
      expect(record.is_voided).toBe(true);
      expect(record.child_transactions.map((c: any) => [c.type, c.decline_code])).toEqual([["void", "R03"]]);
      const deliveries = (
        await call(sandbox, "GET", `/_sandbox/webhook-deliveries?event=update_transaction_settled&record_id=${id}`)
      ).json;
      // One for the settlement, one for the return.
      expect(deliveries.total).toBe(2);
    }
    for (const id of keptIds) expect((await call(sandbox, "GET", `/transaction/${id}`)).json.is_voided).toBe(false);
    const adjustments = (await call(sandbox, "GET", "/query/statement/v3/adjustments?per_page=200")).json;
    expect(adjustments.summary).toEqual({
      adjustments_count: 2 * RETURNED,
      adjustments_amount: RETURNED * 25,
      net_amount: -RETURNED * 25,
    });
    const rejects = (await call(sandbox, "GET", "/query/statement/v3/ach-rejects?per_page=200")).json;
    expect(rejects.total).toBe(RETURNED);
    expect(new Set(rejects.data.map((r: any) => r.ach_reject_transaction_id)).size).toBe(RETURNED);
    const deposits = (await call(sandbox, "GET", "/query/deposit?startDate=2000-01-01&per_page=200")).json;
    const net = deposits.data.reduce((sum: number, d: any) => sum + Math.round(d.net * 100), 0);
    // Each 10.00 debit pays an ACH fee of 0.08; each returned one gives back 10.00 and pays 15.00.
    expect(net).toBe((RETURNED + KEPT) * (1000 - 8) - RETURNED * 2500);
    await kill(sandbox);
    running = undefined;
  },
  onPostgres ? POSTGRES_TIMEOUT_MS : 120_000,
);
