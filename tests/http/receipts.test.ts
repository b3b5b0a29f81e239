import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer, type AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { ConfigError, loadConfig } from "../../src/entry/cli";
import { MESSAGES } from "../../packages/rules/messages";
import { DECLINE_MESSAGES } from "../../src/domain/gateway";
import { otherMerchant, setup, tokenize, type TestContext } from "../support/app";
import { startSmtpReceiver, type ReceivedMail, type SmtpReceiver } from "../support/smtp-receiver";
import { sql } from "../../src/storage/database";

const DETAILS = {
  total: 30,
  firstname: "Ada",
  lastname: "Lovelace",
  email: "ada@example.com",
  phone: "5555550100",
  address_1: "1 Analytical Way",
  address_city: "London",
  address_state: "LN",
  meta: {
    reference: "ORD-42",
    memo: "Brass gears",
    subtotal: 27.5,
    tax: "2.50",
    lineItems: [
      { id: "g1", item: "Gear", details: "large", quantity: 2, price: 10 },
      { item: "Spring", details: "steel", quantity: 1, price: "7.50" },
    ],
  },
};

/** pay() over the wire: tokenize, invoice, pay. Returns the pay answer. */
async function pay(ctx: TestContext, details: Record<string, unknown> = {}, card: Record<string, unknown> = {}) {
  const pm = await tokenize(ctx, card);
  const invoice = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
    body: { ...DETAILS, payment_method_id: pm.id, ...details },
    auth: false,
  });
  if (invoice.status !== 200) throw new Error(`invoice: ${JSON.stringify(invoice.body)}`);
  return ctx.call("POST", `/webpayment/${ctx.token}/invoice/${invoice.body.id}/pay`, {
    body: { payment_method_id: pm.id },
    auth: false,
  });
}

const latest = async (ctx: TestContext) => (await ctx.call("GET", "/_sandbox/emails/latest", { auth: false })).body;
const emailCount = async (ctx: TestContext) => (await ctx.call("GET", "/_sandbox/emails", { auth: false })).body.total;

