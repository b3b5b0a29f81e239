/**
 * The OpenAPI document describes requests as exactly as answers, checked by a validator nobody
 * here wrote: Stoplight Prism in proxy mode with --errors (tests/support/prism.ts) in front of a
 * real sandbox on loopback. Every routed operation is called at least once with a valid request
 * (Prism must forward it and find nothing wrong with the request or the answer), and requests
 * that break a rule the server enforces are refused by Prism itself (the rule is in the
 * document) and by the server (a 4xx, never a 5xx). Slow (Prism starts in seconds): outside
 * test:fast, run by `npm test`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startWorkers, stopWorkers } from "../../src/entry/app";
import { serve, setup, type TestContext } from "../support/app";
import { readProxied, startPrismProxy, type PrismProxy, type Proxied } from "../support/prism";
import { BAD_REQUESTS, validCalls, type Call } from "./openapi-proxy-calls";

let ctx: TestContext;
let sandbox: ReturnType<typeof serve>;
let prism: PrismProxy;
let document: any;

beforeAll(async () => {
  ctx = await setup();
  sandbox = serve(ctx);
  startWorkers(ctx.deps);
  document = await (await fetch(`${sandbox.url}/openapi/json`)).json();
  prism = await startPrismProxy(document, sandbox.url);
}, 120_000);

afterAll(async () => {
  await prism?.stop();
  if (ctx) await stopWorkers(ctx.deps);
  await sandbox?.stop();
});

function request(base: string, call: Call): Promise<Response> {
  const headers: Record<string, string> = { ...call.headers };
  if (call.auth !== false) headers.authorization = `Bearer ${call.auth ?? ctx.apiKey}`;
  let body: BodyInit | undefined;
  if (call.form) {
    const form = new FormData();
    for (const [key, value] of Object.entries(call.form)) {
      if (typeof value === "string") form.append(key, value);
      else form.append(key, value, "note.txt");
    }
    body = form;
  } else if (call.raw !== undefined) {
    headers["content-type"] = "application/json";
    body = call.raw;
  } else if (call.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(call.body);
  }
  return fetch(`${base}${call.path}`, { method: call.method, headers, body, redirect: "manual" });
}

/** The routes the app serves that the document lists, as "METHOD /path/{}". */
function documented(): Set<string> {
  const found = new Set<string>();
  for (const [path, operations] of Object.entries<Record<string, unknown>>(document.paths)) {
    for (const method of Object.keys(operations)) {
      if (["get", "post", "put", "delete", "patch"].includes(method)) {
        found.add(`${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, "{}")}`);
      }
    }
  }
  return found;
}

describe("the OpenAPI document, through Stoplight Prism's validating proxy", () => {
  test("every documented operation answers a valid request with no violation on either side", async () => {
    const problems: string[] = [];
    const called = new Set<string>();
    const send = async (call: Call): Promise<Proxied> => {
      const answer = await readProxied(await request(prism.url, call));
      const label = `${call.method} ${call.path}`;
      if (answer.refusedByPrism || answer.violations.length > 0) {
        problems.push(`${label} → ${answer.status}: ${answer.violations.join("; ")}`);
      } else if (answer.status >= 400 && !(call.expect ?? []).includes(answer.status)) {
        problems.push(`${label} → ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
      }
      if (call.operation) called.add(call.operation);
      return answer;
    };
    try {
      await validCalls(ctx, send);
    } catch (error) {
      problems.push(`the session stopped: ${String(error)}`);
    }
    // Every documented operation was called (each call names its operation's path template).
    const missing = [...documented()].filter((op) => !called.has(op));
    expect({ problems, missing }).toEqual({ problems: [], missing: [] });
    // Answering those compiled every route, which edits shared schemas in place; a document built
    // now (a fresh app in this process) must still come out whole, not a 500.
    const fresh = await setup();
    expect((await fresh.call("GET", "/openapi/json", { auth: false })).status).toBe(200);
  }, 180_000);

  test("a request breaking a rule the server enforces is refused by the document and by the server", async () => {
    const problems: string[] = [];
    for (const call of BAD_REQUESTS(ctx)) {
      const label = `${call.method} ${call.path} ${call.raw ?? JSON.stringify(call.body) ?? ""}`;
      const direct = await request(sandbox.url, call);
      const directText = await direct.text();
      if (direct.status < 400 || direct.status >= 500) {
        problems.push(`${label}: the server answered ${direct.status} ${directText.slice(0, 160)}`);
      }
      const proxied = await readProxied(await request(prism.url, call));
      if (!proxied.refusedByPrism) {
        problems.push(`${label}: the document allows it (the server answered ${direct.status})`);
      } else if (call.breaks && !proxied.violations.some((v) => v.includes(call.breaks!))) {
        problems.push(`${label}: Prism refused it, but not for ${call.breaks}: ${proxied.violations.join("; ")}`);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);

  test("Prism judges a total as the server does: 19.99 passes, 19.999 and 0 are refused, as number or string", async () => {
    const TAKEN = [19.99, 0.07, 1.13, 4.35, 99_999_999.99, "19.99", " 10.500 "];
    const REFUSED = [19.999, 0.001, 0, -1, 100_000_000, "0.00", "19.999", "1e3"];
    const verdicts = [];
    for (const total of [...TAKEN, ...REFUSED]) {
      // An unknown payment method: a total the rules take gets a 404 after them, not a charge.
      const call: Call = { method: "POST", path: "/charge", body: { payment_method_id: "no-such-method", total } };
      const direct = await request(sandbox.url, call);
      const refusedByServer = direct.status === 422 && "total" in ((await direct.json()) as any).errors;
      const proxied = await readProxied(await request(prism.url, call));
      verdicts.push({ total, server: !refusedByServer, prism: !proxied.refusedByPrism });
    }
    expect(verdicts).toEqual([
      ...TAKEN.map((total) => ({ total, server: true, prism: true })),
      ...REFUSED.map((total) => ({ total, server: false, prism: false })),
    ]);
  }, 60_000);
});
