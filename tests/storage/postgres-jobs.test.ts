/**
 * The jobs and outboxes on PostgreSQL, through the real app: a charge with a webhook registered,
 * its receipt e-mail and SMS, two days of sandbox time (the card batch settles, the deposit
 * lands), every event delivered once to a real receiver by the dispatcher's claims, the dashboard
 * pages that read them, and the reset.
 */
import { afterAll, expect, test } from "bun:test";
import { buildDeps, composeApp, startWorkers, stopWorkers } from "../../src/entry/app";
import { openPostgres } from "../../src/storage/postgres/database";
import { migratePostgres } from "../../src/storage/postgres/migrate";
import { memoryLogger } from "../../src/lib/logger";
import type { WebhookDispatcher } from "../../src/services/webhooks/dispatcher";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import { API_KEY, TOKEN, waitFor } from "../support/app";
import { describePostgres, POSTGRES_TIMEOUT_MS, postgresDatabase } from "../support/postgres";

const receivers: Receiver[] = [];
afterAll(async () => {
  for (const receiver of receivers) await receiver.stop();
});

describePostgres("settlement, the outboxes and the webhook dispatcher on PostgreSQL", () => {
  test(
    "a charge is e-mailed, texted, settled and deposited, and every event is delivered exactly once",
    async () => {
      const db = await openPostgres(await postgresDatabase("jobs"));
      await migratePostgres(db);
      const deps = await buildDeps({ db, log: memoryLogger(), publicUrl: "http://localhost:7290" });
      const app = composeApp(deps);
      const receiver = startReceiver(() => 200);
      receivers.push(receiver);
      const call = async (method: string, path: string, body?: unknown): Promise<any> => {
        const res = await app.handle(
          new Request(`http://localhost${path}`, {
            method,
            headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
            body: body === undefined ? undefined : JSON.stringify(body),
          }),
        );
        expect(res.status).toBe(200);
        return res.headers.get("content-type")?.includes("json") ? res.json() : res.text();
      };
      startWorkers(deps);
      try {
        await call("POST", "/webhook", { target_url: receiver.url, event: "*" });
        const card = await call("POST", `/webpayment/${TOKEN}/tokenize`, {
          method: "card",
          card_number: "4111111111111111",
          card_exp: "1230",
          person_name: "Ada Lovelace",
          email: "ada@example.com",
        });
        const sale = await call("POST", "/charge", { payment_method_id: card.id, total: 10.5 });
        await call("POST", `/transaction/${sale.id}/receipt-email`, { email: "ada@example.com" });
        await call("POST", `/transaction/${sale.id}/receipt-sms`, { phone: "5555550123" });
        const advanced = await call("POST", "/_sandbox/clock/advance", { seconds: 3 * 86_400 });
        expect(advanced.ran).toEqual({ batches: 1, settled: 1, deposits: 1 });

        const emails = await call("GET", "/_sandbox/emails");
        expect(emails.data.map((e: any) => [e.to, e.transaction_id])).toEqual([["ada@example.com", sale.id]]);
        expect((await call("GET", "/_sandbox/sms")).data.map((s: any) => s.to)).toEqual(["5555550123"]);
        const deposits = await call("GET", "/query/deposit?startDate=2000-01-01");
        expect(deposits.data.map((d: any) => [d.count, d.gross, d.fees, d.net])).toEqual([[1, 10.5, 0.6, 9.9]]);
        const detail = await call("GET", "/query/depositDetail?startDate=2000-01-01");
        expect(detail.data.map((t: any) => [t.id, t.net])).toEqual([[sale.id, 9.9]]);

        const events = [
          "create_customer",
          "create_payment_method",
          "create_transaction",
          "update_transaction",
          "update_transaction",
          "update_transaction_settled",
          "create_deposit",
        ];
        await waitFor(() => receiver.delivered().length >= events.length, 10_000, "every event at the receiver");
        const dispatcher = deps.workers.find((w) => w.name === "webhooks") as WebhookDispatcher;
        await dispatcher.idle();
        // Every event once; each record's own events in order (different records' deliveries are
        // independent, so their relative order is not part of the contract).
        expect(
          receiver
            .delivered()
            .map((r) => r.event)
            .sort(),
        ).toEqual([...events].sort());
        expect(
          receiver
            .delivered()
            .filter((r) => r.json?.id === sale.id)
            .map((r) => r.event),
        ).toEqual(["create_transaction", "update_transaction", "update_transaction", "update_transaction_settled"]);
        expect(new Set(receiver.received.map((r) => r.deliveryId)).size).toBe(receiver.received.length);
        const log = await call("GET", "/_sandbox/webhook-deliveries");
        expect(log.data.every((d: any) => d.status === "delivered" && d.attempt_log.length === 1)).toBe(true);

        // The dashboard reads the same lists (call() expects a 200).
        expect(await call("GET", "/dashboard/emails")).toContain("ada@example.com");
        expect(await call("GET", "/dashboard/sms")).toContain("5555550123");
        expect(await call("GET", "/dashboard/deposits")).toContain("9.90");
        const reset = await call("POST", "/_sandbox/reset");
        expect(reset.deleted).toMatchObject({ emails: 1, sms: 1, deposits: 1, webhooks: 1, webhook_deliveries: 7 });
        expect((await call("GET", "/_sandbox/emails")).total).toBe(0);
      } finally {
        await stopWorkers(deps);
        await db.close();
      }
    },
    POSTGRES_TIMEOUT_MS,
  );
});