describe("receipt e-mails of pay()", () => {
  test("a successful pay() e-mails one receipt with totals, method, items and the hosted invoice link", async () => {
    const ctx = await setup();
    const paid = await pay(ctx);
    expect(paid.status).toBe(200);
    const invoice = paid.body;
    expect(await emailCount(ctx)).toBe(1);
    const email = await latest(ctx);
    expect(email.to).toBe("ada@example.com");
    expect(email.kind).toBe("receipt");
    expect(email.invoice_id).toBe(invoice.id);
    expect(email.transaction_id).toBe(invoice.child_transactions[0].id);
    expect(email.subject).toBe("Payment received: $30.00 to Sandbox Merchant");
    expect(email.relay_status).toBe("off");
    const link = `http://localhost:7290/hosted/invoice/${invoice.id}`;
    for (const part of [email.text, email.html]) {
      expect(part).toContain("Sandbox Merchant");
      expect(part).toContain("$30.00");
      expect(part).toContain("Visa");
      expect(part).toContain("1111");
      expect(part).toContain(invoice.child_transactions[0].created_at);
      expect(part).toContain("ORD-42");
      expect(part).toContain("Brass gears");
      expect(part).toContain("$27.50");
      expect(part).toContain("$2.50");
      expect(part).toContain("Gear");
      expect(part).toContain("Spring");
      expect(part).toContain("$20.00"); // 2 x 10.00
      expect(part).toContain(link);
      expect(part).not.toContain("/hosted/pay/");
    }
    expect(email.html).toContain('<table class="line-items"');
    expect(email.html).toContain(`href="${link}"`);
    // One "Total" row (beside Subtotal and Tax), in the HTML as in the text.
    expect(email.html.match(/>Total</g)).toHaveLength(1);
    expect(email.html.match(/>Subtotal</g)).toHaveLength(1);
    expect(email.text.match(/^Total:/gm)).toHaveLength(1);
  });

  test("the charge of a pay() that e-mails a receipt has receipt_email_at, in the answer, on GET and in its webhook", async () => {
    const ctx = await setup();
    const created: any[] = [];
    ctx.deps.events.on((_ex, e) => void (e.name === "create_transaction" && created.push(e.record)));
    const paid = await pay(ctx);
    const charge = paid.body.child_transactions[0];
    const email = await latest(ctx);
    expect(charge.receipt_email_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(email.transaction_id).toBe(charge.id);
    const read = (await ctx.call("GET", `/transaction/${charge.id}`)).body;
    expect(read.receipt_email_at).toBe(charge.receipt_email_at);
    expect(created.map((r) => r.receipt_email_at)).toEqual([charge.receipt_email_at]);
    // A declined attempt e-mails its receipt too; with send_receipt false nothing is sent or stamped.
    const declined = await pay(ctx, {}, { card_number: "4000000000009995" });
    expect(declined.body.invoice.child_transactions[0].receipt_email_at).not.toBeNull();
    const quiet = await pay(ctx, { send_receipt: false });
    expect(quiet.body.child_transactions[0].receipt_email_at).toBeNull();
  });

  test("a declined pay() e-mails the decline message and the hosted payment page link", async () => {
    const ctx = await setup();
    const declined = await pay(ctx, {}, { card_number: "4000000000009995" });
    expect(declined.status).toBe(402);
    const email = await latest(ctx);
    expect(email.kind).toBe("receipt_failed");
    expect(email.subject).toContain("Payment failed");
    const link = `http://localhost:7290/hosted/pay/${declined.body.invoice.id}`;
    for (const part of [email.text, email.html]) {
      expect(part).toContain(DECLINE_MESSAGES.insufficient_funds);
      expect(part).toContain(link);
      expect(part).not.toContain("/hosted/invoice/");
    }
  });

  test("the invoice link is the invoice's url plus its id", async () => {
    const ctx = await setup();
    const paid = await pay(ctx, { url: "https://shop.example/i/" });
    const email = await latest(ctx);
    expect(email.text).toContain(`https://shop.example/i/${paid.body.id}`);
  });

  test("a url that is not a web address never becomes a link: the sandbox's hosted invoice is used", async () => {
    const ctx = await setup();
    const paid = await pay(ctx, { url: "javascript:alert(1)//" });
    expect(paid.body.url).toBe("javascript:alert(1)//");
    const email = await latest(ctx);
    for (const part of [email.text, email.html]) {
      expect(part).toContain(`http://localhost:7290/hosted/invoice/${paid.body.id}`);
      expect(part).not.toContain("javascript:");
    }
  });

  test("send_receipt false sends nothing, and a replayed pay sends no second receipt", async () => {
    const ctx = await setup();
    await pay(ctx, { send_receipt: false });
    expect(await emailCount(ctx)).toBe(0);
    const pm = await tokenize(ctx);
    const invoice = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
      body: { ...DETAILS, payment_method_id: pm.id },
      auth: false,
    });
    const path = `/webpayment/${ctx.token}/invoice/${invoice.body.id}/pay`;
    const headers = { "idempotency-key": "k1" };
    await ctx.call("POST", path, { body: { payment_method_id: pm.id }, headers, auth: false });
    await ctx.call("POST", path, { body: { payment_method_id: pm.id }, headers, auth: false });
    expect(await emailCount(ctx)).toBe(1);
  });

  test("the receipt is stored with its payment: sent_at is in the answer, set once; no receipt, no sent_at", async () => {
    const ctx = await setup();
    const settings = (body: Record<string, unknown>) =>
      ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, { body, auth: false });
    // A declined attempt e-mails its receipt and marks the invoice sent; the approved retry keeps that time.
    const pm = await tokenize(ctx, { card_number: "4000000000009995" });
    const invoice = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
      body: { ...DETAILS, payment_method_id: pm.id },
      auth: false,
    });
    const path = `/webpayment/${ctx.token}/invoice/${invoice.body.id}/pay`;
    const declined = await ctx.call("POST", path, { body: { payment_method_id: pm.id }, auth: false });
    expect(declined.status).toBe(402);
    const sentAt = declined.body.invoice.sent_at;
    expect(sentAt).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect((await latest(ctx)).invoice_id).toBe(invoice.body.id);
    await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds: 3600 }, auth: false });
    const good = await tokenize(ctx);
    const paid = await ctx.call("POST", path, { body: { payment_method_id: good.id }, auth: false });
    expect([paid.status, paid.body.sent_at]).toEqual([200, sentAt]);
    expect((await ctx.call("GET", `/invoice/${invoice.body.id}`)).body).toEqual(paid.body);
    expect(await emailCount(ctx)).toBe(2);
    // With declined receipts off, a declined attempt e-mails nobody and leaves the invoice unsent.
    await settings({ receipt_send_declined: false });
    const quiet = await pay(ctx, {}, { card_number: "4000000000009995" });
    expect([quiet.status, quiet.body.invoice.sent_at]).toEqual([402, null]);
    expect((await ctx.call("GET", `/invoice/${quiet.body.invoice.id}`)).body.sent_at).toBeNull();
    expect(await emailCount(ctx)).toBe(2);
  });

  test("everything the integrator supplied is HTML-escaped in the e-mail", async () => {
    const ctx = await setup();
    await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, { body: { advanced_customization: true } });
    await pay(ctx, {
      firstname: "<b>Ada</b>",
      meta: {
        memo: "<script>alert(1)</script>",
        reference: '"><img src=x onerror=alert(2)>',
        lineItems: [{ item: "<i>Gear</i>", details: "a & b", quantity: 1, price: 1 }],
        invoice_merchant_custom_fields: [{ id: "po", name: "<u>PO</u>", value: "<svg onload=alert(3)>", type: "text" }],
      },
    });
    const email = await latest(ctx);
    expect(email.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(email.html).toContain("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;");
    expect(email.html).toContain("&lt;i&gt;Gear&lt;/i&gt;");
    expect(email.html).toContain("a &amp; b");
    expect(email.html).toContain("&lt;svg onload=alert(3)&gt;");
    expect(email.html).not.toContain("<script>alert");
    expect(email.html).not.toContain("<img src=x");
    expect(email.html).not.toContain("<svg");
    const page = await ctx.call("GET", `/_sandbox/emails/${email.id}.html`, { auth: false });
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
  });

  test("custom fields show only with advanced_customization, and only the visible ones", async () => {
    const ctx = await setup();
    const fields = [
      { id: "po", name: "PO number", value: "PO-77", type: "text", visible: true },
      { id: "dept", name: "Department", value: "Engines", type: "text" },
      { id: "internal", name: "Internal note", value: "SECRET-NOTE", type: "text", visible: false },
    ];
    await pay(ctx, { meta: { ...DETAILS.meta, invoice_merchant_custom_fields: fields } });
    const without = await latest(ctx);
    for (const part of [without.text, without.html]) {
      expect(part).not.toContain("PO-77");
      expect(part).not.toContain("SECRET-NOTE");
    }
    await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, { body: { advanced_customization: true } });
    const self = await ctx.call("GET", "/self");
    expect(self.body.settings.advanced_customization).toBe(true);
    const paid = await pay(ctx, { meta: { ...DETAILS.meta, invoice_merchant_custom_fields: fields } });
    const withFields = await latest(ctx);
    for (const part of [withFields.text, withFields.html]) {
      expect(part).toContain("PO number");
      expect(part).toContain("PO-77");
      expect(part).toContain("Engines");
      expect(part).not.toContain("SECRET-NOTE");
    }
    // Hidden fields are stored as given: the merchant sees them on the record.
    expect(paid.body.meta.invoice_merchant_custom_fields).toEqual(fields);
  });
});

