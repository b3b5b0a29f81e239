#!/usr/bin/env bun
/**
 * Bad-input fuzzing of every route (`npm run fuzz`; a short fixed-seed run is part of `npm test`
 * in tests/reliability/fuzz.test.ts).
 *
 * The route list comes from the app's own OpenAPI document (/openapi/json), so routes added later
 * are fuzzed without touching this file; request body schemas come from the same routes' TypeBox
 * schemas. Each request mixes, with fast-check: valid-looking bodies generated from the schema and
 * mutated (wrong types, missing and unknown fields), arbitrary JSON, invalid JSON, unicode, huge
 * and deeply nested documents, oversize bodies, odd content types, credentials of this and another
 * merchant and garbage, real and made-up path ids, random and malformed query strings. Every
 * answer must be below 500; every non-2xx must be the error envelope with a documented code that
 * matches its status; and a rejected request (any 4xx but the 402 of a decline, which keeps the
 * failed record by design) must write nothing.
 *
 * Usage: npm run fuzz -- [--runs N] [--seed S]   (default: 20,000 runs, a random seed, printed)
 */
import fc from "fast-check";
import { API_ERROR_STATUS } from "../packages/rules/codes";
import { BANK, CARD, setup, type TestContext } from "../tests/support/app";
import { writeMarker } from "../tests/support/database";
import { requestArbitrary, type FuzzRequest, type JsonSchema, type Pools, type Route } from "./fuzz-requests";

export interface FuzzFailure {
  request: string;
  status: number;
  problem: string;
  body: string;
}

export interface FuzzReport {
  routes: string[];
  requests: number;
  statuses: Record<string, number>;
  failures: FuzzFailure[];
}

/** Routes whose success would wipe the fuzzer's own fixtures; they are still fuzzed, with the fixtures rebuilt after a 2xx. */
const RESETTING = new Set(["POST /_sandbox/reset"]);

/**
 * Creates the records the fuzzer points at. Best effort after the first time: the fuzzer itself may
 * have moved the sandbox clock years ahead (then the test card has expired) or changed settings.
 */
