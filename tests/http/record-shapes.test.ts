/**
 * Each record documented in docs/contract.md §6 against what the API returns: the field lists
 * are read from the document itself, so a field added to the API but not to the docs (or
 * documented but never answered) fails here. The routes' response schemas (which the OpenAPI
 * document publishes) must list the same fields.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TObject } from "@sinclair/typebox";
import { DepositDetailItem, DepositRecord } from "../../src/domain/schemas/deposits";
import { InvoiceRecord } from "../../src/domain/schemas/invoices";
import { ItemRecord } from "../../src/domain/schemas/items";
import { PaymentLinkRecord } from "../../src/domain/schemas/payment-links";
import { EmailRecord, SmsRecord } from "../../src/http/routes/sandbox";
import { DisputeRecord, DisputeStatementRecord } from "../../src/domain/schemas/disputes";
import { DeliveryRecord, WebhookRecord } from "../../src/domain/schemas/webhooks";
import {
  CustomerRecord,
  MerchantCustomFieldRecord,
  MerchantSettingsRecord,
  PaymentMethodRecord,
  TransactionRecord,
} from "../../src/domain/schemas/records";
import { SelfMerchant, SelfRecord, SelfUser } from "../../src/domain/schemas/self";
import { FileRecord } from "../../src/domain/schemas/files";
import { CARD, setup, tokenize } from "../support/app";

const CONTRACT = readFileSync(join(import.meta.dir, "..", "..", "docs", "contract.md"), "utf8");

/** docs/contract.md §6 as { record name → its documented top-level fields }. */
function documentedRecords(): Map<string, string[]> {
  const section = CONTRACT.slice(CONTRACT.indexOf("## 6. Records"), CONTRACT.indexOf("## 7."));
  // A bullet runs to the next bullet or to the paragraph after the list.
  const bullets = section
    .split(/\n(?=- \*\*)/)
    .filter((part) => part.startsWith("- **"))
    .map((part) => part.split("\n\n")[0]!);
  const records = new Map<string, string[]>();
  for (const bullet of bullets) {
    const name = /^- \*\*(\w+)\*\*/.exec(bullet)![1]!;
    // The fields follow the first ": "; parenthesised notes (nested fields, aliases) are not fields.
    let fields = bullet.slice(bullet.indexOf(": ") + 2).replace(/\s+/g, " ");
    for (let before = ""; before !== fields;) [before, fields] = [fields, fields.replace(/\([^()]*\)/g, "")];
    const own = [...fields.matchAll(/`([a-z_][a-z0-9_]*)`/g)].map((m) => m[1]!);
    const inherited = [...fields.matchAll(/every \*\*(\w+)\*\* field/g)].flatMap((m) => records.get(m[1]!) ?? []);
    records.set(name, [...inherited, ...own]);
  }
  return records;
}

const DOCUMENTED = documentedRecords();
const SCHEMAS: Record<string, TObject> = {
  Invoice: InvoiceRecord as unknown as TObject,
  Transaction: TransactionRecord,
  Customer: CustomerRecord,
  PaymentMethod: PaymentMethodRecord,
  Self: SelfRecord as unknown as TObject,
  SelfUser,
  SelfMerchant,
  MerchantSettings: MerchantSettingsRecord,
  MerchantCustomField: MerchantCustomFieldRecord,
  Deposit: DepositRecord,
  DepositDetail: DepositDetailItem as unknown as TObject,
  Webhook: WebhookRecord,
  WebhookDelivery: DeliveryRecord,
  Email: EmailRecord,
  Sms: SmsRecord,
  Item: ItemRecord,
  PaymentLink: PaymentLinkRecord,
  File: FileRecord,
  Dispute: DisputeRecord,
  DisputeStatement: DisputeStatementRecord,
};