describe("relaying receipts through --smtp", () => {
  let smtp: SmtpReceiver;
  let port = 0;
  let received: ReceivedMail[] = [];

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    ({ port, received } = smtp);
  });

  afterAll(() => smtp.close());

  test("a real SMTP server receives the receipt with its totals, line items and link", async () => {
    const ctx = await setup({ config: { smtpUrl: `smtp://127.0.0.1:${port}` } });
    const paid = await pay(ctx);
    expect(paid.status).toBe(200);
    await ctx.deps.mailer.idle();
    const mine = received.filter((r) => r.parsed.text?.includes(paid.body.id));
    expect(mine).toHaveLength(1);
    const { parsed, envelopeTo } = mine[0]!;
    expect(envelopeTo).toEqual(["ada@example.com"]);
    expect(parsed.subject).toBe("Payment received: $30.00 to Sandbox Merchant");
    expect(parsed.from?.value[0]).toEqual({ name: "Sandbox Merchant", address: "receipts@paysandbox.localhost" });
    const link = `http://localhost:7290/hosted/invoice/${paid.body.id}`;
    expect(parsed.text).toContain("Total: $30.00");
    expect(parsed.text).toContain("Subtotal: $27.50");
    expect(parsed.text).toContain("Tax: $2.50");
    expect(parsed.text).toContain("- 2 x Gear (large) @ $10.00 = $20.00");
    expect(parsed.text).toContain("- 1 x Spring (steel) @ $7.50 = $7.50");
    expect(parsed.text).toContain(link);
    expect(parsed.html).toContain("<td>Gear</td>");
    expect(parsed.html).toContain(`href="${link}"`);
    const email = await latest(ctx);
    expect(email.relay_status).toBe("sent");
    expect(email.relay_error).toBeNull();
    expect(email.relayed_at).not.toBeNull();
  });

  test("a message left pending by a stopped process is relayed when the mailer starts again", async () => {
    const ctx = await setup({ config: { smtpUrl: `smtp://127.0.0.1:${port}` } });
    await pay(ctx, { email: "resume@example.com" });
    await ctx.deps.mailer.idle();
    const email = await latest(ctx);
    // As if the process had stopped between storing the message and relaying it.
    await ctx.deps.db.run(sql`UPDATE emails SET relay_status = 'pending', relayed_at = NULL WHERE id = ${email.id}`);
    const before = received.filter((r) => r.envelopeTo[0] === "resume@example.com").length;
    const worker = ctx.deps.workers.find((w) => w.name === "mailer")!;
    worker.start();
    await worker.stop();
    expect(received.filter((r) => r.envelopeTo[0] === "resume@example.com").length).toBe(before + 1);
    expect((await latest(ctx)).relay_status).toBe("sent");
  });

  test("a dead SMTP relay does not fail pay(): the failure is recorded on the message", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const ctx = await setup({ config: { smtpUrl: `smtp://127.0.0.1:${deadPort}` } });
    const paid = await pay(ctx);
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe("PAID");
    // pay() answered without waiting for the relay: the refused connection may or may not be
    // recorded yet (on PostgreSQL the read often comes after it).
    expect(["pending", "failed"]).toContain((await latest(ctx)).relay_status);
    await ctx.deps.mailer.idle();
    const email = await latest(ctx);
    expect(email.relay_status).toBe("failed");
    expect(email.relay_error).toMatch(/ECONNREFUSED|connect/i);
    // It was never relayed, so it has no relayed_at.
    expect(email.relayed_at).toBeNull();
    expect(ctx.log.lines.some((line) => line.includes("relay") && line.includes(email.id))).toBe(true);
  });
});

