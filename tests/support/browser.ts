/**
 * Shared headless Chromium for the browser suites: one launch per test file, skipped with a loud
 * notice when /usr/bin/chromium is missing (CI always has it).
 *
 * @example
 * ```ts
 * import { HAS_CHROMIUM, launchBrowser } from "./browser";
 * describe.skipIf(!HAS_CHROMIUM)("checkout", () => {
 *   let browser: Browser;
 *   beforeAll(async () => (browser = await launchBrowser()));
 *   afterAll(() => browser.close());
 * });
 * ```
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";

export const CHROMIUM_PATH = process.env.PAYSANDBOX_CHROMIUM ?? "/usr/bin/chromium";
export const HAS_CHROMIUM = existsSync(CHROMIUM_PATH);

if (!HAS_CHROMIUM) {
  console.warn(
    `\n!!! ${CHROMIUM_PATH} is missing: the browser tests are SKIPPED. Install Debian's chromium (apt-get install chromium) to run them.\n`,
  );
}

/** Flags that work in this environment (see docs/contract.md §1); never --user-data-dir (launch() refuses it). */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 30_000 });
}

/** Where tests save screenshots and other artifacts (git-ignored). */
export const ARTIFACTS_DIR = join(import.meta.dir, "..", "..", "test-artifacts");

export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return join(ARTIFACTS_DIR, name);
}

/** Collects the page's console errors and uncaught exceptions, for assertions and for failure messages. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  return errors;
}
