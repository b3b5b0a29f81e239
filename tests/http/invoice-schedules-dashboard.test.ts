/**
 * The dashboard's invoice schedule pages (issue 30): the list, and one schedule with its next
 * occurrences and the invoices its occurrences made, each linked; an invoice links back.
 */
import { describe, expect, test } from "bun:test";
import { Window } from "happy-dom";
import { setup, tokenize, type TestContext } from "../support/app";

/** The page's document, as a browser would build it. */
async function page(ctx: TestContext, path: string) {
  const res = await ctx.call("GET", path, { auth: false });
  expect(res.status).toBe(200);
  const window = new Window();
  window.document.body.innerHTML = String(res.body).replace(/^[\s\S]*<body[^>]*>|<\/body>[\s\S]*$/g, "");
  return window.document;
}

describe("the dashboard's invoice schedules", () => {
  test("lists schedules; a schedule's page shows its rule, next occurrences and links every invoice it made", async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx);
    const now = ctx.deps.clock.now(ctx.merchantId);
    const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 3, 14);
    const dtstart = new Date(start)
      .toISOString()
      .replace(/[-:]/g, "")
      .replace(/\.\d{3}/, "");
    const made = await ctx.call("POST", "/invoice/schedule", {
      body: { rule: `FREQ=MONTHLY;DTSTART=${dtstart}`, total: 19.5, payment_method_id: pm.id },
    });
    expect(made.status).toBe(201);
    const empty = await page(ctx, `/dashboard/schedules/${made.body.id}`);
    expect(empty.querySelector("main")?.textContent).toContain("None yet");

    const seconds = Math.ceil((start + 40 * 86_400_000 - now.getTime()) / 1000);
    await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds }, auth: false });
    const list = await page(ctx, "/dashboard/schedules");
    const row = list.querySelector(`tr[data-id="${made.body.id}"]`);
    expect(row?.textContent).toContain("every month");
    expect(row?.textContent).toContain("$19.50");
    expect(row?.querySelector("a")?.getAttribute("href")).toBe(`/dashboard/schedules/${made.body.id}`);
    expect([...list.querySelectorAll("nav a")].map((a) => a.textContent)).toContain("Schedules");

    const detail = await page(ctx, `/dashboard/schedules/${made.body.id}`);
    const invoiceIds = (await ctx.call("GET", `/invoice/schedule/${made.body.id}`)).body.invoice_ids;
    expect(invoiceIds).toHaveLength(2);
    const links = [...detail.querySelectorAll("table.invoices tr[data-id] a")].map((a) => a.getAttribute("href"));
    expect(links).toEqual([...invoiceIds].reverse().map((id: string) => `/dashboard/invoices/${id}`));
    expect(detail.querySelector("table.invoices")?.textContent).toContain("PAID");
    expect(detail.querySelectorAll("#schedule-next li")).toHaveLength(5);
    expect(detail.querySelector("main")?.textContent).toContain("visa ending 1111");

    const invoice = await page(ctx, `/dashboard/invoices/${invoiceIds[0]}`);
    const back = [...invoice.querySelectorAll("a")].find((a) =>
      a.getAttribute("href")?.startsWith("/dashboard/schedules/"),
    );
    expect(back?.getAttribute("href")).toBe(`/dashboard/schedules/${made.body.id}`);
    // The occurrence's charge names its schedule (schedule_id) and links to it.
    const paid = (await ctx.call("GET", `/invoice/${invoiceIds[0]}`)).body;
    const charge = await page(ctx, `/dashboard/transactions/${paid.child_transactions[0].id}`);
    const toSchedule = [...charge.querySelectorAll("a")].find((a) =>
      a.getAttribute("href")?.startsWith("/dashboard/schedules/"),
    );
    expect(toSchedule?.getAttribute("href")).toBe(`/dashboard/schedules/${made.body.id}`);
    expect((await ctx.call("GET", "/dashboard/schedules/nothing", { auth: false })).status).toBe(404);
  }, 30_000);
});