describe("a relay that accepts connections but never answers", () => {
  test("pay() answers at once; the relay gives up after its greeting timeout and records why", async () => {
    const sockets: import("node:net").Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const ctx = await setup({ config: { smtpUrl: `smtp://127.0.0.1:${(silent.address() as AddressInfo).port}` } });
      ctx.deps.mailer.timeouts = { ...ctx.deps.mailer.timeouts, greetingMs: 500 }; // the relay's 5 s, shortened
      const paid = await pay(ctx);
      expect(paid.status).toBe(200);
      expect((await latest(ctx)).relay_status).toBe("pending");
      await ctx.deps.mailer.idle();
      const email = await latest(ctx);
      expect(email.relay_status).toBe("failed");
      expect(email.relay_error).toMatch(/greeting|timeout/i);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  }, 20_000);
});

describe("the --smtp option", () => {
  test("accepts smtp:// and smtps:// URLs and refuses anything else with a clear message", () => {
    expect(loadConfig(["--smtp", "smtp://127.0.0.1:2525"], {}).smtpUrl).toBe("smtp://127.0.0.1:2525");
    expect(loadConfig([], { PAYSANDBOX_SMTP_URL: "smtps://mail.example.com" }).smtpUrl).toBe(
      "smtps://mail.example.com",
    );
    expect(() => loadConfig(["--smtp", "http://mail.example.com"], {})).toThrow(ConfigError);
    expect(() => loadConfig(["--smtp", "smtp://"], {})).toThrow(
      '--smtp expects smtp://host:port (or smtps://), got "smtp://"',
    );
  });
});

