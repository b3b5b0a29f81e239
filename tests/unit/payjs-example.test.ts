/** examples/serve.ts as a developer runs it: its own port, the script tag pointed at the sandbox. */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { renderPage, startExampleServer } from "../../examples/serve";

const ROOT = join(import.meta.dir, "..", "..");

describe("examples/serve.ts", () => {
  let child: ReturnType<typeof Bun.spawn> | null = null;
  afterEach(() => {
    child?.kill();
    child = null;
  });

  test("`bun examples/serve.ts --sandbox URL --port 0` prints the page's URL and serves the checkout pointing at that sandbox", async () => {
    child = Bun.spawn([process.execPath, "examples/serve.ts", "--sandbox", "http://127.0.0.1:7999/", "--port", "0"], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
    let printed = "";
    while (!printed.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      printed += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    const url = /(http:\/\/localhost:\d+)\//.exec(printed)?.[1];
    expect(printed).toContain("sandbox http://127.0.0.1:7999/");
    expect(url).toBeDefined();
    const page = await (await fetch(`${url}/`)).text();
    expect(page).toContain('<script src="http://127.0.0.1:7999/payjs.js"></script>');
    expect(page).toContain('const TOKEN = "sandbox_web_payments_token";');
    expect((await fetch(`${url}/nothing`)).status).toBe(404);
  }, 20_000);

  test("the page has card and bank tabs, frame containers and a pay button that starts disabled", async () => {
    const server = startExampleServer({ port: 0, sandboxUrl: "http://sandbox.test", token: "tok" });
    try {
      const page = await (await fetch(`${server.url}/checkout.html`)).text();
      for (const part of ['id="tab-card"', 'id="tab-bank"', 'id="card-number"', 'id="card-cvv"', 'id="pay-bank"']) {
        expect(page).toContain(part);
      }
      expect(page).toContain('<button type="button" class="pay" id="pay-card" disabled>');
      expect(page).not.toContain("{{");
    } finally {
      await server.stop();
    }
  });

  test("renderPage fills the sandbox URL (without a trailing slash) and the token", () => {
    expect(renderPage('<script src="{{SANDBOX_URL}}/payjs.js"></script>{{TOKEN}}', "http://h:1//", "t")).toBe(
      '<script src="http://h:1/payjs.js"></script>t',
    );
  });
});
