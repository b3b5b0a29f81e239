/**
 * Invoice schedules run by the sandbox clock (issue 30), through the real app: a monthly schedule
 * advanced a year makes twelve invoices, charges and receipts, each stamped with its own
 * occurrence time, with the webhooks in order into a real receiver; a declining card, then a new
 * payment method by PUT; the month-end rules; COUNT; paused and deleted schedules.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { startWorkers, stopWorkers } from "../../src/entry/app";
import { verifyPaySandboxSignature } from "../../packages/webhooks/verify";
import { setup, tokenize, waitFor, type TestContext } from "../support/app";
import { startReceiver, type Receiver } from "../support/webhook-receiver";

let running: TestContext | undefined;
let receiver: Receiver | undefined;

afterEach(async () => {
  if (running) await stopWorkers(running.deps);
  await receiver?.stop();
  running = receiver = undefined;
});

const DAY = 86_400_000;
/** The Visa that declines at charge (GET /_sandbox/test-cards). */
const DECLINING_VISA = "4012888888881881";

/** `YYYYMMDDTHHMMSSZ` of epoch ms. */
const ical = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
/** `YYYY-MM-DD HH:MM:SS` of epoch ms. */
const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");

/** Moves the merchant's clock to `ms` (sandbox time). */
async function advanceTo(ctx: TestContext, ms: number) {
  const seconds = Math.ceil((ms - ctx.deps.clock.now(ctx.merchantId).getTime()) / 1000);
  const res = await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds }, auth: false });
  expect(res.status).toBe(200);
}

/** The 3rd of next month, 14:00 UTC, on the merchant's clock, and the k-th month after it. */
function monthly(ctx: TestContext) {
  const now = ctx.deps.clock.now(ctx.merchantId);
  return (k: number) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1 + k, 3, 14);
}

async function schedule(ctx: TestContext, body: Record<string, unknown>) {
  const res = await ctx.call("POST", "/invoice/schedule", { body: { total: 49.99, ...body } });
  expect(res.status).toBe(201);
  return res.body;
}

/** The e-mails about one invoice, oldest first. */
async function emailsOf(ctx: TestContext, invoiceId: string) {
  const page = await ctx.call("GET", "/_sandbox/emails?per_page=200", { auth: false });
  return page.body.data.filter((e: { invoice_id: string }) => e.invoice_id === invoiceId).reverse();
}

async function scheduleInvoices(ctx: TestContext, id: string) {
  const page = await ctx.call("GET", "/invoice?per_page=200");
  return page.body.data.filter((invoice: { schedule_id: string }) => invoice.schedule_id === id).reverse();
}

