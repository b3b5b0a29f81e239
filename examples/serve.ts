#!/usr/bin/env bun
/**
 * Serves the example integrator page (checkout.html) on its own port, a different origin from
 * the sandbox, with its script tag pointed at the sandbox:
 *
 *   npx bun examples/serve.ts                              → http://localhost:7291/
 *   npx bun examples/serve.ts --sandbox http://localhost:7290 --port 7291 --token sandbox_web_payments_token
 *
 * Env: PAYSANDBOX_URL, PAYSANDBOX_WEB_PAYMENTS_TOKEN, EXAMPLE_PORT. Tests start it with
 * startExampleServer() (port 0) and may add pages of their own.
 */
import * as checkoutModule from "./checkout.html" with { type: "text" };

// A text import is a module whose default export is the file's text (typed by Bun as an HTML bundle).
const checkoutHtml = (checkoutModule as unknown as { default: string }).default;

export const DEFAULT_SANDBOX_URL = "http://localhost:7290";
export const DEFAULT_EXAMPLE_PORT = 7291;

export interface ExampleServerOptions {
  /** Where the sandbox is (the script tag's origin). */
  sandboxUrl?: string;
  token?: string;
  port?: number;
  hostname?: string;
  /** More pages by path, with the same {{SANDBOX_URL}} / {{TOKEN}} placeholders (tests use this). */
  pages?: Record<string, string>;
}

export function renderPage(html: string, sandboxUrl: string, token: string): string {
  return html.replaceAll("{{SANDBOX_URL}}", sandboxUrl.replace(/\/+$/, "")).replaceAll("{{TOKEN}}", token);
}

export function startExampleServer(options: ExampleServerOptions = {}) {
  const sandboxUrl = options.sandboxUrl ?? DEFAULT_SANDBOX_URL;
  const token = options.token ?? "sandbox_web_payments_token";
  const pages: Record<string, string> = { "/": checkoutHtml, "/checkout.html": checkoutHtml, ...options.pages };
  const server = Bun.serve({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? DEFAULT_EXAMPLE_PORT,
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/favicon.ico") return new Response(null, { status: 204 });
      const page = pages[path];
      if (!page) return new Response("Not found", { status: 404 });
      return new Response(renderPage(page, sandboxUrl, token), {
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
      });
    },
  });
  const host = server.hostname === "127.0.0.1" ? "localhost" : server.hostname;
  return { url: `http://${host}:${server.port}`, server, stop: () => server.stop(true) };
}

function flag(argv: string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  if (at >= 0) return argv[at + 1];
  return argv.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);
}

if (import.meta.main) {
  const argv = process.argv.slice(2);
  if (argv.includes("--help")) {
    console.log("Usage: npx bun examples/serve.ts [--sandbox URL] [--port N] [--token TOKEN]");
    process.exit(0);
  }
  const sandboxUrl = flag(argv, "--sandbox") ?? process.env.PAYSANDBOX_URL ?? DEFAULT_SANDBOX_URL;
  const port = Number(flag(argv, "--port") ?? process.env.EXAMPLE_PORT ?? DEFAULT_EXAMPLE_PORT);
  const token = flag(argv, "--token") ?? process.env.PAYSANDBOX_WEB_PAYMENTS_TOKEN ?? "sandbox_web_payments_token";
  const { url } = startExampleServer({ sandboxUrl, port, token });
  console.log(`Example checkout: ${url}/  (sandbox ${sandboxUrl}; start it with npm start)`);
}
