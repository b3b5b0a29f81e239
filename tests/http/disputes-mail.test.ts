/**
 * The merchant's dispute e-mail goes out through a real SMTP server (--smtp) as soon as the
 * dispute opens, on the clock or through POST /_sandbox/disputes, and not only when the sandbox
 * next starts: it is relayed once the unit of work that opened the dispute has committed. Both
 * databases.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CARD, setup, tokenize, waitFor } from "../support/app";
import { HOUR, startWeek } from "../support/settlement";
import { startSmtpReceiver, type SmtpReceiver } from "../support/smtp-receiver";

const FRAUD_CARD = "4000000000000259"; // FRAUD, 3 days after settlement

let smtp: SmtpReceiver;
beforeAll(async () => {
  smtp = await startSmtpReceiver();
});
afterAll(() => smtp.close());

const disputeMails = (id: string) =>
  smtp.received.filter((mail) => mail.parsed.subject?.startsWith("Dispute opened") && mail.parsed.text?.includes(id));

/** The dispute's e-mails once the SMTP server has one. */
const relayed = (id: string) =>
  waitFor(() => disputeMails(id).length > 0, 5000, "the dispute e-mail").then(() => disputeMails(id));

describe("a dispute's e-mail through a real SMTP server", () => {
  test("opened on the clock: relayed when the midnight that opened it commits", async () => {
    const ctx = await setup({ config: { smtpUrl: smtp.url } });
    const week = await startWeek(ctx);
    const pm = await tokenize(ctx, { ...CARD, card_number: FRAUD_CARD });
    const sale = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 100 } });
    expect(sale.status).toBe(200);
    await week.goTo(week.midnight(4) + HOUR);
    const [dispute] = (await ctx.call("GET", "/underwriting/disputes")).body.data;
    expect(dispute.status).toBe("PENDING");
    await ctx.deps.mailer.idle();
    const mails = await relayed(dispute.id);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.envelopeTo).toEqual(["merchant@paysandbox.localhost"]);
    expect(mails[0]!.parsed.text).toContain(sale.body.id);
    const stored = (await ctx.call("GET", "/_sandbox/emails/latest", { auth: false })).body;
    expect([stored.kind, stored.relay_status]).toEqual(["dispute", "sent"]);
  });

  test("opened by POST /_sandbox/disputes: relayed at once; a refused one sends nothing", async () => {
    const ctx = await setup({ config: { smtpUrl: smtp.url } });
    const week = await startWeek(ctx);
    const sale = await week.pay(30);
    const bank = await week.pay(30, "bank");
    await week.goTo(week.midnight(4) + HOUR);
    const before = smtp.received.length;
    const refused = await ctx.call("POST", "/_sandbox/disputes", { body: { transaction_id: bank.id } });
    expect(refused.status).toBe(422);
    const opened = await ctx.call("POST", "/_sandbox/disputes", { body: { transaction_id: sale.id } });
    expect(opened.status).toBe(200);
    await ctx.deps.mailer.idle();
    const mails = await relayed(opened.body.id);
    expect(mails).toHaveLength(1);
    expect(smtp.received.length).toBe(before + 1);
  });
});
