/**
 * The merchant's Advanced Customization fields and receipt options (issue 18's Settings): set
 * through PUT /_sandbox/merchants/{id}/settings, read back from GET /self, and what they change —
 * POST /invoice's required fields, the hosted invoice page, the dashboard's invoice page, the
 * receipt e-mail in the outbox and as a real SMTP server receives it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { simpleParser } from "mailparser";
import { startSmtpReceiver, type ReceivedMail, type SmtpReceiver } from "../support/smtp-receiver";
import { setup, tokenize, type TestContext } from "../support/app";

const FIELDS = [
  { id: "po_number", name: "PO number", placeholder: "Ex. PO-123", required: true, visible: true },
  { id: "internal_code", name: "Internal code", required: false, visible: false },
];

const RECEIPTS = {
  receipt_reply_to: "billing@merchant.example",
  receipt_cc: ["books@merchant.example", "owner@merchant.example"],
  receipt_footer: "Returns within 30 days. Thank you!",
};

async function configure(ctx: TestContext, settings: Record<string, unknown>) {
  const res = await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, { body: settings, auth: false });
  expect(res.status).toBe(200);
  return res.body;
}

async function customer(ctx: TestContext) {
  const res = await ctx.call("POST", "/customer", {
    body: { firstname: "Ada", lastname: "Lovelace", email: "ada@example.com" },
  });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

const PAYER = {
  firstname: "Ada",
  lastname: "Lovelace",
  email: "ada@example.com",
  phone: "5555550100",
  address_1: "1 Analytical Way",
  address_city: "London",
  address_state: "LN",
};

/** pay() over the wire with the invoice's custom field values; returns the pay answer. */
async function pay(ctx: TestContext, meta: Record<string, unknown>, card: Record<string, unknown> = {}) {
  const pm = await tokenize(ctx, card);
  const invoice = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
    body: { ...PAYER, total: 12, payment_method_id: pm.id, meta },
    auth: false,
  });
  expect(invoice.status).toBe(200);
  return ctx.call("POST", `/webpayment/${ctx.token}/invoice/${invoice.body.id}/pay`, {
    body: { payment_method_id: pm.id },
    auth: false,
  });
}

const VALUES = {
  invoice_merchant_custom_fields: [
    { id: "po_number", value: "PO-7649" },
    { id: "internal_code", value: "SECRET-CODE-42" },
  ],
};

describe("custom fields and receipt options as settings", () => {
  test("PUT settings stores them; GET /self shows them in settings and merchant.options, normalised", async () => {
    const ctx = await setup();
    const answer = await configure(ctx, { advanced_customization: true, custom_fields: FIELDS, ...RECEIPTS });
    const expected = {
      avs_zip: false,
      avs_street: false,
      advanced_customization: true,
      ach_settlement_days: 2,
      custom_fields: [
        { id: "po_number", name: "PO number", placeholder: "Ex. PO-123", required: true, type: "text", visible: true },
        { id: "internal_code", name: "Internal code", placeholder: "", required: false, type: "text", visible: false },
      ],
      ...RECEIPTS,
      receipt_send_declined: true,
      is_surcharge_enabled: false,
      cnp_credit_surcharge_rate: null,
    };
    expect(answer.settings).toEqual(expected);
    const self = (await ctx.call("GET", "/self")).body;
    expect(self.settings).toEqual(expected);
    expect(self.merchant.options).toEqual(expected);
    // A partial change keeps the rest.
    await configure(ctx, { receipt_footer: "" });
    const after = (await ctx.call("GET", "/self")).body.settings;
    expect(after).toEqual({ ...expected, receipt_footer: "" });
  });

  test("the README's settings example is accepted as written", async () => {
    const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("### Custom fields and receipt options"));
    const json = /-d '(\{[\s\S]*?\})'\n/.exec(section)?.[1];
    expect(json).toBeDefined();
    const answer = await configure(await setup(), JSON.parse(json!));
    expect(answer.settings.custom_fields.map((f: { id: string }) => f.id)).toEqual(["po_number", "internal_code"]);
    expect(answer.settings.receipt_cc).toEqual(["books@merchant.example"]);
  });

  test("every bad value is named in one 422, and nothing is written", async () => {
    const ctx = await setup();
    await configure(ctx, { custom_fields: FIELDS });
    const before = (await ctx.call("GET", "/self")).body.settings;
    const res = await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
      auth: false,
      body: {
        custom_fields: [
          { id: "a", name: "" },
          { id: "a", name: "Twice" },
          { id: "b c", name: "Spaced", type: "number" },
        ],
        receipt_reply_to: "not an address",
        receipt_cc: ["ok@example.com", "nope"],
        receipt_footer: "x".repeat(501),
        ach_settlement_days: 3,
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_error");
    expect(Object.keys(res.body.errors).sort()).toEqual(
      [
        "custom_fields.0.name",
        "custom_fields.1.id",
        "custom_fields.2.id",
        "custom_fields.2.type",
        "receipt_cc",
        "receipt_footer",
        "receipt_reply_to",
      ].sort(),
    );
    expect(res.body.errors["custom_fields.1.id"][0]).toContain("unique");
    expect(res.body.errors.receipt_cc[0]).toContain('"nope"');
    expect(res.body.receipt_reply_to).toEqual(res.body.errors.receipt_reply_to);
    expect((await ctx.call("GET", "/self")).body.settings).toEqual(before);
  });

  test("more than five copies and a repeated address are refused", async () => {
    const ctx = await setup();
    const six = Array.from({ length: 6 }, (_, i) => `c${i}@example.com`);
    for (const receipt_cc of [six, ["a@example.com", "A@example.com"]]) {
      const res = await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
        auth: false,
        body: { receipt_cc },
      });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(["receipt_cc"]);
    }
  });
});

