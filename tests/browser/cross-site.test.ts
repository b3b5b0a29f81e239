/**
 * The attack of issue 15 in a real browser: a page on another loopback origin (what any web site
 * the developer visits can do) submits forms to the sandbox's /_sandbox/reset and
 * /_sandbox/clock/advance, and fires a text/plain fetch. Chromium sends its real Origin and
 * Sec-Fetch-* headers; the sandbox refuses, and the merchant's data and clock are as they were.
 * The sandbox's own dashboard, same-origin, still advances the clock.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { charge, setup, tokenize, waitFor, type TestContext } from "../support/app";
import { collectPageErrors, HAS_CHROMIUM, launchBrowser } from "../support/browser";

/** The attacker's page: two auto-submitting forms into hidden frames and a no-cors text/plain fetch. */
function attackerPage(sandbox: string): string {
  return `<!doctype html><html><body>
<iframe name="sink1"></iframe><iframe name="sink2"></iframe>
<form id="reset" method="POST" action="${sandbox}/_sandbox/reset" target="sink1"><input name="x" value="1"></form>
<form id="advance" method="POST" action="${sandbox}/_sandbox/clock/advance" target="sink2" enctype="text/plain">
  <input name='{"seconds":3000000000,"x":"' value='"}'>
</form>
<script>
  let loaded = 0;
  for (const name of ["sink1", "sink2"]) document.querySelector("iframe[name=" + name + "]").addEventListener("load", () => {
    loaded++;
    document.body.dataset.loaded = String(loaded);
  });
  document.getElementById("reset").submit();
  document.getElementById("advance").submit();
  fetch("${sandbox}/_sandbox/clock/advance", { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: '{"seconds":3000000000}' })
    .then(() => (document.body.dataset.fetched = "yes"), () => (document.body.dataset.fetched = "error"));
</script>
</body></html>`;
}

describe.skipIf(!HAS_CHROMIUM)("a page on another origin attacks the sandbox in Chromium", () => {
  let browser: Browser;
  let ctx: TestContext;
  let sandbox: { url: string; stop: () => Promise<void> };
  let attacker: ReturnType<typeof Bun.serve>;
  /** What the sandbox saw: method, path, status, and the browser's headers. */
  const seen: { path: string; status: number; origin: string | null; site: string | null; type: string | null }[] = [];

  beforeAll(async () => {
    ctx = await setup();
    expect((await charge(ctx, 12)).status).toBe(200);
    // A real server on 127.0.0.1, recording what the browser sent to /_sandbox.
    const app = ctx.app;
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) => {
        const response = await app.fetch(request);
        const path = new URL(request.url).pathname;
        if (path.startsWith("/_sandbox/") && request.method === "POST")
          seen.push({
            path,
            status: response.status,
            origin: request.headers.get("origin"),
            site: request.headers.get("sec-fetch-site"),
            type: request.headers.get("content-type"),
          });
        return response;
      },
    });
    sandbox = { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
    ctx.deps.publicUrl = sandbox.url;
    // The attacker: another origin on loopback (localhost vs 127.0.0.1 is cross-site).
    attacker = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) =>
        new Response(
          new URL(request.url).pathname === "/blank" ? "<!doctype html><p>blank</p>" : attackerPage(sandbox.url),
          {
            headers: { "content-type": "text/html" },
          },
        ),
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
    await attacker?.stop(true);
  });

  test("its form POSTs and text/plain fetch are refused; data and clock are unchanged", async () => {
    const page = await browser.newPage();
    await page.goto(`http://localhost:${attacker.port}/`);
    await page.waitForFunction(() => document.body.dataset.loaded === "2" && document.body.dataset.fetched, null, {
      timeout: 15_000,
    });
    await waitFor(() => seen.length >= 3, 5000, "three requests at the sandbox");
    const arrived = seen;
    // Chromium really sent them, marked as what they are, and each was refused.
    expect(arrived.map((r) => r.path).sort()).toEqual([
      "/_sandbox/clock/advance",
      "/_sandbox/clock/advance",
      "/_sandbox/reset",
    ]);
    for (const request of arrived) {
      expect(request.status).toBe(403);
      expect(request.origin).toBe(`http://localhost:${attacker.port}`);
      expect(request.site).toBe("cross-site");
    }
    expect(arrived.map((r) => r.type?.split(";")[0]).sort()).toEqual([
      "application/x-www-form-urlencoded",
      "text/plain",
      "text/plain",
    ]);
    expect((await ctx.call("GET", "/transaction")).body.total).toBe(1);
    expect(ctx.deps.clock.offsetMs(ctx.merchantId)).toBe(0);
    await page.close();
  }, 30_000);

  test("the sandbox's own dashboard, same-origin, still advances the clock", async () => {
    const page = await browser.newPage();
    const errors = collectPageErrors(page);
    await page.goto(`${sandbox.url}/dashboard/clock`);
    const before = seen.length;
    const dashboardAdvance = page.waitForResponse((r) => r.url().endsWith("/dashboard/clock/advance"));
    await page.locator("input[type=number][name=seconds]").fill("3600");
    await page.locator("form:has(input[type=number]) button[type=submit]").click();
    expect((await dashboardAdvance).status()).toBe(200);
    await waitFor(() => ctx.deps.clock.offsetMs(ctx.merchantId) > 0, 5000, "the clock to move");
    expect(seen.length).toBe(before);
    expect(errors).toEqual([]);
    await page.close();
  }, 30_000);

  test("hosted pages cannot be framed by another site, and run under their CSP without violations", async () => {
    const pm = await tokenize(ctx);
    const invoice = await ctx.call("POST", "/invoice", { body: { customer_id: pm.customer_id, total: 5 } });
    expect(invoice.status).toBe(200);
    const page = await browser.newPage();
    const errors = collectPageErrors(page);
    await page.goto(`${sandbox.url}/hosted/pay/${invoice.body.id}`);
    // The page's own script ran (it enables the button once the payjs card frames are ready).
    await page.waitForFunction(() => !(document.getElementById("pay-button") as HTMLButtonElement).disabled, null, {
      timeout: 15_000,
    });
    expect(errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
    // Framed by the attacker's origin: Chromium refuses to render it.
    await page.goto(`http://localhost:${attacker.port}/blank`);
    await page.setContent(
      `<iframe id="f" src="${sandbox.url}/hosted/pay/${invoice.body.id}" style="width:600px;height:400px"></iframe>`,
    );
    const frame = await (await page.$("#f"))!.contentFrame();
    await waitFor(
      async () => {
        try {
          return (await frame!.evaluate(() => document.getElementById("pay-button"))) === null;
        } catch {
          return true; // a blocked frame has no accessible document
        }
      },
      10_000,
      "the framed page to be blocked",
    );
    await page.close();
  }, 30_000);
});
