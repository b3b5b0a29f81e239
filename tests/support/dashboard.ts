/**
 * The dashboard suites' set-up: the app on its own in-memory database, served on a free loopback
 * port with its workers running (clock, outbox, webhook dispatcher), a webhook receiver, one
 * headless Chromium, and one page in an explicit context (AxeBuilder opens its blank page there).
 * Every page of the context has its dialogs recorded and answered by `confirm`.
 *
 * @example
 * ```ts
 * let dash: DashboardBrowser;
 * beforeAll(async () => (dash = await startDashboardBrowser()), 60_000);
 * afterAll(() => dash?.stop());
 * test("the keys page shows the key", async () => {
 *   await dash.go("/dashboard/keys");
 *   expect(await dash.page.locator("main").innerText()).toContain(dash.ctx.apiKey);
 * });
 * ```
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startWorkers, stopWorkers } from "../../src/entry/app";
import { serve, setup, type TestContext } from "./app";
import { collectPageErrors, launchBrowser } from "./browser";
import { startReceiver, type Receiver } from "./webhook-receiver";

export interface DashboardBrowser {
  ctx: TestContext;
  /** The served sandbox, e.g. http://127.0.0.1:41234 */
  url: string;
  receiver: Receiver;
  browser: Browser;
  /** 1280 × 900 unless a test resizes it. */
  context: BrowserContext;
  /** The page most tests drive; `errors` holds its console errors and uncaught exceptions. */
  page: Page;
  errors: string[];
  /** The message of every dialog (alert, confirm) any page of the context opened. */
  dialogs: string[];
  /** What the next confirm() is answered with: true accepts, false dismisses (the default). */
  confirm: boolean;
  /** Opens `path` on `page` and fails unless it answered 200. */
  go(path: string): Promise<void>;
  /** Opens `path` on a new page of the context, which the caller closes; fails unless it answered 200. */
  open(path: string): Promise<{ page: Page; errors: string[] }>;
  stop(): Promise<void>;
}

export async function startDashboardBrowser(): Promise<DashboardBrowser> {
  const ctx = await setup();
  const receiver = startReceiver();
  const served = serve(ctx);
  startWorkers(ctx.deps);
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const visit = async (on: Page, path: string) => {
    const response = await on.goto(served.url + path);
    if (response?.status() !== 200) throw new Error(`GET ${path} answered ${response?.status()}, expected 200`);
  };
  const dash: DashboardBrowser = {
    ctx,
    url: served.url,
    receiver,
    browser,
    context,
    page,
    errors: collectPageErrors(page),
    dialogs: [],
    confirm: false,
    go: (path) => visit(page, path),
    async open(path) {
      const opened = await context.newPage();
      const errors = collectPageErrors(opened);
      await visit(opened, path);
      return { page: opened, errors };
    },
    async stop() {
      await browser.close();
      await stopWorkers(ctx.deps);
      await served.stop();
      await receiver.stop();
    },
  };
  context.on("dialog", (dialog) => {
    dash.dialogs.push(dialog.message());
    void (dash.confirm ? dialog.accept() : dialog.dismiss());
  });
  return dash;
}
