/**
 * Disputes survive a crash: a real sandbox process is SIGKILLed while a clock advance (and then a
 * restart's catch-up) is opening disputes, and again while it is deciding them, then started
 * again. Each step happens exactly once: one dispute per disputed sale, one hold (amount and fee)
 * and at most one release, one e-mail and one create_dispute delivery per dispute, one
 * update_dispute per change, and the deposits add up to the cent. On the database of the run
 * (SQLite file, or PostgreSQL under PAYSANDBOX_TEST_DB=postgres).
 *
 * Bounded: 40 disputed and 10 kept sales, 3 kills per phase, every wait capped.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startReadySandbox, type ReadySandbox } from "../support/process";
import { onPostgres } from "../support/database";
import { postgresDatabase, POSTGRES_TIMEOUT_MS } from "../support/postgres";
import { CARD } from "../support/app";
import { nextMondayNoon } from "../support/settlement";

const DISPUTED = 40;
const KEPT = 10;
const KILLS = 3;
const DAY = 86_400_000;
const dir = mkdtempSync(join(tmpdir(), "paysandbox-dispute-restart-"));
let sandbox: ReadySandbox | undefined;
let db = "";

afterAll(() => {
  sandbox?.child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${sandbox!.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox!.apiKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, json: (await res.json()) as any };
}

const clockMs = async () => Date.parse(`${(await call("GET", "/_sandbox/clock")).json.now.replace(" ", "T")}Z`);

/**
 * Sends the advance still to go to `target` and kills the process at a random moment (before the
 * time is stored, during the midnights' jobs, or after), KILLS times, starting it again each time
 * (its catch-up runs what is due); then finishes the advance.
 */
async function advanceThroughKills(target: number): Promise<void> {
  for (let kills = 0; kills < KILLS; kills++) {
    const left = Math.ceil((target - (await clockMs())) / 1000);
    if (left > 0) void call("POST", "/_sandbox/clock/advance", { seconds: left }).catch(() => undefined);
    await Bun.sleep(Math.floor(Math.random() * (onPostgres ? 400 : 200)));
    sandbox!.child.kill("SIGKILL");
    await sandbox!.child.exited;
    sandbox = await startReadySandbox(db);
  }
  const left = Math.ceil((target - (await clockMs())) / 1000);
  if (left > 0) expect((await call("POST", "/_sandbox/clock/advance", { seconds: left })).status).toBe(200);
  // An advance of a second runs the jobs once more: nothing may happen twice.
  expect((await call("POST", "/_sandbox/clock/advance", { seconds: 1 })).status).toBe(200);
}

test(
  "a process killed while an advance opens and decides disputes does each step once after restart",
  async () => {
    db = onPostgres ? await postgresDatabase("dispute_restart") : join(dir, "sandbox.sqlite");
    sandbox = await startReadySandbox(db);
    expect((await call("POST", "/webhook", { target_url: "http://127.0.0.1:9/hooks", event: "*" })).status).toBe(200);
    const now = await clockMs();
    const monday = nextMondayNoon(now);
    expect((await call("POST", "/_sandbox/clock/advance", { seconds: (monday - now) / 1000 })).status).toBe(200);

    const tokenize = async (number: string) =>
      (await call("POST", "/payment-method/", { ...CARD, card_number: number })).json.id as string;
    const disputed = await tokenize("4000000000000259"); // FRAUD, 3 days after settlement
    const approving = await tokenize(CARD.card_number);
    const disputedIds: string[] = [];
    for (let i = 0; i < DISPUTED + KEPT; i++) {
      const res = await call("POST", "/charge", { payment_method_id: i < DISPUTED ? disputed : approving, total: 10 });
      expect(res.status).toBe(200);
      if (i < DISPUTED) disputedIds.push(res.json.id);
    }

    // Settled at Tuesday 00:00; the disputes open at Friday 00:00. Uninterrupted to Thursday noon.
    expect((await call("POST", "/_sandbox/clock/advance", { seconds: (3 * DAY) / 1000 })).status).toBe(200);
    await advanceThroughKills(monday + 4 * DAY);
    const opened = (await call("GET", "/underwriting/disputes?per_page=200&sort=created_at&order=asc")).json;
    expect(opened.total).toBe(DISPUTED);
    expect(opened.data.map((d: any) => d.transaction_id).sort()).toEqual([...disputedIds].sort());
    expect(opened.data.every((d: any) => d.status === "PENDING")).toBe(true);

    // Half answered with winning evidence (decided 10 days after Friday noon: Tuesday 00:00 of the
    // second week after); the other half unanswered (lost at respond_by, Monday 00:00).
    const won = opened.data.slice(0, DISPUTED / 2);
    for (const dispute of won) {
      const res = await call("POST", `/underwriting/dispute/${dispute.id}/submit`, { notes: "winning_evidence" });
      expect(res.status).toBe(200);
    }
    await advanceThroughKills(monday + 15 * DAY);

    const closed = (await call("GET", "/underwriting/disputes?per_page=200")).json.data;
    const wonIds = new Set(won.map((d: any) => d.id));
    for (const dispute of closed) expect(dispute.status).toBe(wonIds.has(dispute.id) ? "WON" : "LOST");
    for (const dispute of closed) {
      const deliveries = async (event: string) =>
        (await call("GET", `/_sandbox/webhook-deliveries?event=${event}&record_id=${dispute.id}`)).json.total;
      expect(await deliveries("create_dispute")).toBe(1);
      // The submit and the decision, or the decision alone.
      expect(await deliveries("update_dispute")).toBe(wonIds.has(dispute.id) ? 2 : 1);
    }
    const mail = (await call("GET", "/_sandbox/emails?to=merchant@paysandbox.localhost&per_page=200")).json;
    expect(mail.data.filter((m: any) => m.kind === "dispute").length).toBe(DISPUTED);
    const statement = (await call("GET", "/query/statement/v3/disputes?per_page=200")).json;
    expect(statement.summary).toEqual({
      dispute_amount_total: -(DISPUTED / 2) * 10,
      fee_amount_total: DISPUTED * 20,
      count: DISPUTED + DISPUTED / 2,
    });
    const deposits = (await call("GET", "/query/deposit?startDate=2000-01-01&per_page=200")).json;
    const net = deposits.data.reduce((sum: number, d: any) => sum + Math.round(d.net * 100), 0);
    // Each 10.00 sale pays a card fee of 0.59; each dispute withholds 10.00 and 20.00, a won one gives 10.00 back.
    expect(net).toBe((DISPUTED + KEPT) * (1000 - 59) - DISPUTED * 3000 + (DISPUTED / 2) * 1000);
    sandbox.child.kill("SIGKILL");
    await sandbox.child.exited;
    sandbox = undefined;
  },
  onPostgres ? POSTGRES_TIMEOUT_MS : 120_000,
);