describe("the e-mail outbox API", () => {
  test("lists newest first in the page envelope, filters by recipient, and serves JSON, .html and .eml", async () => {
    const ctx = await setup();
    await pay(ctx, { email: "first@example.com" });
    await pay(ctx, { email: "second@example.com" });
    const list = await ctx.call("GET", "/_sandbox/emails?per_page=1", { auth: false });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.last_page).toBe(2);
    expect(list.body.data[0].to).toBe("second@example.com");
    expect(list.body.next_page_url).toContain("page=2");
    const filtered = await ctx.call("GET", "/_sandbox/emails?to=FIRST@example.com", { auth: false });
    expect(filtered.body.data.map((e: { to: string }) => e.to)).toEqual(["first@example.com"]);
    const id = filtered.body.data[0].id;
    const one = await ctx.call("GET", `/_sandbox/emails/${id}`, { auth: false });
    expect(one.body.id).toBe(id);
    expect(one.body.html_url).toBe(`http://localhost:7290/_sandbox/emails/${id}.html`);
    const page = await ctx.call("GET", `/_sandbox/emails/${id}.html`, { auth: false });
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.body).toBe(one.body.html);
    const eml = await ctx.call("GET", `/_sandbox/emails/${id}.eml`, { auth: false });
    expect(eml.headers.get("content-type")).toContain("message/rfc822");
    const parsed = await simpleParser(eml.body as string);
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.text : "").toBe("first@example.com");
    expect(parsed.text).toContain("Total: $30.00");
    expect(parsed.html).toBe(one.body.html);
    expect((await ctx.call("GET", "/_sandbox/emails/nope", { auth: false })).status).toBe(404);
  });

  test("an id holding a line break is an unknown e-mail (404), not an internal error", async () => {
    // Found by npm run fuzz: the id pattern's "." did not match a line break, and the route threw.
    const ctx = await setup();
    await pay(ctx, { email: "first@example.com" });
    for (const id of ["abc%0D", "abc%0A.html", "%0D%0A.eml", "latest%0A", "%F1%A2%B4%B6%0D"]) {
      for (const auth of [false, ctx.apiKey] as const) {
        const res = await ctx.call("GET", `/_sandbox/emails/${id}`, { auth });
        expect({ id, status: res.status, code: res.body.code }).toEqual({ id, status: 404, code: "not_found" });
      }
    }
  });

  test("the .eml is composed once: the same bytes on every read, with the record's Message-ID and its time sent", async () => {
    const ctx = await setup();
    await pay(ctx, { email: "dated@example.com" });
    const record = (await ctx.call("GET", "/_sandbox/emails/latest", { auth: ctx.apiKey })).body;
    // Two first readers at once, then a third: one message.
    const reads = await Promise.all(
      [1, 2].map(() => ctx.call("GET", `/_sandbox/emails/${record.id}.eml`, { auth: false })),
    );
    const again = await ctx.call("GET", `/_sandbox/emails/${record.id}.eml`, { auth: false });
    expect(reads[0]!.status).toBe(200);
    expect(reads[1]!.body).toBe(reads[0]!.body);
    expect(again.body).toBe(reads[0]!.body);
    const parsed = await simpleParser(again.body as string);
    expect(parsed.messageId).toBe(record.message_id);
    expect(record.message_id).toMatch(/^<[0-9a-f-]{36}@paysandbox\.localhost>$/);
    expect(parsed.date?.toISOString().slice(0, 19).replace("T", " ")).toBe(record.created_at);
    expect(parsed.from?.value).toEqual([{ name: "Sandbox Merchant", address: "receipts@paysandbox.localhost" }]);
    expect(parsed.headers.get("x-paysandbox-kind")).toBe("receipt");
    expect(parsed.html).toBe(record.html);
  });

  test("lists and latest act on the merchant of the API key sent", async () => {
    const ctx = await setup();
    await pay(ctx);
    const other = await otherMerchant(ctx);
    const theirs = await ctx.call("GET", "/_sandbox/emails", { auth: other.api_key });
    expect(theirs.body.total).toBe(0);
    expect((await ctx.call("GET", "/_sandbox/emails/latest", { auth: other.api_key })).status).toBe(404);
    expect((await ctx.call("GET", "/_sandbox/emails", { auth: ctx.apiKey })).body.total).toBe(1);
  });

  test("a message id is 404 to another merchant's key, and opens as is without a key", async () => {
    const ctx = await setup();
    await pay(ctx);
    const other = await otherMerchant(ctx);
    const { id } = (await ctx.call("GET", "/_sandbox/emails/latest", { auth: ctx.apiKey })).body;
    for (const suffix of ["", ".html", ".eml"]) {
      expect((await ctx.call("GET", `/_sandbox/emails/${id}${suffix}`, { auth: other.api_key })).status).toBe(404);
      expect((await ctx.call("GET", `/_sandbox/emails/${id}${suffix}`, { auth: ctx.apiKey })).status).toBe(200);
      expect((await ctx.call("GET", `/_sandbox/emails/${id}${suffix}`, { auth: false })).status).toBe(200);
    }
  });

  test("card numbers and CVVs never reach an e-mail", async () => {
    const ctx = await setup();
    await pay(ctx);
    const eml = await ctx.call("GET", "/_sandbox/emails/latest.eml", { auth: false });
    expect(eml.body).not.toContain("4111111111111111");
    expect(eml.body).not.toContain("4111 1111");
  });
});

