/**
 * Browser helpers: fillCard() types into the payjs secure frames the way a person does, and the
 * example checkout page is served on an origin of its own, as an integrator's page would be.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as checkoutModule from "../../../examples/checkout.html" with { type: "text" };
import type * as Public from "../index";

// A text import is a module whose default export is the file's text (Bun types it as an HTML bundle).
const CHECKOUT_HTML = (checkoutModule as unknown as { default: string }).default;

export const fillCard: typeof Public.fillCard = async (page, card, options = {}) => {
  if (!page || typeof page.locator !== "function" || !page.keyboard) {
    throw new TypeError("fillCard() expects a Playwright Page as its first argument");
  }
  if (!card || typeof card.number !== "string") {
    throw new TypeError(`fillCard() expects { number, cvv }, got ${JSON.stringify(card)}`);
  }
  const timeout = options.timeoutMs ?? 15_000;
  const delay = options.delay ?? 15;
  const fields: Array<[container: string, text: string | undefined]> = [
    [options.number ?? "#card-number", card.number],
    [options.cvv ?? "#card-cvv", card.cvv],
  ];
  for (const [container, text] of fields) {
    if (text === undefined) continue;
    // The frame payjs put in the container: what the page itself can see of the secure field.
    const frame = page.locator(`${container} iframe`);
    await frame.waitFor({ state: "visible", timeout });
    // A person types once the field has appeared: wait until the frame has navigated from its
    // initial blank document to the sandbox's field and that page has loaded.
    const deadline = Date.now() + timeout;
    const element = await frame.elementHandle({ timeout });
    for (;;) {
      const content = await element?.contentFrame();
      if (content && content.url() !== "about:blank" && content.url() !== "") {
        await content.waitForLoadState("load");
        break;
      }
      if (Date.now() > deadline)
        throw new Error(`fillCard(): the frame in ${container} did not load within ${timeout} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // As a person scrolls to the field before clicking it: the frame, painted in its own
    // process, takes clicks at its new place only once the page has drawn it there.
    await frame.scrollIntoViewIfNeeded({ timeout });
    // payjs sizes each frame to its input once the field has loaded, which moves the fields below
    // it: a person clicks once the form has stopped moving, so wait until the frame's box holds
    // still across a few animation frames.
    await waitUntilStill(frame, container, deadline);
    // The click must put the focus in that frame (the page can see which frame has it). A person
    // whose click landed as the layout shifted clicks again; three misses is a real fault.
    let focused = false;
    for (let attempt = 0; attempt < 3 && !focused; attempt++) {
      if (attempt > 0) await waitUntilStill(frame, container, deadline);
      await frame.click({ timeout });
      focused = await frame.evaluate((iframe) => iframe.ownerDocument.activeElement === iframe);
    }
    if (!focused) throw new Error(`fillCard(): clicking the frame in ${container} did not focus it`);
    await page.keyboard.type(text, { delay });
  }
};

/** Resolves once the frame's box is the same on three animation frames in a row. */
async function waitUntilStill(frame: Public.LocatorLike, container: string, deadline: number): Promise<void> {
  let last = "";
  let same = 0;
  while (same < 2) {
    if (Date.now() > deadline) throw new Error(`fillCard(): the frame in ${container} kept moving`);
    const box = await frame.evaluate(
      (iframe) =>
        new Promise<string>((resolve) =>
          requestAnimationFrame(() => {
            const r = iframe.getBoundingClientRect();
            resolve(`${r.x},${r.y},${r.width},${r.height}`);
          }),
        ),
    );
    same = box === last ? same + 1 : 0;
    last = box;
  }
}

/** Serves the example checkout page, pointed at `sandboxUrl` with `token`, on a free loopback port. */
export async function serveCheckoutPage(sandboxUrl: string, token: string): Promise<Public.CheckoutPage> {
  const html = CHECKOUT_HTML.replaceAll("{{SANDBOX_URL}}", sandboxUrl.replace(/\/+$/, "")).replaceAll(
    "{{TOKEN}}",
    token,
  );
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://page").pathname;
    if (path === "/" || path === "/checkout.html") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      response.end(html);
      return;
    }
    response.writeHead(path === "/favicon.ico" ? 204 : 404, { "content-type": "text/plain" });
    response.end(path === "/favicon.ico" ? undefined : "Not found");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  server.unref();
  let closed = false;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: async () => {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      });
    },
  };
}
