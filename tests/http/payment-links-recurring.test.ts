/**
 * What a payment link's link_meta.frequency / rrule and tokenizeOnly do (issue 30; the real
 * description names them and says no more: docs/contract.md "Payment links"). A recurring link's
 * approved payment starts an invoice schedule for the payer, which the sandbox clock then runs; a
 * tokenizeOnly link's page saves the payment method and charges nothing. Through the real app,
 * on SQLite and, with PAYSANDBOX_TEST_DB=postgres, on PostgreSQL.
 */
import { describe, expect, test } from "bun:test";
import { LINK_MESSAGES } from "../../src/services/catalog/link-rules";
import { SCHEDULE_MESSAGES } from "../../src/services/invoice-schedules";
import { setup, tokenize, type TestContext } from "../support/app";

const DAY = 86_400_000;
const DECLINING_VISA = "4012888888881881";

async function link(ctx: TestContext, body: Record<string, unknown>) {
  const res = await ctx.call("POST", "/query/payment-links", { body: { common_name: "Gym", ...body } });
  if (res.status !== 201) throw new Error(`POST /query/payment-links: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.body as { id: string; tinyurl: string; amount: number; link_meta: Record<string, unknown> };
}

const payer = { firstname: "Ada", lastname: "Lovelace", email: "ada@example.com" };

async function payLink(ctx: TestContext, id: string, card: Record<string, unknown> = {}) {
  const pm = await tokenize(ctx, card);
  const res = await ctx.call("POST", `/webpayment/${ctx.token}/payment-link/${id}/pay`, {
    body: { payment_method_id: pm.id, ...payer },
    auth: false,
  });
  return { pm, res };
}

const schedules = async (ctx: TestContext) => (await ctx.call("GET", "/invoice/schedule")).body.data;
const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");

async function advance(ctx: TestContext, ms: number) {
  const res = await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds: ms / 1000 }, auth: false });
  expect(res.status).toBe(200);
}

describe("a recurring payment link", () => {
  test("its approved payment starts the payer's schedule from then, which the clock runs", async () => {
    const ctx = await setup();
    const made = await link(ctx, {
      amount: 25,
      link_meta: { frequency: "monthly", memo: "Membership" },
    });
    const hook = await ctx.call("POST", "/webhook", { body: { target_url: "http://127.0.0.1:9/hook", event: "*" } });
    expect(hook.status).toBe(200);
    const { pm, res } = await payLink(ctx, made.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "PAID", total: 25 });
    const paidAt = res.body.created_at as string;
    const [schedule] = await schedules(ctx);
    expect(schedule).toMatchObject({
      customer_id: pm.customer_id,
      payment_method_id: pm.id,
      total: 25,
      status: "ACTIVE",
      count: 0,
      rule_text: "every month",
      email_notification: true,
    });
    expect(schedule.meta).toMatchObject({ payment_link_id: made.id, memo: "Membership", reference: "Gym" });
    // The link's payment was the rule's first occurrence (DTSTART: the payment, to the second the
    // schedule was stored in its unit of work; the clock runs on meanwhile): it bills a month after.
    const paid = new Date(`${paidAt.replace(" ", "T")}Z`).getTime();
    const [, y, mo, d, h, mi, se] = /DTSTART=(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z/.exec(schedule.rule)!.map(Number);
    const start = Date.UTC(y!, mo! - 1, d!, h!, mi!, se!);
    expect(start - paid).toBeGreaterThanOrEqual(0);
    expect(start - paid).toBeLessThanOrEqual(5000);
    const month = new Date(start);
    month.setUTCMonth(month.getUTCMonth() + 1);
    // From the 29th on, RFC 5545 skips months without that day: only the days every month has are exact.
    if (new Date(start).getUTCDate() <= 28) expect(schedule.next_run_at).toBe(stamp(month.getTime()));
    else expect(schedule.next_run_at > stamp(start)).toBe(true);
    const deliveries = (await ctx.call("GET", "/_sandbox/webhook-deliveries?per_page=100")).body.data;
    const events = deliveries.map((d: { event: string; record_id: string }) => [d.event, d.record_id]);
    expect(events).toContainEqual(["create_scheduled_invoice", schedule.id]);

    await advance(ctx, 65 * DAY);
    const after = (await ctx.call("GET", `/invoice/schedule/${schedule.id}`)).body;
    expect(after.count).toBe(2);
    const invoices = (await ctx.call("GET", "/invoice?per_page=50")).body.data;
    const billed = invoices.filter((i: { schedule_id: string }) => i.schedule_id === schedule.id);
    expect(billed.map((i: { status: string; total: number }) => [i.status, i.total])).toEqual([
      ["PAID", 25],
      ["PAID", 25],
    ]);
    expect(billed[0].child_transactions[0]).toMatchObject({ schedule_id: schedule.id, payment_method_id: pm.id });
    // The schedule's charges are not the link's sales: only its page's payment is.
    const stats = (await ctx.call("GET", `/query/payment-links/${made.id}`)).body.data;
    expect(stats).toMatchObject({ uses: 1, total_sales: 25, total_transactions: 1 });
  }, 60_000);

  test("an RRULE frequency with COUNT counts the link's payment; a declined payment starts nothing", async () => {
    const ctx = await setup();
    const made = await link(ctx, { amount: 10, link_meta: { rrule: true, frequency: "FREQ=WEEKLY;COUNT=3" } });
    const declined = await payLink(ctx, made.id, { card_number: DECLINING_VISA });
    expect(declined.res.status).toBe(402);
    expect(await schedules(ctx)).toEqual([]);
    const { res } = await payLink(ctx, made.id);
    expect(res.status).toBe(200);
    const [schedule] = await schedules(ctx);
    expect(schedule).toMatchObject({ max: 3, rule_text: "every week for 3 times" });
    await advance(ctx, 30 * DAY);
    // Three in all: the link's payment and two weekly charges.
    expect((await ctx.call("GET", `/invoice/schedule/${schedule.id}`)).body).toMatchObject({
      count: 2,
      status: "COMPLETED",
    });
  }, 60_000);

  test("a rule that cannot run, one with DTSTART, rrule true without a frequency are 422s that write nothing", async () => {
    const ctx = await setup();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ frequency: "fortnightly-ish" }, "link_meta.frequency", "not an iCalendar RRULE"],
      [{ frequency: "FREQ=HOURLY" }, "link_meta.frequency", SCHEDULE_MESSAGES.ruleFrequency],
      [{ frequency: "FREQ=MONTHLY;DTSTART=20300101T000000Z" }, "link_meta.frequency", LINK_MESSAGES.frequencyStart],
      [{ rrule: true }, "link_meta.frequency", LINK_MESSAGES.frequencyRequired],
      [{ rrule: "FREQ=DAILY;BYHOUR=3" }, "link_meta.rrule", "BYHOUR"],
      [{ frequency: "monthly", tokenizeOnly: true }, "link_meta.tokenizeOnly", LINK_MESSAGES.recurringTokenizeOnly],
    ];
    for (const [meta, field, message] of cases) {
      const res = await ctx.call("POST", "/query/payment-links", {
        body: { common_name: "Bad", amount: 5, link_meta: meta },
      });
      expect([JSON.stringify(meta), res.status]).toEqual([JSON.stringify(meta), 422]);
      expect(res.body.errors[field]?.join(" ")).toContain(message);
    }
    expect((await ctx.call("GET", "/query/payment-links")).body.data.total).toBe(0);
    // once (the real page's default) is a link paid once.
    const once = await link(ctx, { amount: 5, link_meta: { frequency: "once" } });
    expect((await payLink(ctx, once.id)).res.status).toBe(200);
    expect(await schedules(ctx)).toEqual([]);
  });

  test("its page says how it bills; the dashboard shows what each kind of link does", async () => {
    const ctx = await setup();
    const made = await link(ctx, { amount: 9, link_meta: { frequency: "weekly" } });
    const page = await ctx.call("GET", `/hosted/link/${made.id}`, { auth: false });
    expect(String(page.body)).toContain("Billed every week");
    const kind = async (id: string) =>
      String((await ctx.call("GET", `/dashboard/payment-links/${id}`, { auth: false })).body);
    expect(await kind(made.id)).toContain("recurring (FREQ=WEEKLY)");
    const saving = await link(ctx, { link_meta: { tokenizeOnly: true } });
    expect(await kind(saving.id)).toContain("charges nothing");
    expect(await kind((await link(ctx, { amount: 3 })).id)).toContain("one payment");
  });
});

describe("a tokenizeOnly payment link", () => {
  test("needs no amount; its page's …/save keeps the payment method, charges nothing and counts a use", async () => {
    const ctx = await setup();
    const made = await link(ctx, { max_uses: 1, link_meta: { tokenizeOnly: true } });
    expect(made.amount).toBe(0);
    const pm = await tokenize(ctx);
    const saved = await ctx.call("POST", `/webpayment/${ctx.token}/payment-link/${made.id}/save`, {
      body: { payment_method_id: pm.id },
      auth: false,
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ id: pm.id, customer_id: pm.customer_id, card_last_four: "1111" });
    expect((await ctx.call("GET", "/invoice")).body.total).toBe(0);
    expect((await ctx.call("GET", "/transaction")).body.total).toBe(0);
    expect((await ctx.call("GET", `/customer/${pm.customer_id}/payment-method`)).body.map((p: any) => p.id)).toContain(
      pm.id,
    );
    const after = (await ctx.call("GET", `/query/payment-links/${made.id}`)).body.data;
    expect(after).toMatchObject({ uses: 1, total_sales: 0, total_transactions: 0, inactive_reason: "used_up" });
    // Single-use: a second save is refused, and so is paying through it.
    const again = await ctx.call("POST", `/webpayment/${ctx.token}/payment-link/${made.id}/save`, {
      body: { payment_method_id: pm.id },
      auth: false,
    });
    expect(again.status).toBe(422);
    expect(again.body.reason).toBe("used_up");
  });

  test("…/pay on it and …/save on a link that charges are 422 invalid_state, nothing written", async () => {
    const ctx = await setup();
    const saving = await link(ctx, { link_meta: { tokenizeOnly: true } });
    const pay = await payLink(ctx, saving.id);
    expect(pay.res.status).toBe(422);
    expect(pay.res.body).toMatchObject({ code: "invalid_state", reason: "tokenize_only" });
    const charging = await link(ctx, { amount: 5 });
    const save = await ctx.call("POST", `/webpayment/${ctx.token}/payment-link/${charging.id}/save`, {
      body: { payment_method_id: pay.pm.id },
      auth: false,
    });
    expect(save.status).toBe(422);
    expect(save.body).toMatchObject({ code: "invalid_state", reason: "charges" });
    expect((await ctx.call("GET", "/invoice")).body.total).toBe(0);
    for (const id of [saving.id, charging.id])
      expect((await ctx.call("GET", `/query/payment-links/${id}`)).body.data.uses).toBe(0);
    const page = await ctx.call("GET", `/hosted/link/${saving.id}`, { auth: false });
    expect(String(page.body)).toContain("Nothing is charged now.");
    expect(String(page.body)).not.toContain('id="link-amount"');
  });
});