describe("what the custom fields change", () => {
  test("POST /invoice without a value for a required field is a 422 naming it; with one it is created", async () => {
    const ctx = await setup();
    await configure(ctx, { advanced_customization: true, custom_fields: FIELDS });
    const customer_id = await customer(ctx);
    const missing = await ctx.call("POST", "/invoice", {
      body: { customer_id, total: 10, meta: { invoice_merchant_custom_fields: [{ id: "po_number", value: " " }] } },
    });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors)).toEqual(["meta.invoice_merchant_custom_fields.po_number"]);
    expect(missing.body.message).toContain("PO number");
    const none = await ctx.call("POST", "/invoice", { body: { customer_id, total: 10 } });
    expect(none.status).toBe(422);
    expect((await ctx.call("GET", "/invoice")).body.total).toBe(0);
    const ok = await ctx.call("POST", "/invoice", { body: { customer_id, total: 10, meta: VALUES } });
    expect(ok.status).toBe(200);
    expect(ok.body.meta).toEqual(VALUES);
  });

  test("without Advanced Customization the merchant's fields do not apply", async () => {
    const ctx = await setup();
    await configure(ctx, { advanced_customization: false, custom_fields: FIELDS });
    const customer_id = await customer(ctx);
    const res = await ctx.call("POST", "/invoice", { body: { customer_id, total: 10 } });
    expect(res.status).toBe(200);
  });

  test("the hosted invoice shows visible fields with the invoice's values; invisible ones only on the dashboard", async () => {
    const ctx = await setup();
    await configure(ctx, { advanced_customization: true, custom_fields: FIELDS });
    const paid = await pay(ctx, {
      invoice_merchant_custom_fields: [
        ...VALUES.invoice_merchant_custom_fields,
        // A field the merchant does not define keeps the per-invoice behaviour.
        { id: "adhoc", name: "Table", value: "T-9" },
      ],
    });
    expect(paid.status).toBe(200);
    const hosted = await ctx.call("GET", `/hosted/invoice/${paid.body.id}`, { auth: false });
    expect(hosted.status).toBe(200);
    expect(hosted.body).toContain("PO number");
    expect(hosted.body).toContain("PO-7649");
    expect(hosted.body).toContain("Table");
    expect(hosted.body).toContain("T-9");
    expect(hosted.body).not.toContain("Internal code");
    expect(hosted.body).not.toContain("SECRET-CODE-42");
    const dashboard = await ctx.call("GET", `/dashboard/invoices/${paid.body.id}`, { auth: false });
    expect(dashboard.status).toBe(200);
    const section = dashboard.body.slice(dashboard.body.indexOf('id="invoice-custom-fields"'));
    expect(section).toContain("PO number");
    expect(section).toContain("Internal code (merchant only)");
    expect(section).toContain("SECRET-CODE-42");
  });

  test("the receipt e-mail shows the visible fields with their values, never the invisible one", async () => {
    const ctx = await setup();
    await configure(ctx, { advanced_customization: true, custom_fields: FIELDS });
    const paid = await pay(ctx, VALUES);
    expect(paid.status).toBe(200);
    const email = (await ctx.call("GET", "/_sandbox/emails/latest", { auth: false })).body;
    expect(email.invoice_id).toBe(paid.body.id);
    expect(email.text).toContain("PO number: PO-7649");
    expect(email.html).toContain("PO number");
    for (const part of [email.text, email.html]) {
      expect(part).not.toContain("SECRET-CODE-42");
      expect(part).not.toContain("Internal code");
    }
  });
});