describe("POST /transaction/{id}/receipt-email and /receipt-sms", () => {
  test("e-mails a receipt to the customer by default and sets receipt_email_at", async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx);
    const charge = await ctx.call("POST", "/charge", {
      body: { payment_method_id: pm.id, total: 12.34, meta: { reference: "R-9", memo: "Direct" } },
    });
    expect(charge.body.receipt_email_at).toBeNull();
    const sent = await ctx.call("POST", `/transaction/${charge.body.id}/receipt-email`, { body: {} });
    expect(sent.status).toBe(200);
    expect(sent.body.id).toBe(charge.body.id);
    expect(sent.body.receipt_email_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const email = await latest(ctx);
    expect(email.kind).toBe("transaction_receipt");
    expect(email.to).toBe("ada@example.com");
    expect(email.text).toContain("$12.34");
    expect(email.text).toContain("R-9");
    expect(email.transaction_id).toBe(charge.body.id);
    const read = await ctx.call("GET", `/transaction/${charge.body.id}`);
    expect(read.body.receipt_email_at).toBe(sent.body.receipt_email_at);
  });

  test("e-mails a given address, and refuses an invalid one with a per-field 422", async () => {
    const ctx = await setup();
    const paid = await pay(ctx);
    const txn = paid.body.child_transactions[0];
    const sent = await ctx.call("POST", `/transaction/${txn.id}/receipt-email`, {
      body: { email: "boss@example.com" },
    });
    expect(sent.status).toBe(200);
    const email = await latest(ctx);
    expect(email.to).toBe("boss@example.com");
    expect(email.text).toContain(`/hosted/invoice/${paid.body.id}`);
    const bad = await ctx.call("POST", `/transaction/${txn.id}/receipt-email`, { body: { email: "nope" } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.email).toEqual([MESSAGES.email]);
  });

  test("refuses when there is no address at all, and answers 404 for another merchant's transaction", async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx, { email: undefined });
    const charge = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 5 } });
    const none = await ctx.call("POST", `/transaction/${charge.body.id}/receipt-email`);
    expect(none.status).toBe(422);
    expect(none.body.errors.email).toEqual([MESSAGES.required("email")]);
    const other = await otherMerchant(ctx);
    const foreign = await ctx.call("POST", `/transaction/${charge.body.id}/receipt-email`, {
      body: { email: "x@example.com" },
      auth: other.api_key,
    });
    expect(foreign.status).toBe(404);
    expect((await ctx.call("POST", `/transaction/${charge.body.id}/receipt-email`, { auth: false })).status).toBe(401);
  });

  test("texts a receipt to the SMS outbox and sets receipt_sms_at", async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx);
    const charge = await ctx.call("POST", "/charge", {
      body: { payment_method_id: pm.id, total: 8, meta: { reference: "S-1" } },
    });
    const sent = await ctx.call("POST", `/transaction/${charge.body.id}/receipt-sms`, { body: {} });
    expect(sent.status).toBe(200);
    expect(sent.body.receipt_sms_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const toGiven = await ctx.call("POST", `/transaction/${charge.body.id}/receipt-sms`, {
      body: { phone: "5555550199" },
    });
    expect(toGiven.status).toBe(200);
    const sms = await ctx.call("GET", "/_sandbox/sms", { auth: false });
    expect(sms.body.total).toBe(2);
    expect(sms.body.data[0].to).toBe("5555550199");
    expect(sms.body.data[1].to).toBe("5555550100");
    expect(sms.body.data[1].body).toContain("$8.00");
    expect(sms.body.data[1].body).toContain("Visa ending in 1111");
    expect(sms.body.data[1].body).toContain("S-1");
    expect(sms.body.data[1].transaction_id).toBe(charge.body.id);
    const filtered = await ctx.call("GET", "/_sandbox/sms?to=5555550199", { auth: false });
    expect(filtered.body.total).toBe(1);
    const bad = await ctx.call("POST", `/transaction/${charge.body.id}/receipt-sms`, { body: { phone: "123" } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.phone).toEqual([MESSAGES.minLength("phone", 10)]);
    expect((await ctx.call("GET", "/_sandbox/sms", { auth: false })).body.total).toBe(2);
  });
});
