/**
 * An uploaded file never runs script in the sandbox's origin (issue 31), seen from headless
 * Chromium. Each hostile upload is either refused (HTML, SVG, XML, markup in text) or taken as
 * what its bytes are and served so that the browser cannot run it: a GIF that carries an HTML page
 * after its header, a text file with an inline event handler. Each is opened at its public_url as a
 * page and inside an iframe of a sandbox page, and the script in it would tell three ways (the
 * page's title, a message to the parent, a request to a real HTTP receiver). The same script served
 * as an ordinary HTML page does all three, so the test sees script when it runs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { serve, setup, waitFor, type TestContext } from "../support/app";
import { HAS_CHROMIUM, launchBrowser } from "../support/browser";

/** The script every hostile file carries; `RECEIVER` is the receiver's URL. */
const script = (receiver: string) =>
  `document.title='ran';try{parent.postMessage('ran','*')}catch(e){}` +
  `fetch('${receiver}/ran',{mode:'no-cors'}).catch(function(){});`;

const page = (receiver: string) =>
  `<html><body><script>${script(receiver)}</script><img src=x onerror="${script(receiver)}"></body></html>`;

describe.skipIf(!HAS_CHROMIUM)("uploaded files in Chromium", () => {
  let ctx: TestContext;
  let sandbox: ReturnType<typeof serve>;
  let browser: Browser;
  let receiver: ReturnType<typeof Bun.serve>;
  let hits = 0;
  let receiverUrl = "";

  beforeAll(async () => {
    receiver = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(request) {
        const path = new URL(request.url).pathname;
        if (path === "/ran") hits++;
        // The control: the hostile page served as the ordinary HTML page it is.
        if (path === "/control") return new Response(page(receiverUrl), { headers: { "content-type": "text/html" } });
        return new Response("ok", { headers: { "access-control-allow-origin": "*" } });
      },
    });
    receiverUrl = `http://127.0.0.1:${receiver.port}`;
    ctx = await setup();
    sandbox = serve(ctx);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
    await receiver?.stop(true);
  });

  async function upload(name: string, bytes: Uint8Array | string, type: string) {
    const form = new FormData();
    form.append("name", name);
    form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer> | string], { type }), name);
    const res = await fetch(`${sandbox.url}/file`, {
      method: "POST",
      headers: { authorization: `Bearer ${ctx.apiKey}` },
      body: form,
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  /**
   * Whether script ran for `url`: opened as a page (a download counts as not run) and in an iframe
   * of a page of the sandbox's own origin, after the page settles.
   */
  async function ranAt(url: string): Promise<{ title: boolean; message: boolean; request: boolean }> {
    const before = hits;
    const tab: Page = await browser.newPage();
    try {
      let title = false;
      try {
        await tab.goto(url, { waitUntil: "load", timeout: 10_000 });
        await tab.waitForTimeout(300);
        title = (await tab.title()) === "ran";
      } catch (error) {
        if (!String(error).includes("Download is starting")) throw error;
      }
      // A page of the sandbox's origin that frames the file and listens for its message.
      await tab.goto(`${sandbox.url}/hosted/not-a-page`, { waitUntil: "load" });
      await tab.evaluate((src) => {
        const w = window as unknown as { ranMessage: boolean };
        w.ranMessage = false;
        window.addEventListener("message", (event) => {
          if (event.data === "ran") w.ranMessage = true;
        });
        const frame = document.createElement("iframe");
        frame.src = src;
        document.body.append(frame);
      }, url);
      await tab.waitForTimeout(800);
      const message = await tab.evaluate(() => (window as unknown as { ranMessage: boolean }).ranMessage);
      title ||= (await tab.title()) === "ran";
      return { title, message, request: hits > before };
    } finally {
      await tab.close();
    }
  }

  test("the detection sees script that runs: the same page served as HTML runs all three ways", async () => {
    const seen = await ranAt(`${receiverUrl}/control`);
    expect(seen.title).toBe(true);
    await waitFor(() => hits > 0, 5000, "the control's request");
    expect(seen.message).toBe(true);
  });

  test("markup is refused at upload: HTML, SVG, XML and text with a script tag", async () => {
    const receiverPage = page(receiverUrl);
    const refused = [
      await upload("evidence.html", receiverPage, "text/html"),
      await upload(
        "logo.svg",
        `<svg xmlns="http://www.w3.org/2000/svg"><script>${script(receiverUrl)}</script></svg>`,
        "image/svg+xml",
      ),
      await upload("data.xml", `<?xml version="1.0"?><x><script>${script(receiverUrl)}</script></x>`, "text/xml"),
      await upload("notes.txt", `Call notes\n${receiverPage}`, "text/plain"),
    ];
    for (const res of refused) {
      expect(res.status).toBe(422);
      expect(res.body.errors.file).toBeDefined();
    }
  });

  test("a GIF carrying an HTML page, and text with an event handler, are served but never run", async () => {
    const gif = new Uint8Array([
      ...new TextEncoder().encode("GIF89a"),
      1,
      0,
      1,
      0,
      0,
      0,
      0,
      ...new TextEncoder().encode(page(receiverUrl)),
    ]);
    const polyglot = await upload("receipt.gif", gif, "text/html");
    expect(polyglot.status).toBe(200);
    expect(polyglot.body.meta.mime).toBe("image/gif");
    const text = await upload("notes.txt", `Customer said: <img src=x onerror="${script(receiverUrl)}">`, "text/html");
    expect(text.status).toBe(200);
    expect(text.body.meta.mime).toBe("text/plain");
    const hitsBefore = hits;

    for (const file of [polyglot.body, text.body]) {
      const seen = await ranAt(file.public_url);
      expect({ file: file.name, ...seen }).toEqual({ file: file.name, title: false, message: false, request: false });
    }
    // The bytes are what was uploaded: the sandbox serves the file, it only refuses to let it run.
    const served = await fetch(polyglot.body.public_url);
    expect(served.headers.get("content-type")).toBe("image/gif");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(gif);
    // Nothing reached the receiver, late requests included.
    await Bun.sleep(300);
    expect(hits).toBe(hitsBefore);
  });
});
