/**
 * The signature check the README tells merchants to paste: the very text of the README is
 * written to a file, imported, and used to verify real deliveries.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startWorkers, stopWorkers } from "../../src/entry/app";
import { signatureHeader } from "../../packages/webhooks/signing";
import { setup, waitFor } from "../support/app";
import { startReceiver } from "../support/webhook-receiver";
import { docBlock } from "../docs/blocks";

const ROOT = join(import.meta.dir, "..", "..");
function readmeSnippet(): string {
  return docBlock("webhook-verify").code;
}

const dir = mkdtempSync(join(tmpdir(), "paysandbox-readme-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Verify = (
  rawBody: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  secret: string,
  toleranceSeconds?: number,
  nowSeconds?: number,
) => boolean;

async function importSnippet(): Promise<Verify> {
  const file = join(dir, "verify-from-readme.ts");
  writeFileSync(file, readmeSnippet());
  const module = await import(file);
  return module.verifyPaySandboxSignature as Verify;
}

describe("the README's webhook signature check", () => {
  test("is exactly packages/webhooks/verify.ts", () => {
    expect(readmeSnippet()).toBe(readFileSync(join(ROOT, "packages", "webhooks", "verify.ts"), "utf8"));
  });

  test("pasted as is, it accepts real deliveries and refuses them with another secret or body", async () => {
    const verify = await importSnippet();
    const ctx = await setup();
    const receiver = startReceiver();
    startWorkers(ctx.deps);
    try {
      await ctx.call("POST", "/webhook", { body: { target_url: receiver.url, event: "*" } });
      const created = await ctx.call("POST", "/customer", { body: { firstname: "Readme", email: "r@example.com" } });
      expect(created.status).toBe(200);
      await waitFor(() => receiver.delivered().length === 1, 5000, "a delivery");
      const got = receiver.received[0]!;
      const secret = (await ctx.call("GET", "/self")).body.webhook_secret;
      expect(verify(got.raw, got.headers, secret)).toBe(true);
      expect(verify(got.raw, got.headers, "whsec_someone_else")).toBe(false);
      expect(verify(got.raw.replace("Readme", "Forged"), got.headers, secret)).toBe(false);
      const without = (name: string) => {
        const copy = new Headers(got.headers);
        copy.delete(name);
        return copy;
      };
      expect(verify(got.raw, without("PaySandbox-Signature"), secret)).toBe(false);
      expect(
        verify(got.raw, { ...Object.fromEntries(got.headers), "paysandbox-signature": "t=abc,v2=00" }, secret),
      ).toBe(false);
      // Node's http module hands headers over as a lower-case object: that works too.
      expect(verify(got.raw, Object.fromEntries(got.headers), secret)).toBe(true);
    } finally {
      await stopWorkers(ctx.deps);
      await receiver.stop();
    }
  });

  test("refuses signatures more than 300 seconds from now, and accepts any one valid v2 among several", async () => {
    const verify = await importSnippet();
    const body = '{"id":"abc"}';
    const now = 4_000_000_000; // 2096
    const delivery = { deliveryId: "0b7f6d1e-1111-4222-8333-944455556666", event: "create_customer", body };
    const headers = (signature: string) => ({
      "paysandbox-signature": signature,
      "paysandbox-delivery-id": delivery.deliveryId,
      "paysandbox-event-name": delivery.event,
    });
    const at = (t: number) => headers(signatureHeader("whsec_test", delivery, t));
    expect(verify(body, at(now - 299), "whsec_test", 300, now)).toBe(true);
    expect(verify(body, at(now - 301), "whsec_test", 300, now)).toBe(false);
    expect(verify(body, at(now + 301), "whsec_test", 300, now)).toBe(false);
    expect(verify(body, at(now), "whsec_test")).toBe(false); // the default now is real time, decades before `now`
    const rotated = headers(`${at(now)["paysandbox-signature"]},v2=${"0".repeat(64)}`);
    expect(verify(body, rotated, "whsec_test", 300, now)).toBe(true);
    expect(verify(body, headers(`t=${now},v2=${"0".repeat(64)}`), "whsec_test", 300, now)).toBe(false);
  });

  test("a captured body replayed under a fresh delivery id, or as another event, no longer verifies", async () => {
    const verify = await importSnippet();
    const ctx = await setup();
    const receiver = startReceiver();
    startWorkers(ctx.deps);
    try {
      await ctx.call("POST", "/webhook", { body: { target_url: receiver.url, event: "*" } });
      await ctx.call("POST", "/customer", { body: { firstname: "Captured", email: "c@example.com" } });
      await waitFor(() => receiver.delivered().length === 1, 5000, "a delivery");
      const got = receiver.received[0]!;
      const secret = (await ctx.call("GET", "/self")).body.webhook_secret;
      expect(verify(got.raw, got.headers, secret)).toBe(true);
      const replayed = new Headers(got.headers);
      replayed.set("PaySandbox-Delivery-Id", crypto.randomUUID());
      expect(verify(got.raw, replayed, secret)).toBe(false);
      const renamed = new Headers(got.headers);
      renamed.set("PaySandbox-Event-Name", "update_customer");
      expect(verify(got.raw, renamed, secret)).toBe(false);
      // The old body-only v1 scheme is not sent any more, so a receiver still checking it fails closed.
      expect(got.signature).toMatch(/^t=\d+,v2=[0-9a-f]{64}$/);
    } finally {
      await stopWorkers(ctx.deps);
      await receiver.stop();
    }
  });
});