async function fixtures(ctx: TestContext, pools: Pools, first: boolean): Promise<void> {
  const card = { ...CARD, card_exp: "1299" };
  const idOf = (res: { status: number; body: any }, what: string): string | undefined => {
    if ((res.status < 300 || res.status === 402) && typeof res.body?.id === "string") return res.body.id;
    if (first) throw new Error(`fuzz fixture ${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return undefined;
  };
  const other = await ctx.call("POST", "/_sandbox/merchants", { body: { name: "Fuzz other" }, auth: false });
  idOf(other, "merchant");
  const tokenize = (token: string, body: unknown) =>
    ctx.call("POST", `/webpayment/${token}/tokenize`, { body, auth: false });
  const cardRes = await tokenize(ctx.token, card);
  const cardId = idOf(cardRes, "card");
  const bankId = idOf(await tokenize(ctx.token, BANK), "bank");
  const otherCardRes = await tokenize(other.body.web_payments_token, card);
  const otherCardId = idOf(otherCardRes, "other card");
  const charge = (body: Record<string, unknown>, key = ctx.apiKey) => ctx.call("POST", "/charge", { body, auth: key });
  const ids = [
    other.body.id,
    cardId,
    bankId,
    cardRes.body?.customer_id,
    otherCardId,
    otherCardRes.body?.customer_id,
    idOf(await charge({ payment_method_id: cardId, total: 12.34 }), "charge"),
    idOf(await charge({ payment_method_id: cardId, total: 5, pre_auth: true }), "pre_auth"),
    idOf(await charge({ payment_method_id: otherCardId, total: 3 }, other.body.api_key), "other charge"),
  ];
  const { card_number: _n, card_cvv: _c, card_exp: _e, method: _m, ...customer } = CARD;
  const invoice = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
    body: { ...customer, payment_method_id: cardId, total: 20 },
    auth: false,
  });
  ids.push(invoice.status === 200 ? invoice.body.id : undefined);
  const hook = await ctx.call("POST", "/webhook", { body: { target_url: "http://127.0.0.1:9/hook", event: "*" } });
  ids.push(hook.status === 200 ? hook.body.id : undefined);
  pools.ids = ids.filter((id): id is string => typeof id === "string");
  if (pools.ids.length === 0) pools.ids = [crypto.randomUUID()];
  pools.tokens = [ctx.token, other.body.web_payments_token];
  pools.keys = [ctx.apiKey, other.body.api_key];
}

function routesOf(ctx: TestContext, doc: { paths: Record<string, Record<string, any>> }): Route[] {
  const appRoutes = (ctx.app as unknown as { routes: { method: string; path: string; hooks: { body?: JsonSchema } }[] })
    .routes;
  const routes: Route[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const upper = method.toUpperCase();
      const elysiaPath = path.replace(/\{(\w+)\}/g, ":$1");
      const hooks = appRoutes.find((r) => r.method === upper && r.path === elysiaPath)?.hooks;
      const parameters = (operation.parameters ?? []) as { in: string; name: string }[];
      routes.push({
        method: upper,
        path,
        params: parameters.filter((p) => p.in === "path").map((p) => p.name),
        query: parameters.filter((p) => p.in === "query").map((p) => p.name),
        body: hooks?.body,
      });
    }
  }
  return routes;
}

// ------------------------------------------------------------------ checks

/** A well-mixed 32-bit seed for request i of a run (splitmix32 over seed and index). */
function mix(seed: number, i: number): number {
  let z = (seed ^ Math.imul(i + 1, 0x9e3779b9)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) | 0;
}

const CODES = new Set(Object.keys(API_ERROR_STATUS));

function describe(request: FuzzRequest): string {
  const body =
    "raw" in request.body
      ? request.body.raw.length > 300
        ? `${request.body.raw.slice(0, 200)}… (${request.body.raw.length} chars)`
        : request.body.raw
      : "bytes" in request.body
        ? `<${request.body.bytes.length} bytes>`
        : "<none>";
  const url = request.url.length > 300 ? `${request.url.slice(0, 300)}…` : request.url;
  const headers = JSON.stringify(request.headers).slice(0, 300);
  return `${request.method} ${url} headers=${headers} body=${body}`;
}

async function send(ctx: TestContext, request: FuzzRequest): Promise<Response> {
  const body = "raw" in request.body ? request.body.raw : "bytes" in request.body ? request.body.bytes : undefined;
  // (Uint8Array is a valid body; the DOM lib's BodyInit just does not say so for every buffer type.)
  return ctx.app.handle(
    new Request(request.url, { method: request.method, headers: request.headers, body: body as BodyInit | undefined }),
  );
}

export async function fuzz(options: {
  seed: number;
  runs: number;
  progress?: (done: number) => void;
  /** The sandbox to fuzz (default: a fresh one on an in-memory database). */
  context?: TestContext;
}): Promise<FuzzReport> {
  const ctx = options.context ?? (await setup());
  const pools: Pools = { ids: [], tokens: [], keys: [] };
  await fixtures(ctx, pools, true);
  const doc = (await ctx.call("GET", "/openapi/json")).body as { paths: Record<string, Record<string, any>> };
  const routes = routesOf(ctx, doc);
  // What every table holds (tests/support/database.ts): compared around a refused request.
  const snapshot = await writeMarker(ctx.deps.db);
  const report: FuzzReport = {
    routes: routes.map((r) => `${r.method} ${r.path}`),
    requests: 0,
    statuses: {},
    failures: [],
  };
  const seen = new Set<string>();
  // Every route gets its share: request i goes to route i mod n, with everything else random.
  const arbitraries = routes.map((route) => requestArbitrary(route, pools));

  const check = async (request: FuzzRequest) => {
    const before = await snapshot();
    let response: Response;
    try {
      response = await send(ctx, request);
    } catch (error) {
      report.failures.push({ request: describe(request), status: 0, problem: `app.handle threw: ${error}`, body: "" });
      return;
    }
    const text = await response.text();
    report.requests++;
    report.statuses[response.status] = (report.statuses[response.status] ?? 0) + 1;
    const fail = (problem: string) => {
      // One report per route and problem: the first example is enough to fix it.
      const id = `${request.label} ${problem}`;
      if (seen.has(id)) return;
      seen.add(id);
      report.failures.push({ request: describe(request), status: response.status, problem, body: text.slice(0, 500) });
    };
    if (response.status >= 500) fail(`answered ${response.status}`);
    if (response.status >= 400) {
      const html = (response.headers.get("content-type") ?? "").startsWith("text/html");
      if (!html && request.method !== "HEAD") {
        let body: { message?: unknown; code?: unknown } | undefined;
        try {
          body = JSON.parse(text);
        } catch {
          fail("non-2xx answer is not JSON");
        }
        if (body) {
          if (typeof body.message !== "string" || typeof body.code !== "string" || !CODES.has(body.code))
            fail("non-2xx answer is not the error envelope");
          else if (API_ERROR_STATUS[body.code as keyof typeof API_ERROR_STATUS] !== response.status)
            fail(`code ${body.code} answered with status ${response.status}`);
        }
      }
      if (response.status !== 402 && (await snapshot()) !== before)
        fail(`rejected with ${response.status} but wrote rows`);
    }
    if (response.status < 300 && RESETTING.has(request.label)) await fixtures(ctx, pools, false);
  };

  for (let i = 0; i < options.runs; i++) {
    // One independent stream per request (consecutive seeds would give correlated first draws).
    const [request] = fc.sample(arbitraries[i % arbitraries.length]!, { seed: mix(options.seed, i), numRuns: 1 });
    await check(request!);
    if (options.progress && i % 500 === 499) options.progress(i + 1);
  }
  return report;
}

if (import.meta.main) {
  const argv = process.argv.slice(2);
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const runs = Number(value("--runs") ?? 20_000);
  const seed = Number(value("--seed") ?? Math.floor(Math.random() * 2 ** 31));
  process.stdout.write(`fuzz: ${runs} requests, seed ${seed} (rerun with --seed ${seed})\n`);
  const started = performance.now();
  const report = await fuzz({ seed, runs, progress: (done) => process.stdout.write(`  ${done}/${runs}\n`) });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `fuzz: ${report.requests} requests over ${report.routes.length} routes in ${seconds} s; statuses ${JSON.stringify(report.statuses)}\n`,
  );
  for (const failure of report.failures)
    process.stdout.write(`\nFAIL ${failure.problem}\n  ${failure.request}\n  → ${failure.status} ${failure.body}\n`);
  process.stdout.write(report.failures.length ? `\n${report.failures.length} failure(s)\n` : "fuzz: no failures\n");
  process.exit(report.failures.length ? 1 : 0);
}