describe("a monthly schedule on the sandbox clock", () => {
  test("a year's advance makes twelve invoices, charges and receipts at their own times, the webhooks in order", async () => {
    const ctx = (running = await setup());
    const hooks = (receiver = startReceiver());
    startWorkers(ctx.deps);
    expect((await ctx.call("POST", "/webhook", { body: { target_url: hooks.url, event: "*" } })).status).toBe(200);
    const secret = (await ctx.call("GET", "/self")).body.webhook_secret;
    const pm = await tokenize(ctx);
    const at = monthly(ctx);
    const made = await schedule(ctx, {
      rule: `FREQ=MONTHLY;INTERVAL=1;DTSTART=${ical(at(0))}`,
      payment_method_id: pm.id,
      meta: { memo: "Gym membership", lineItems: [{ item: "Monthly plan", quantity: 1, price: 49.99 }] },
    });
    // A year: the twelfth occurrence is passed, the thirteenth not yet.
    await advanceTo(ctx, at(11) + DAY);
    const occurrences = Array.from({ length: 12 }, (_, k) => stamp(at(k)));

    const invoices = await scheduleInvoices(ctx, made.id);
    expect(invoices.map((i: { created_at: string }) => i.created_at)).toEqual(occurrences);
    for (const invoice of invoices) {
      expect(invoice).toMatchObject({ status: "PAID", total: 49.99, total_paid: 49.99, payment_method_id: pm.id });
      expect(invoice.child_transactions).toHaveLength(1);
      expect(invoice.child_transactions[0]).toMatchObject({
        success: true,
        total: 49.99,
        created_at: invoice.created_at,
      });
      expect([invoice.sent_at, invoice.paid_at]).toEqual([invoice.created_at, invoice.created_at]);
    }
    const charges = await ctx.call("GET", "/transaction?per_page=50");
    expect(charges.body.total).toBe(12);
    const emails = (await ctx.call("GET", "/_sandbox/emails?per_page=50", { auth: false })).body.data.reverse();
    expect(emails.map((e: { kind: string }) => e.kind)).toEqual(occurrences.flatMap(() => ["invoice", "receipt"]));
    expect(emails.map((e: { created_at: string }) => e.created_at)).toEqual(occurrences.flatMap((o) => [o, o]));
    expect(emails[0].text).toContain("card ending 1111");
    expect(emails[1]).toMatchObject({ to: "ada@example.com", invoice_id: invoices[0].id });

    const record = (await ctx.call("GET", `/invoice/schedule/${made.id}`)).body;
    expect(record).toMatchObject({
      count: 12,
      status: "ACTIVE",
      last_run_at: occurrences[11],
      next_run_at: stamp(at(12)),
      last_invoice_status: "PAID",
      invoice_ids: invoices.map((i: { id: string }) => i.id),
    });

    // Each occurrence's events, stamped with its time, in the outbox's order; all delivered, signed.
    const names = ["create_invoice", "send_invoice", "create_transaction", "update_invoice"];
    const expected = occurrences.flatMap((o) => names.map((name) => [name, o]));
    const hook = (await ctx.call("GET", "/webhook")).body.data[0];
    const log = await waitFor(async () => {
      const page = (await ctx.call("GET", `/webhook/${hook.id}/deliveries?per_page=200`)).body.data.reverse();
      const ours = page.filter((d: { event: string }) => names.includes(d.event));
      return ours.length === expected.length && ours.every((d: { status: string }) => d.status === "delivered") && ours;
    }, 20_000);
    expect(log.map((d: { event: string; created_at: string }) => [d.event, d.created_at])).toEqual(expected);
    await waitFor(() => hooks.delivered().length >= expected.length, 10_000);
    for (const invoice of invoices) {
      const got = hooks.delivered().filter((r) => r.json?.id === invoice.id);
      expect(got.map((r) => r.event)).toEqual(["create_invoice", "send_invoice", "update_invoice"]);
      expect(got[0]!.json).toMatchObject({ schedule_id: made.id, created_at: invoice.created_at });
    }
    for (const r of hooks.delivered()) expect(verifyPaySandboxSignature(r.raw, r.headers, secret)).toBe(true);
  }, 60_000);

  test("a declining card leaves the invoice ATTEMPTED with the failure e-mail; a new card by PUT pays the next", async () => {
    const ctx = await setup();
    const declining = await tokenize(ctx, { card_number: DECLINING_VISA });
    const at = monthly(ctx);
    const made = await schedule(ctx, { rule: `FREQ=MONTHLY;DTSTART=${ical(at(0))}`, payment_method_id: declining.id });
    await advanceTo(ctx, at(0) + DAY);
    const [first] = await scheduleInvoices(ctx, made.id);
    expect(first).toMatchObject({ status: "ATTEMPTED", payment_attempt_failed: true, total_paid: 0 });
    expect(first.child_transactions.map((t: { success: boolean }) => t.success)).toEqual([false]);
    const failure = await emailsOf(ctx, first.id);
    expect(failure.map((e: { kind: string }) => e.kind)).toEqual(["invoice", "receipt_failed"]);
    const failed = failure.find((e: { kind: string }) => e.kind === "receipt_failed");
    expect(failed.text).toContain(`/hosted/pay/${first.id}`);
    expect((await ctx.call("GET", `/invoice/schedule/${made.id}`)).body.last_invoice_status).toBe("ATTEMPTED");

    const good = await tokenize(ctx, { card_number: "5555555555554444" });
    const put = await ctx.call("PUT", `/invoice/schedule/${made.id}`, { body: { payment_method_id: good.id } });
    expect(put.body).toMatchObject({ payment_method_id: good.id, next_run_at: stamp(at(1)) });
    await advanceTo(ctx, at(1) + DAY);
    const [again, second] = await scheduleInvoices(ctx, made.id);
    // The declined one is not charged again: the next attempt is the next occurrence.
    expect(again).toMatchObject({ id: first.id, status: "ATTEMPTED" });
    expect(again.child_transactions).toHaveLength(1);
    expect(second).toMatchObject({ status: "PAID", payment_method_id: good.id, created_at: stamp(at(1)) });
  }, 60_000);
});