describe("what the receipt options change", () => {
  test("the outbox message carries the copies, the reply-to and the footer", async () => {
    const ctx = await setup();
    await configure(ctx, RECEIPTS);
    const paid = await pay(ctx, {});
    expect(paid.status).toBe(200);
    const email = (await ctx.call("GET", "/_sandbox/emails/latest", { auth: false })).body;
    expect(email.cc).toEqual(RECEIPTS.receipt_cc);
    expect(email.reply_to).toBe(RECEIPTS.receipt_reply_to);
    expect(email.text).toContain(RECEIPTS.receipt_footer);
    expect(email.html).toContain('class="receipt-footer"');
    const eml = await ctx.call("GET", `/_sandbox/emails/${email.id}.eml`, { auth: false });
    const parsed = await simpleParser(eml.body as string);
    expect(parsed.cc && !Array.isArray(parsed.cc) ? parsed.cc.value.map((a) => a.address) : []).toEqual(
      RECEIPTS.receipt_cc,
    );
    expect(parsed.replyTo?.value[0]?.address).toBe(RECEIPTS.receipt_reply_to);
    // The dashboard's view of the message says where it went.
    const page = await ctx.call("GET", `/dashboard/emails/${email.id}`, { auth: false });
    expect(page.status).toBe(200);
    expect(page.body).toContain("<dt>Cc</dt>");
    expect(page.body).toContain(RECEIPTS.receipt_cc.join(", "));
    expect(page.body).toContain(RECEIPTS.receipt_reply_to);
  });

  test("without options a receipt has no copies and no reply-to (the defaults)", async () => {
    const ctx = await setup();
    await pay(ctx, {});
    const email = (await ctx.call("GET", "/_sandbox/emails/latest", { auth: false })).body;
    expect(email.cc).toEqual([]);
    expect(email.reply_to).toBeNull();
  });

  test("receipt_send_declined off: a declined pay() e-mails nobody, an approved one still does", async () => {
    const ctx = await setup();
    await configure(ctx, { receipt_send_declined: false });
    const declined = await pay(ctx, {}, { card_number: "4012888888881881" });
    expect(declined.status).toBe(402);
    expect((await ctx.call("GET", "/_sandbox/emails", { auth: false })).body.total).toBe(0);
    const approved = await pay(ctx, {});
    expect(approved.status).toBe(200);
    const emails = (await ctx.call("GET", "/_sandbox/emails", { auth: false })).body;
    expect(emails.total).toBe(1);
    expect(emails.data[0].kind).toBe("receipt");
    // Turned back on, the declined receipt is sent again.
    await configure(ctx, { receipt_send_declined: true });
    await pay(ctx, {}, { card_number: "4012888888881881" });
    expect((await ctx.call("GET", "/_sandbox/emails/latest", { auth: false })).body.kind).toBe("receipt_failed");
  });
});

describe("receipt options through a real SMTP server", () => {
  let smtp: SmtpReceiver;
  let port = 0;
  let received: ReceivedMail[] = [];

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    ({ port, received } = smtp);
  });

  afterAll(() => smtp.close());

  test("the copies get the message (envelope and Cc), replies go to the merchant, the footer is in both parts", async () => {
    const ctx = await setup({ config: { smtpUrl: `smtp://127.0.0.1:${port}` } });
    await configure(ctx, { ...RECEIPTS, advanced_customization: true, custom_fields: FIELDS });
    const paid = await pay(ctx, VALUES);
    expect(paid.status).toBe(200);
    await ctx.deps.mailer.idle();
    const mine = received.filter((r) => r.parsed.text?.includes(paid.body.id));
    expect(mine).toHaveLength(1);
    const { parsed, envelopeTo } = mine[0]!;
    expect(envelopeTo).toEqual(["ada@example.com", ...RECEIPTS.receipt_cc]);
    expect(parsed.cc && !Array.isArray(parsed.cc) ? parsed.cc.value.map((a) => a.address) : []).toEqual(
      RECEIPTS.receipt_cc,
    );
    expect(parsed.replyTo?.value[0]?.address).toBe(RECEIPTS.receipt_reply_to);
    expect(parsed.text).toContain(RECEIPTS.receipt_footer);
    expect(parsed.html).toContain(RECEIPTS.receipt_footer);
    expect(parsed.text).toContain("PO number: PO-7649");
    expect(parsed.text).not.toContain("SECRET-CODE-42");
    expect((await ctx.call("GET", "/_sandbox/emails/latest", { auth: false })).body.relay_status).toBe("sent");
  });

  test("a copy to an address the relay policy does not allow stays in the Cc header but is not relayed to", async () => {
    const ctx = await setup({ config: { smtpUrl: `smtp://127.0.0.1:${port}` } });
    await configure(ctx, { receipt_cc: ["books@example.com", "owner@real-company.com"] });
    const paid = await pay(ctx, {});
    expect(paid.status).toBe(200);
    await ctx.deps.mailer.idle();
    const mine = received.filter((r) => r.parsed.text?.includes(paid.body.id));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.envelopeTo).toEqual(["ada@example.com", "books@example.com"]);
    const email = (await ctx.call("GET", "/_sandbox/emails/latest", { auth: false })).body;
    expect(email.cc).toEqual(["books@example.com", "owner@real-company.com"]);
  });
});