/** One of each record, from the API, after a pay(), a tokenize and a deposit. */
const answers: Record<string, Record<string, unknown>> = {};
beforeAll(async () => {
  const ctx = await setup();
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await ctx.call(method, path, { body });
    expect(res.status).toBe(200);
    return res.body;
  };
  await call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
    custom_fields: [{ id: "po_number", name: "PO number" }],
    receipt_cc: ["books@example.com"],
    receipt_reply_to: "billing@example.com",
  });
  const webhook = await call("POST", "/webhook", { target_url: "http://127.0.0.1:9/hooks", event: "*" });
  const pm = await tokenize(ctx);
  const invoice = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
    body: { ...CARD, total: 12, payment_method_id: pm.id },
    auth: false,
  });
  await ctx.call("POST", `/webpayment/${ctx.token}/invoice/${invoice.body.id}/pay`, {
    body: { payment_method_id: pm.id },
    auth: false,
  });
  const paid = await call("GET", `/invoice/${invoice.body.id}`);
  const self = await call("GET", "/self");
  await call("POST", "/_sandbox/clock/advance", { seconds: 3 * 86_400 });
  const deposit = (await call("GET", "/query/deposit")).data[0];
  const created = await call("POST", "/payment-method", {
    ...CARD,
    customer_id: pm.customer_id,
  });
  await call("POST", `/transaction/${paid.child_transactions[0].id}/receipt-sms`, {});
  const item = await call("POST", "/item", { item: "Gear", code: "G-1", price: 3, in_stock: 2 });
  const made = await ctx.call("POST", "/query/payment-links", { body: { common_name: "Gear link", amount: 3 } });
  expect(made.status).toBe(201);
  const link = (await call("GET", `/query/payment-links/${made.body.body.id}`)).data;
  const form = new FormData();
  form.append("name", "notes");
  form.append("file", new Blob(["Delivered on Monday."]), "notes.txt");
  const upload = await ctx.app.handle(
    new Request("http://localhost/file", {
      method: "POST",
      headers: { authorization: `Bearer ${ctx.apiKey}` },
      body: form,
    }),
  );
  expect(upload.status).toBe(200);
  const disputed = await tokenize(ctx, { ...CARD, card_number: "4000000000000259" });
  await call("POST", "/charge", { payment_method_id: disputed.id, total: 7 });
  await call("POST", "/_sandbox/clock/advance", { seconds: 5 * 86_400 });
  Object.assign(answers, {
    Dispute: (await call("GET", "/underwriting/disputes")).data[0],
    DisputeStatement: (await call("GET", "/query/statement/v3/disputes")).data[0],
    Webhook: webhook,
    WebhookDelivery: (await call("GET", `/webhook/${webhook.id}/deliveries`)).data[0],
    Email: await call("GET", "/_sandbox/emails/latest"),
    Sms: (await call("GET", "/_sandbox/sms")).data[0],
    Invoice: paid,
    Item: item,
    PaymentLink: link,
    Transaction: await call("GET", `/transaction/${paid.child_transactions[0].id}`),
    Customer: await call("GET", `/customer/${pm.customer_id}`),
    PaymentMethod: created,
    Self: self,
    SelfUser: self.user,
    SelfMerchant: self.merchant,
    MerchantSettings: self.settings,
    MerchantCustomField: self.settings.custom_fields[0],
    Deposit: deposit,
    File: await upload.json(),
    DepositDetail: (await call("GET", `/query/depositDetail?batch_id=${deposit.batch_id}`)).data[0],
  });
  // The other routes that answer a payment method give the same record.
  expect(Object.keys(await call("GET", `/payment-method/${created.id}`))).toEqual(Object.keys(created));
  expect(Object.keys(pm)).toEqual(Object.keys(created));
});

describe("docs/contract.md §6 lists each record's fields", () => {
  test("the document lists every record this test knows, and nothing is listed twice", () => {
    expect([...DOCUMENTED.keys()].sort()).toEqual(Object.keys(SCHEMAS).sort());
    for (const [name, fields] of DOCUMENTED) expect({ name, fields: [...new Set(fields)] }).toEqual({ name, fields });
  });

  for (const name of Object.keys(SCHEMAS)) {
    test(`${name}: the API answers exactly the documented fields, and so does its schema`, () => {
      const documented = [...(DOCUMENTED.get(name) ?? [])].sort();
      expect(documented.length).toBeGreaterThanOrEqual(5);
      expect(Object.keys(answers[name]!).sort()).toEqual(documented);
      expect(Object.keys(SCHEMAS[name]!.properties).sort()).toEqual(documented);
    });
  }
});