describe("calendar edges", () => {
  test("the 31st skips shorter months (RFC 5545); BYMONTHDAY=-1 bills every month's last day", async () => {
    const ctx = await setup();
    const who = (await ctx.call("POST", "/customer", { body: { firstname: "Eve", email: "eve@example.com" } })).body;
    const year = ctx.deps.clock.now(ctx.merchantId).getUTCFullYear() + 1;
    const start = Date.UTC(year, 0, 31, 9);
    const on31 = await schedule(ctx, { rule: `FREQ=MONTHLY;DTSTART=${ical(start)}`, customer_id: who.id });
    const last = await schedule(ctx, {
      rule: `FREQ=MONTHLY;BYMONTHDAY=-1;DTSTART=${ical(start)}`,
      customer_id: who.id,
    });
    await advanceTo(ctx, Date.UTC(year, 11, 31, 12));
    const days = async (id: string) =>
      (await scheduleInvoices(ctx, id)).map((i: { created_at: string }) => i.created_at.slice(5, 10));
    expect(await days(on31.id)).toEqual(["01-31", "03-31", "05-31", "07-31", "08-31", "10-31", "12-31"]);
    const leap = new Date(Date.UTC(year, 1, 29)).getUTCDate() === 29;
    expect(await days(last.id)).toEqual([
      "01-31",
      leap ? "02-29" : "02-28",
      "03-31",
      "04-30",
      "05-31",
      "06-30",
      "07-31",
      "08-31",
      "09-30",
      "10-31",
      "11-30",
      "12-31",
    ]);
    // Without a payment method each invoice is e-mailed to the customer to pay.
    const invoices = await scheduleInvoices(ctx, last.id);
    expect(invoices.every((i: { status: string; sent_at: string }) => i.status === "DRAFT" && i.sent_at)).toBe(true);
  }, 60_000);

  test("COUNT ends the schedule (COMPLETED); paused and deleted schedules make nothing; resuming skips what passed", async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx);
    const at = monthly(ctx);
    const rule = `FREQ=MONTHLY;DTSTART=${ical(at(0))}`;
    const counted = await schedule(ctx, { rule: `${rule};COUNT=3`, payment_method_id: pm.id });
    const paused = await schedule(ctx, { rule, payment_method_id: pm.id, email_notification: false });
    const deleted = await schedule(ctx, { rule, payment_method_id: pm.id });
    await ctx.call("PUT", `/invoice/schedule/${paused.id}`, { body: { active: false } });
    await ctx.call("DELETE", `/invoice/schedule/${deleted.id}`);
    await advanceTo(ctx, at(4) + DAY);
    expect(await scheduleInvoices(ctx, counted.id)).toHaveLength(3);
    expect((await ctx.call("GET", `/invoice/schedule/${counted.id}`)).body).toMatchObject({
      status: "COMPLETED",
      count: 3,
      next_run_at: null,
      max: 3,
    });
    expect(await scheduleInvoices(ctx, paused.id)).toHaveLength(0);
    expect(await scheduleInvoices(ctx, deleted.id)).toHaveLength(0);
    const resumed = await ctx.call("PUT", `/invoice/schedule/${paused.id}`, { body: { active: true } });
    expect(resumed.body).toMatchObject({ status: "ACTIVE", next_run_at: stamp(at(5)) });
    await advanceTo(ctx, at(5) + DAY);
    const invoices = await scheduleInvoices(ctx, paused.id);
    expect(invoices.map((i: { created_at: string; sent_at: string | null }) => [i.created_at, i.sent_at])).toEqual([
      [stamp(at(5)), null],
    ]);
    // email_notification false: no e-mail for it at all.
    expect(await emailsOf(ctx, invoices[0].id)).toEqual([]);
  }, 60_000);

  test("a customer deleted between occurrences pauses the schedule; a card that expired is not charged", async () => {
    const ctx = await setup();
    const at = monthly(ctx);
    const rule = `FREQ=MONTHLY;DTSTART=${ical(at(0))}`;
    const who = (await ctx.call("POST", "/customer", { body: { firstname: "Ann", email: "ann@example.com" } })).body;
    const gone = await schedule(ctx, { rule, customer_id: who.id });
    const exp = new Date(at(1));
    const cardExp = `${String(exp.getUTCMonth() + 1).padStart(2, "0")}${String(exp.getUTCFullYear()).slice(2)}`;
    const expiring = await tokenize(ctx, { card_exp: cardExp });
    const card = await schedule(ctx, { rule, payment_method_id: expiring.id });
    await advanceTo(ctx, at(0) + DAY);
    await ctx.call("DELETE", `/customer/${who.id}`);
    await advanceTo(ctx, at(2) + DAY);
    expect(await scheduleInvoices(ctx, gone.id)).toHaveLength(1);
    expect((await ctx.call("GET", `/invoice/schedule/${gone.id}`)).body).toMatchObject({ status: "PAUSED", count: 1 });
    const paid = await scheduleInvoices(ctx, card.id);
    expect(paid.map((i: { status: string }) => i.status)).toEqual(["PAID", "PAID", "DRAFT"]);
    expect(paid[2].child_transactions).toEqual([]);
  }, 60_000);
});
