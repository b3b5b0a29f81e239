/**
 * A shared sandbox survives a process dying (issue: several sandbox processes over one PostgreSQL
 * database). Two real sandbox processes serve one real PostgreSQL database under POST /charge load
 * with a webhook endpoint registered; one is SIGKILLed mid-load and started again. Afterwards:
 * every acknowledged charge exists exactly once (clients retry an unanswered request, with the
 * same Idempotency-Key, on the other process), every create_transaction event reached the
 * endpoint under exactly one delivery id, and the deposits add up to the charges.
 *
 * Bounded: 240 charges from 8 clients, every wait capped.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { postgresDatabase, describePostgres, POSTGRES_TIMEOUT_MS } from "../support/postgres";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import { startReadySandbox as startSandbox, type ReadySandbox as Sandbox } from "../support/process";
import { CARD } from "../support/app";

const CHARGES = 240;
const CLIENTS = 8;
/** The charge after which the first process is killed. */
const KILL_AFTER = 80;

async function call(sandbox: Sandbox, method: string, path: string, body?: unknown, key?: string) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${sandbox.apiKey}`,
    "content-type": "application/json",
  };
  if (key) headers["idempotency-key"] = key;
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, json: (await res.json()) as any };
}

async function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

describePostgres("two sandbox processes on one PostgreSQL database", () => {
  let db: string;
  let receiver: Receiver;
  const running: Sandbox[] = [];

  beforeAll(async () => {
    db = await postgresDatabase("multi_process");
    receiver = startReceiver(() => 200);
  }, POSTGRES_TIMEOUT_MS);

  afterAll(async () => {
    for (const sandbox of running) sandbox.child.kill("SIGKILL");
    await receiver?.stop();
  });

  test("one is SIGKILLed mid-load and restarted: each acknowledged charge exists once, each event arrives under one delivery id and is sent again only when interrupted, deposits add up", async () => {
    // Both start at once: the migrations run once under the advisory lock.
    const [one, two] = await Promise.all([startSandbox(db), startSandbox(db)]);
    running.push(one!, two!);
    const sandboxes: (Sandbox | null)[] = [one!, two!];
    expect(one!.apiKey).toBe(two!.apiKey);

    const tokenized = await fetch(`${two!.url}/webpayment/${two!.token}/tokenize`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://localhost" },
      body: JSON.stringify(CARD),
    });
    expect(tokenized.status).toBe(200);
    const paymentMethod = (await tokenized.json()) as { id: string };
    // Both processes serve a charge before the endpoint exists (so each has looked for webhooks),
    // then it is registered through one of them: the other must see it for every later event.
    for (const [n, sandbox] of [one!, two!].entries()) {
      const warm = await call(sandbox, "POST", "/charge", {
        payment_method_id: paymentMethod.id,
        total: 1,
        meta: { ref: `warm-${n}` },
      });
      expect(warm.status).toBe(200);
    }
    const hook = await call(one!, "POST", "/webhook", { target_url: receiver.url, event: "create_transaction" });
    expect(hook.status).toBe(200);

    // The load: each client charges in turn, alternating processes; an unanswered request is sent
    // again with the same key to the other process until it is answered.
    const acknowledged = new Map<string, { id: string; total: number; success: boolean }>();
    let next = 0;
    let killed = false;
    let restarted: Promise<void> = Promise.resolve();
    const charge = async (n: number) => {
      const ref = `charge-${n}`;
      const total = 1 + (n % 17) + 0.25;
      for (let attempt = 0; ; attempt++) {
        if (attempt > 40) throw new Error(`${ref}: never answered`);
        const live = sandboxes.filter((s): s is Sandbox => s !== null);
        const target = live[(n + attempt) % live.length]!;
        try {
          const res = await call(
            target,
            "POST",
            "/charge",
            { payment_method_id: paymentMethod.id, total, meta: { ref } },
            ref,
          );
          if (res.status !== 200 && res.status !== 402)
            throw new Error(`${ref}: ${res.status} ${JSON.stringify(res.json)}`);
          const txn = res.status === 200 ? res.json : res.json.transaction;
          acknowledged.set(ref, { id: txn.id, total: txn.total, success: txn.success });
          return;
        } catch (error) {
          if (String(error).includes(`${ref}: `)) throw error;
          await Bun.sleep(20); // the connection was refused or cut: the process died
        }
      }
    };
    const client = async () => {
      for (let n = next++; n < CHARGES; n = next++) {
        if (n === KILL_AFTER && !killed) {
          killed = true;
          const victim = sandboxes[0]!;
          sandboxes[0] = null;
          victim.child.kill("SIGKILL");
          await victim.child.exited;
          restarted = startSandbox(db).then((fresh) => {
            running.push(fresh);
            sandboxes[0] = fresh;
          });
        }
        await charge(n);
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    await restarted;
    expect(killed).toBe(true);
    expect(acknowledged.size).toBe(CHARGES);

    // Every acknowledged charge exists, once: the list holds one transaction per ref.
    const live = sandboxes.filter((s): s is Sandbox => s !== null);
    const listed: { id: string; meta: { ref?: string } }[] = [];
    for (let page = 1; ; page++) {
      const res = await call(live[0]!, "GET", `/transaction?per_page=100&page=${page}&type=charge`);
      expect(res.status).toBe(200);
      listed.push(...res.json.data);
      if (page >= res.json.last_page) break;
    }
    const byRef = new Map<string, string[]>();
    for (const txn of listed) byRef.set(txn.meta.ref!, [...(byRef.get(txn.meta.ref!) ?? []), txn.id]);
    expect(listed.length).toBe(CHARGES + 2);
    for (const [ref, ack] of acknowledged) expect(byRef.get(ref)).toEqual([ack.id]);

    // Every create_transaction event reaches the endpoint, under exactly one delivery id.
    const ids = new Set(listed.filter((t) => !t.meta.ref!.startsWith("warm-")).map((t) => t.id));
    const deliveriesOf = () => {
      const byRecord = new Map<string, Set<string>>();
      for (const r of receiver.received) {
        if (r.event !== "create_transaction") continue;
        const set = byRecord.get(r.json.id) ?? new Set<string>();
        set.add(r.deliveryId!);
        byRecord.set(r.json.id, set);
      }
      return byRecord;
    };
    const byRecord = await waitUntil("every event delivered", async () => {
      const seen = deliveriesOf();
      return [...ids].every((id) => seen.has(id)) ? seen : undefined;
    });
    expect(byRecord.size).toBe(CHARGES);
    for (const id of ids) expect(byRecord.get(id)!.size).toBe(1);
    // No delivery is sent twice by live processes: a delivery arrives once, or once more for each
    // attempt the killed process had on the wire (logged "Interrupted", sent again under the same
    // delivery id, which receivers de-duplicate on).
    const arrivals = new Map<string, number>();
    for (const r of receiver.received) {
      if (r.event === "create_transaction") arrivals.set(r.deliveryId!, (arrivals.get(r.deliveryId!) ?? 0) + 1);
    }
    const interrupted = new Map<string, number>();
    for (let page = 1; ; page++) {
      const res = await call(
        live[0]!,
        "GET",
        `/_sandbox/webhook-deliveries?event=create_transaction&per_page=100&page=${page}`,
      );
      expect(res.status).toBe(200);
      for (const d of res.json.data as { id: string; attempt_log: { error: string | null }[] }[]) {
        interrupted.set(d.id, d.attempt_log.filter((a) => a.error?.startsWith("Interrupted")).length);
      }
      if (page >= res.json.last_page) break;
    }
    expect(interrupted.size).toBe(CHARGES);
    for (const [deliveryId, count] of arrivals) {
      expect(interrupted.has(deliveryId)).toBe(true);
      expect(count).toBeGreaterThanOrEqual(1);
      expect(count).toBeLessThanOrEqual(1 + interrupted.get(deliveryId)!);
    }

    // Settlement: two days on, the card batch has closed and landed once, from whichever process
    // ran it, and the deposits add up to the approved charges.
    // Both processes run the jobs at once: one moves the clock, the other keeps running what is due.
    const other = live[1] ?? live[0]!;
    const [advanced] = await Promise.all([
      call(live[0]!, "POST", "/_sandbox/clock/advance", { seconds: 3 * 86_400 }),
      ...Array.from({ length: 8 }, (_, i) =>
        Bun.sleep(i * 5).then(() => call(other, "POST", "/_sandbox/clock/advance", { seconds: 0 })),
      ),
    ]);
    expect(advanced!.status).toBe(200);
    await Promise.all(live.map((s) => call(s, "POST", "/_sandbox/clock/advance", { seconds: 0 })));
    // The approved charges, and the two warm-up charges of 1.00.
    const approvedCents =
      200 + [...acknowledged.values()].filter((a) => a.success).reduce((sum, a) => sum + Math.round(a.total * 100), 0);
    const deposits = await call(
      live[1] ?? live[0]!,
      "GET",
      "/query/deposit?startDate=2000-01-01&endDate=2099-12-31&per_page=100",
    );
    expect(deposits.status).toBe(200);
    const grossCents = deposits.json.data.reduce(
      (sum: number, d: { gross: number }) => sum + Math.round(d.gross * 100),
      0,
    );
    expect(grossCents).toBe(approvedCents);
    const batchIds = deposits.json.data.map((d: { batch_id: string }) => d.batch_id);
    expect(new Set(batchIds).size).toBe(batchIds.length);
  }, 180_000);
});
