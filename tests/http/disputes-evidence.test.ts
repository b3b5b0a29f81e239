/**
 * A dispute's evidence over a real connection (docs/settlement.md, "Disputes"): a real HTTP client
 * (fetch with FormData) uploads and deletes evidence against a listening server; refused uploads
 * (too large, a refused type, an unknown dispute) change nothing; the submitted evidence wins on
 * the clock; a real webhook receiver gets create_dispute and every update_dispute in order. Both
 * databases.
 */
import { afterEach, expect, test } from "bun:test";
import { startWorkers, stopWorkers } from "../../src/entry/app";
import { CARD, serve, setup, tokenize, waitFor, type TestContext } from "../support/app";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import { startWeek } from "../support/settlement";
import { MAX_FILE_BYTES } from "../../src/services/files/content";

let ctx: TestContext | undefined;
let receiver: Receiver | undefined;
let server: { url: string; stop: () => Promise<void> } | undefined;

afterEach(async () => {
  if (ctx) await stopWorkers(ctx.deps);
  await receiver?.stop();
  await server?.stop();
  ctx = undefined;
  receiver = undefined;
  server = undefined;
});

test("evidence uploaded as multipart by a real client wins the dispute; the receiver sees each step in order", async () => {
  const c = (ctx = await setup());
  const r = (receiver = startReceiver());
  const s = (server = serve(c));
  startWorkers(c.deps);
  expect((await c.call("POST", "/webhook", { body: { target_url: r.url, event: "*" } })).status).toBe(200);
  const week = await startWeek(c);
  const pm = await tokenize(c, { ...CARD, card_number: "378200000000257", card_cvv: "1234" }); // CREDIT_NOT_PROCESSED, 10 days
  const sale = await c.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 64.2 } });
  expect(sale.status).toBe(200);
  await week.goTo(week.midnight(11) + 3_600_000);
  const [dispute] = (await c.call("GET", "/underwriting/disputes")).body.data;
  expect(dispute).toMatchObject({ transaction_id: sale.body.id, reason: "CREDIT_NOT_PROCESSED", amount: 64.2 });

  const post = (fields: Record<string, string | Blob>) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    return fetch(`${s.url}/file/dispute`, {
      method: "POST",
      headers: { authorization: `Bearer ${c.apiKey}` },
      body: form,
    });
  };
  const letter = new File(["The refund was never promised. winning_evidence"], "letter.txt", { type: "text/plain" });
  const first = await post({ dispute_id: dispute.id, name: "Customer letter", file: letter });
  expect(first.status).toBe(201);
  const kept = (await first.json()) as any;
  expect(kept).toMatchObject({ name: "Customer letter", tag: "dispute", dispute_id: dispute.id });
  expect(await (await fetch(kept.public_url)).text()).toContain("winning_evidence");
  const extra = await post({ dispute_id: dispute.id, name: "Extra", file: new File(["a note"], "n.txt") });
  expect(extra.status).toBe(201);
  const removed = await fetch(`${s.url}/file/dispute/${((await extra.json()) as any).id}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${c.apiKey}` },
  });
  expect(removed.status).toBe(200);
  const deleted = (await removed.json()) as any;
  expect(deleted.deleted_at).not.toBeNull();
  expect((await fetch(deleted.public_url)).status).toBe(404);

  // Refused, in the error envelope, writing nothing.
  const big = await post({
    dispute_id: dispute.id,
    name: "big",
    file: new File([new Uint8Array(MAX_FILE_BYTES + 1)], "b"),
  });
  expect(big.status).toBe(413);
  expect(((await big.json()) as any).code).toBe("payload_too_large");
  const page = await post({
    dispute_id: dispute.id,
    name: "page",
    file: new File(["<html><script>1</script>"], "p.txt"),
  });
  expect(page.status).toBe(422);
  expect(((await page.json()) as any).errors.file).toHaveLength(1);
  const unknown = await post({ dispute_id: "no-such-dispute", name: "x", file: letter });
  expect(unknown.status).toBe(404);
  const missing = await post({ dispute_id: dispute.id, name: "no file" });
  expect(missing.status).toBe(422);
  const current = (await c.call("GET", "/underwriting/disputes")).body.data[0];
  expect(current.files.map((f: any) => f.id)).toEqual([kept.id]);

  const submitted = await c.call("POST", `/underwriting/dispute/${dispute.id}/submit`);
  expect(submitted.status).toBe(200);
  expect(submitted.body.status).toBe("EVIDENCE_UPLOADED");
  await week.goTo(week.midnight(22) + 3_600_000);
  expect((await c.call("GET", "/underwriting/disputes")).body.data[0].status).toBe("WON");

  await waitFor(() => r.delivered().filter((x) => x.json?.id === dispute.id).length >= 6, 10_000, "six dispute events");
  const steps = r.delivered().filter((x) => x.json?.id === dispute.id);
  expect(steps.map((x) => [x.event, x.json.status, x.json.files.length])).toEqual([
    ["create_dispute", "PENDING", 0],
    ["update_dispute", "PENDING", 1],
    ["update_dispute", "PENDING", 2],
    ["update_dispute", "PENDING", 1],
    ["update_dispute", "EVIDENCE_UPLOADED", 1],
    ["update_dispute", "WON", 1],
  ]);
}, 60_000);
