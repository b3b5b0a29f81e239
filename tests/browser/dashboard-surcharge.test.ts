/**
 * Surcharging on the dashboard, in real headless Chromium against a served sandbox: the Settings
 * page's surcharging form (a rate over the card brands' limit refused inline, a good one saved
 * and read back through the API), and the surcharge on a transaction's page and its refunds.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { tokenize, type TestContext } from "../support/app";
import { HAS_CHROMIUM } from "../support/browser";
import { startDashboardBrowser, type DashboardBrowser } from "../support/dashboard";

describe.skipIf(!HAS_CHROMIUM)("surcharging on the dashboard", () => {
  let dash: DashboardBrowser;
  let ctx: TestContext;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    dash = await startDashboardBrowser();
    ({ ctx, page, errors } = dash);
  }, 60_000);

  afterAll(() => dash?.stop());

  async function answerOf(form: string): Promise<{ ok: boolean; text: string }> {
    const shown = page.locator(`${form} .result:not(:empty), ${form} .field-error`);
    await shown.first().waitFor({ timeout: 10_000 });
    const tone = (await page.locator(`${form} .result`).first().getAttribute("class"))!.split(" ");
    return { ok: tone.includes("ok"), text: (await shown.allInnerTexts()).join(" ") };
  }

  test("the Settings page turns surcharging on; a rate over 3% is refused inline and changes nothing", async () => {
    await dash.go("/dashboard/settings");
    await page.check("#surcharge-form input[name=is_surcharge_enabled]");
    await page.fill("#surcharge-form input[name=cnp_credit_surcharge_rate]", "3.5");
    await page.click("#surcharge-form button[type=submit]");
    const refused = await answerOf("#surcharge-form");
    expect(refused.ok).toBe(false);
    expect(refused.text).toContain("at most 3.00");
    expect((await ctx.call("GET", "/self")).body.settings.is_surcharge_enabled).toBe(false);

    await page.fill("#surcharge-form input[name=cnp_credit_surcharge_rate]", "2.5");
    await page.click("#surcharge-form button[type=submit]");
    expect(await answerOf("#surcharge-form")).toEqual({ ok: true, text: "Surcharging saved." });
    expect((await ctx.call("GET", "/self")).body.merchant).toMatchObject({
      is_surcharge_enabled: true,
      cnp_credit_surcharge_rate: 2.5,
    });
    await dash.go("/dashboard/settings");
    expect(await page.inputValue("#surcharge-form input[name=cnp_credit_surcharge_rate]")).toBe("2.5");
    expect(await page.isChecked("#surcharge-form input[name=is_surcharge_enabled]")).toBe(true);
  }, 60_000);

  test("a surcharged charge's page shows the surcharge, the card's funding and each refund's share", async () => {
    const pm = await tokenize(ctx);
    const sale = (await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 100 } })).body;
    expect(sale).toMatchObject({ total: 102.5, surcharge: 2.5 });
    expect((await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds: 86_400 } })).status).toBe(200);
    expect((await ctx.call("POST", `/transaction/${sale.id}/refund`, { body: { total: 51.25 } })).status).toBe(200);
    await dash.go(`/dashboard/transactions/${sale.id}`);
    const main = await page.locator("main").innerText();
    expect(main).toContain("$102.50");
    expect(await page.locator(".surcharge").innerText()).toContain("$2.50");
    expect(main).toContain("CREDIT");
    expect(await page.locator('tr[data-type="refund"]').innerText()).toContain("$1.25");
    expect(errors.filter((e) => !e.includes("status of 422"))).toEqual([]);
  }, 60_000);
});
