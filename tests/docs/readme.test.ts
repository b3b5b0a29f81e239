/**
 * The shell blocks of README.md and docs/mobile.md, run as printed against a sandbox on the
 * documented address (http://localhost:7290, the default keys) in a network namespace of its own
 * (tests/docs/shell.ts). The quick start runs twice in a row, as its text says it can be pasted
 * again; the other blocks follow in the same sandbox, in the order a reader meets them.
 */
import { describe, expect, test } from "bun:test";
import { docBlock } from "./blocks";
import { runInNamespace, type BlockRun } from "./shell";

/** The JSON documents a run printed (curl prints them back to back), and the text between them. */
function documents(run: BlockRun): { values: any[]; text: string } {
  const values: any[] = [];
  let text = "";
  const out = run.output;
  for (let i = 0; i < out.length; i++) {
    if (out[i] !== "{" && out[i] !== "[") {
      text += out[i];
      continue;
    }
    let depth = 0;
    let inString = false;
    let end = i;
    for (; end < out.length; end++) {
      const char = out[end]!;
      if (inString) {
        if (char === "\\") end++;
        else if (char === '"') inString = false;
      } else if (char === '"') inString = true;
      else if (char === "{" || char === "[") depth++;
      else if (char === "}" || char === "]") {
        if (--depth === 0) break;
      }
    }
    values.push(JSON.parse(out.slice(i, end + 1)));
    i = end;
  }
  return { values, text };
}

describe("README.md and docs/mobile.md, pasted into a shell", () => {
  test("every block runs as printed against npm start's sandbox; the quick start twice", async () => {
    const quickStart = docBlock("quick-start").code;
    const { runs, log } = await runInNamespace(
      [
        quickStart,
        quickStart,
        docBlock("create-merchant").code,
        docBlock("custom-fields").code,
        docBlock("webhooks-manage").code,
        // Not from the docs: a receipt e-mail, so the outbox block has one to show.
        `id=$(curl -s 'http://localhost:7290/transaction?per_page=1' -H 'Authorization: Bearer sandbox_api_key' | node -p 'JSON.parse(fs.readFileSync(0)).data[0].id')
curl -s -X POST http://localhost:7290/transaction/$id/receipt-email -H 'Authorization: Bearer sandbox_api_key' -H 'Content-Type: application/json' -d '{"email":"ada@example.com"}'`,
        docBlock("emails").code,
        docBlock("settlement-advance").code,
        docBlock("mobile-backend-charge").code,
      ],
      { sandbox: true, timeoutMs: 60_000 },
    );
    const [first, second, merchant, settings, webhooks, , emails, settlement, mobile] = runs.map((run) => {
      expect(run.code, log).toBe(0);
      return documents(run);
    });

    // The quick start: a new payment method and a charge of it each time, both in the list.
    const charges = [first!, second!].map(({ values, text }) => {
      const paymentMethod = /payment method ([0-9a-f-]{36})/.exec(text)?.[1];
      expect(paymentMethod, log).toBeDefined();
      const [charge] = values;
      expect(charge).toMatchObject({ success: true, total: 10.5, payment_method_id: paymentMethod });
      expect(charge.meta).toEqual({ tax: 0.5, subtotal: 10 });
      return charge.id as string;
    });
    expect(charges[0]).not.toBe(charges[1]);
    expect(second!.values[1].data.map((transaction: { id: string }) => transaction.id)).toEqual([
      charges[1],
      charges[0],
    ]);

    expect(merchant!.values[0]).toMatchObject({ name: "CI run 42", is_default: false });
    expect(merchant!.values[0].api_key).toMatch(/^sk_sandbox_/);

    expect(settings!.values[0]).toMatchObject({ is_default: true, api_key: "sandbox_api_key" });
    expect(settings!.values[0].settings).toMatchObject({
      advanced_customization: true,
      receipt_reply_to: "billing@merchant.example",
    });
    expect(settings!.values[0].settings.custom_fields.map((field: { id: string }) => field.id)).toEqual([
      "po_number",
      "internal_code",
    ]);

    // Create, list, test event, its delivery, disable, delete: one webhook all along.
    const [list, testDelivery, deliveries, disabled, deleted] = webhooks!.values;
    const hook = list.data[0];
    expect(hook).toMatchObject({ target_url: "http://localhost:4000/hooks", event: "*" });
    expect(testDelivery).toMatchObject({ webhook_id: hook.id, event: "test" });
    expect(deliveries.data.map((delivery: { id: string }) => delivery.id)).toEqual([testDelivery.id]);
    expect(disabled).toMatchObject({ id: hook.id, deleted_at: null });
    expect(disabled.disabled_at).not.toBeNull();
    expect(deleted.deleted_at).not.toBeNull();

    // latest (JSON), latest.html, latest.eml, the list by recipient, the SMS outbox.
    expect(emails!.values[0]).toMatchObject({ to: "ada@example.com", transaction_id: charges[1] });
    expect(emails!.text).toContain("<title>Payment received: $10.50 to Sandbox Merchant</title>");
    expect(emails!.text).toContain("Subject: Payment received: $10.50 to Sandbox Merchant");
    expect(emails!.values.at(-2).data.map((email: { id: string }) => email.id)).toEqual([emails!.values[0].id]);
    expect(emails!.values.at(-1).data).toEqual([]);

    // Two days on: both card sales batched at the first midnight and deposited at the second.
    expect(settlement!.values[0].ran).toEqual({ batches: 1, settled: 2, deposits: 1 });
    expect(settlement!.values[1].data).toHaveLength(1);
    expect(settlement!.values[1].data[0].count).toBe(2);

    expect(mobile!.values[0]).toMatchObject({ success: true, total: 10.5, pre_auth: false });
  }, 90_000);
});
