/**
 * examples/mobile-charge.ts run as a user runs it (`bun examples/mobile-charge.ts`), against a
 * real sandbox on a loopback port, configured only through the documented environment.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { otherMerchant, serve, setup, type TestContext } from "../support/app";

const ROOT = join(import.meta.dir, "..", "..");
let ctx: TestContext;
let sandbox: ReturnType<typeof serve>;

beforeAll(async () => {
  ctx = await setup();
  sandbox = serve(ctx);
});

afterAll(async () => {
  await sandbox.stop();
});

/** Runs the example with the given env (asynchronously, so this process keeps serving the sandbox). */
async function runExample(env: Record<string, string>) {
  const inherited = { ...process.env };
  for (const name of ["PAYSANDBOX_URL", "PAYSANDBOX_WEB_PAYMENTS_TOKEN", "PAYSANDBOX_API_KEY"]) delete inherited[name];
  const child = Bun.spawn([process.execPath, "examples/mobile-charge.ts"], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill(), 20_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  return { stdout, stderr, code };
}

test("the example tokenizes the test card, charges it, and prints the approved transaction", async () => {
  const run = await runExample({
    PAYSANDBOX_URL: sandbox.url,
    PAYSANDBOX_WEB_PAYMENTS_TOKEN: ctx.token,
    PAYSANDBOX_API_KEY: ctx.apiKey,
  });
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  const [tokenizedLine, chargedLine] = run.stdout.split("\n");
  expect(tokenizedLine).toMatch(/^Tokenized visa •••• 1111 → payment method [0-9a-f-]{36}$/);
  expect(chargedLine).toMatch(/^Charged \$10\.50 → transaction [0-9a-f-]{36} \(success: true\)$/);
  const printed = JSON.parse(run.stdout.slice(run.stdout.indexOf("\n{") + 1));
  expect(printed.success).toBe(true);
  expect(printed.total).toBe(10.5);
  expect(printed.meta).toEqual({ tax: 0.5, subtotal: 10 });
  expect(tokenizedLine).toContain(printed.payment_method_id);
  expect(run.stdout).not.toContain("4111111111111111");

  // The transaction it printed is the sandbox's own record.
  const stored = await ctx.call("GET", `/transaction/${printed.id}`);
  expect(stored.status).toBe(200);
  expect(stored.body.id).toBe(printed.id);
  expect(stored.body.success).toBe(true);
});

test("the example charges for the merchant whose keys are in the environment", async () => {
  const other = await otherMerchant(ctx);
  const run = await runExample({
    PAYSANDBOX_URL: `${sandbox.url}/`,
    PAYSANDBOX_WEB_PAYMENTS_TOKEN: other.web_payments_token,
    PAYSANDBOX_API_KEY: other.api_key,
  });
  expect(run.code).toBe(0);
  const printed = JSON.parse(run.stdout.slice(run.stdout.indexOf("\n{") + 1));
  expect((await ctx.call("GET", `/transaction/${printed.id}`, { auth: other.api_key })).status).toBe(200);
  expect((await ctx.call("GET", `/transaction/${printed.id}`)).status).toBe(404);
});

test("with a wrong API key the example exits 1 and says why on stderr", async () => {
  const run = await runExample({
    PAYSANDBOX_URL: sandbox.url,
    PAYSANDBOX_WEB_PAYMENTS_TOKEN: ctx.token,
    PAYSANDBOX_API_KEY: "not_the_key",
  });
  expect(run.code).toBe(1);
  expect(run.stderr).toBe("mobile-charge: charge failed (401 unauthenticated): Invalid API key.\n");
});

test("with no sandbox running the example exits 1 with a network_error naming the address", async () => {
  const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const url = `http://127.0.0.1:${closed.port}`;
  await closed.stop(true);
  const run = await runExample({ PAYSANDBOX_URL: url });
  expect(run.code).toBe(1);
  expect(run.stderr).toStartWith(
    `mobile-charge: tokenize failed (network_error): Could not reach the sandbox at ${url}`,
  );
  expect(run.stdout).toBe("");
});
