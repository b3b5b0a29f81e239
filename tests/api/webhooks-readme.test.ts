/**
 * The signature check the README tells merchants to paste: the very text of the README is
 * written to a file, imported, and used to verify real deliveries.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startWorkers, stopWorkers } from "../../app";
import { signatureHeader } from "../../webhooks/signing";
import { setup, waitFor } from "../helpers";
import { startReceiver } from "./webhooks-receiver";

const ROOT = join(import.meta.dir, "..", "..");
const MARKER = "<!-- webhooks/verify.ts -->";

function readmeSnippet(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const at = readme.indexOf(MARKER);
  if (at < 0) throw new Error(`README.md has no ${MARKER} marker`);
  const match = /```ts\n([\s\S]*?)\n```/.exec(readme.slice(at));
  if (!match) throw new Error("no ```ts block after the marker");
  return match[1]! + "\n";
}

const dir = mkdtempSync(join(tmpdir(), "paysandbox-readme-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Verify = (
  rawBody: string,
  header: string | null | undefined,
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
  test("is exactly webhooks/verify.ts", () => {
    expect(readmeSnippet()).toBe(readFileSync(join(ROOT, "webhooks", "verify.ts"), "utf8"));
  });

  test("pasted as is, it accepts real deliveries and refuses them with another secret or body", async () => {
    const verify = await importSnippet();
    const ctx = setup();
    const receiver = startReceiver();
    startWorkers(ctx.deps);
    try {
      await ctx.call("POST", "/webhook", { body: { target_url: receiver.url, event: "*" } });
      const created = await ctx.call("POST", "/customer", { body: { firstname: "Readme", email: "r@example.com" } });
      expect(created.status).toBe(200);
      await waitFor(() => receiver.delivered().length === 1, 5000, "a delivery");
      const got = receiver.received[0]!;
      const secret = (await ctx.call("GET", "/self")).body.webhook_secret;
      expect(verify(got.raw, got.signature, secret)).toBe(true);
      expect(verify(got.raw, got.signature, "whsec_someone_else")).toBe(false);
      expect(verify(got.raw.replace("Readme", "Forged"), got.signature, secret)).toBe(false);
      expect(verify(got.raw, null, secret)).toBe(false);
      expect(verify(got.raw, "t=abc,v1=00", secret)).toBe(false);
    } finally {
      await stopWorkers(ctx.deps);
      await receiver.stop();
    }
  });

  test("refuses signatures more than 300 seconds from now, and accepts any one valid v1 among several", async () => {
    const verify = await importSnippet();
    const body = '{"id":"abc"}';
    const now = 4_000_000_000; // 2096
    const at = (t: number) => signatureHeader("whsec_test", body, t);
    expect(verify(body, at(now - 299), "whsec_test", 300, now)).toBe(true);
    expect(verify(body, at(now - 301), "whsec_test", 300, now)).toBe(false);
    expect(verify(body, at(now + 301), "whsec_test", 300, now)).toBe(false);
    expect(verify(body, at(now), "whsec_test")).toBe(false); // the default now is real time, decades before `now`
    const rotated = `${at(now)},v1=${"0".repeat(64)}`;
    expect(verify(body, rotated, "whsec_test", 300, now)).toBe(true);
    expect(verify(body, `t=${now},v1=${"0".repeat(64)}`, "whsec_test", 300, now)).toBe(false);
  });
});
