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
import { TEST_BANK, TEST_CARDS } from "../packages/rules/test-data";
import { EVENT_NAMES } from "../src/domain/events";
import { BANK, CARD, setup, type TestContext } from "../tests/support/app";
import { writeMarker } from "../tests/support/database";

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

interface Route {
  method: string;
  /** OpenAPI template, e.g. /transaction/{id}/refund */
  path: string;
  params: string[];
  query: string[];
  body: JsonSchema | undefined;
}

type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  additionalProperties?: boolean | JsonSchema;
};

/** Routes whose success would wipe the fuzzer's own fixtures; they are still fuzzed, with the fixtures rebuilt after a 2xx. */
const RESETTING = new Set(["POST /_sandbox/reset"]);

/** Records the fuzzer refers to by id; refreshed after a reset. */
interface Pools {
  ids: string[];
  tokens: string[];
  keys: string[];
}

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

// ------------------------------------------------------------------ arbitraries

/** encodeURIComponent that accepts lone surrogates (a client would send their replacement). */
function enc(value: string): string {
  return encodeURIComponent(value.toWellFormed());
}

const DOMAIN_STRINGS = [
  ...TEST_CARDS.map((c) => c.number),
  "4111 1111 1111 1111",
  "4111-1111-1111-1112",
  "1230",
  "0199",
  "1330",
  "123",
  "1234",
  "card",
  "bank",
  "checking",
  "savings",
  "personal",
  "business",
  TEST_BANK.routing,
  TEST_BANK.approvingAccount,
  "ada@example.com",
  "not-an-email",
  "5555550100",
  "http://127.0.0.1:9/hook",
  "ftp://x",
  "*",
  ...EVENT_NAMES,
  "2026-11-21",
  "2026-13-45 99:99:99",
  "10.50",
  "1e3",
  "-5",
  "0.001",
  "NaN",
  "Infinity",
  "",
  " ",
  "null",
  "true",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "'; DROP TABLE transactions; --",
  "%",
  "\u0000",
  "\uD800",
  "👩‍💻 Ünïcödé ✓",
  "x".repeat(300),
];

const weirdString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...DOMAIN_STRINGS) },
  { weight: 2, arbitrary: fc.string() },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme" }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary" }) },
  { weight: 1, arbitrary: fc.string({ minLength: 1000, maxLength: 70_000 }) },
);

const weirdNumber = fc.oneof(
  fc.constantFrom(0, -1, 1, 10.5, 0.005, 1e21, -1e21, 2 ** 53 + 1, 99999999.99, 5e-324),
  fc.integer(),
  fc.double({ noNaN: true }),
);

const anyJson = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: weirdString },
  { weight: 1, arbitrary: weirdNumber },
);

function fromSchema(schema: JsonSchema | undefined, pools: Pools, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return anyJson;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return fc.oneof(...variants.map((v) => fromSchema(v, pools, depth + 1)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case "object": {
      const properties = schema.properties ?? {};
      const names = Object.keys(properties);
      if (names.length === 0)
        return fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const name of names) shape[name] = fromSchema(properties[name], pools, depth + 1);
      return fc.record(shape, { requiredKeys: schema.required?.filter((k) => k in shape) ?? [] });
    }
    case "string":
      return fc.oneof(
        { weight: 3, arbitrary: fc.nat().map((n) => pools.ids[n % pools.ids.length]!) },
        { weight: 4, arbitrary: weirdString },
      );
    case "number":
    case "integer":
      return weirdNumber;
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(fromSchema(schema.items, pools, depth + 1), { maxLength: 4 });
    case "null":
      return fc.constant(null);
    default:
      return anyJson;
  }
}

/** Replaces, removes or adds one member of a generated object. */
function mutated(base: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(base, fc.nat(), fc.constantFrom("replace", "delete", "add"), anyJson).map(([value, n, how, junk]) => {
    if (!value || typeof value !== "object" || Array.isArray(value)) return junk;
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const keys = Object.keys(copy);
    const key = keys.length ? keys[n % keys.length]! : "extra";
    if (how === "replace") copy[key] = junk;
    else if (how === "delete") delete copy[key];
    else copy[`extra_${n % 7}`] = junk;
    return copy;
  });
}

const deep = fc
  .tuple(fc.integer({ min: 50, max: 120_000 }), fc.constantFrom("array", "object", "meta"))
  .map(([depth, kind]) => {
    if (kind === "array") return "[".repeat(depth) + "]".repeat(depth);
    const nested = '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
    return kind === "object" ? nested : `{"total":1,"payment_method_id":"x","meta":${nested}}`;
  });

const RAW_BODIES = [
  "",
  "null",
  "[]",
  "{}",
  '"just a string"',
  "1e309",
  "-0",
  "{",
  '{"a":1,}',
  "NaN",
  "\uFEFF{}",
  '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
  '{"total":1e400,"payment_method_id":"x"}',
  '{"total":"0x10","payment_method_id":"x"}',
  '{"a":"\\ud800"}',
  "\u0000\u0001\u0002",
];

type BodyKind = { raw: string } | { bytes: Uint8Array } | { none: true };

function bodyArbitrary(route: Route, pools: Pools): fc.Arbitrary<BodyKind> {
  const schema = fromSchema(route.body, pools);
  const json = (a: fc.Arbitrary<unknown>) => a.map((v) => ({ raw: JSON.stringify(v) ?? "null" }));
  return fc.oneof(
    { weight: 5, arbitrary: json(schema) },
    { weight: 5, arbitrary: json(mutated(schema)) },
    { weight: 2, arbitrary: json(anyJson) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_BODIES).map((raw) => ({ raw })) },
    { weight: 1, arbitrary: fc.string().map((raw) => ({ raw })) },
    { weight: 1, arbitrary: deep.map((raw) => ({ raw })) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1024 * 1024 - 64, max: 1536 * 1024 }).map((size) => ({
        raw: JSON.stringify({ total: 1, payment_method_id: "x", meta: { pad: "x".repeat(size) } }),
      })),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ bytes })) },
    { weight: 1, arbitrary: fc.constant({ none: true as const }) },
  );
}

function segment(pools: Pools): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.nat().map((n) => enc(pools.ids[n % pools.ids.length]!)) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: weirdString.filter((s) => s.length > 0).map((s) => enc(s.slice(0, 3000))) },
    { weight: 1, arbitrary: fc.constantFrom("%E0%A4%A", "%FF", "%", "%00", "..", ".", "%2F", "a%2Fb", "%252F") },
  );
}

function queryArbitrary(route: Route): fc.Arbitrary<string> {
  const name = fc.oneof(
    { weight: 3, arbitrary: route.query.length ? fc.constantFrom(...route.query) : fc.constant("page") },
    { weight: 1, arbitrary: fc.constantFrom("page", "per_page", "__proto__", "constructor", "a[b]", "x[]") },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  );
  const value = fc.oneof(
    fc.constantFrom("1", "0", "-1", "200", "201", "1e9", "9999999999999999999", "abc", "", "true", "2026-01-01"),
    weirdString.map((s) => s.slice(0, 2000)),
  );
  const pair = fc
    .tuple(name, value, fc.boolean())
    .map(([k, v, encode]) => (encode ? `${enc(k)}=${enc(v)}` : `${k}=${v.replace(/[#\s]/g, "")}`));
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant("") },
    { weight: 3, arbitrary: fc.array(pair, { maxLength: 6 }).map((pairs) => pairs.join("&")) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("%", "page=%E0%A4%A", "&&&", "=", "page=1&page=2", "per_page=1&per_page=x"),
    },
  );
}

function headersArbitrary(pools: Pools): fc.Arbitrary<Record<string, string>> {
  const authorization = fc.oneof(
    { weight: 6, arbitrary: fc.nat().map((n) => `Bearer ${pools.keys[n % pools.keys.length]}`) },
    { weight: 1, arbitrary: fc.nat().map((n) => `Bearer ${pools.tokens[n % pools.tokens.length]}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("", "Bearer", "Bearer ", "Basic Zm9vOmJhcg==", "bearer sandbox_api_key  "),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 300 }).map((s) => `Bearer ${s.replace(/[\r\n\0]/g, "")}`) },
    { weight: 1, arbitrary: fc.constant("x".repeat(20_000)) },
  );
  const contentType = fc.constantFrom(
    "application/json",
    "application/json",
    "application/json; charset=utf-8",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=xyz",
    "application/octet-stream",
    "",
  );
  const key = fc.oneof(
    fc.string({ minLength: 1, maxLength: 40 }).map((s) => s.replace(/[\r\n\0]/g, "") || "k"),
    fc.constant("k".repeat(300)),
    fc.constant("same-key"),
  );
  return fc
    .record(
      {
        authorization,
        "content-type": contentType,
        "idempotency-key": key,
        accept: fc.constantFrom("*/*", "text/html"),
      },
      { requiredKeys: [] },
    )
    .map((headers) => {
      const clean: Record<string, string> = {};
      // Header values must be ByteStrings; a client cannot send anything else.
      for (const [k, v] of Object.entries(headers)) clean[k] = v.replace(/[^\x20-\x7e]/g, "");
      return clean;
    });
}

interface FuzzRequest {
  method: string;
  url: string;
  label: string;
  headers: Record<string, string>;
  body: BodyKind;
}

function requestArbitrary(route: Route, pools: Pools): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      params: fc.array(segment(pools), { minLength: route.params.length, maxLength: route.params.length }),
      token: fc.oneof(
        { weight: 5, arbitrary: fc.nat().map((n) => pools.tokens[n % pools.tokens.length]!) },
        { weight: 1, arbitrary: segment(pools) },
      ),
      query: queryArbitrary(route),
      headers: headersArbitrary(pools),
      body:
        route.method === "GET" || route.method === "DELETE"
          ? fc.oneof(fc.constant({ none: true as const }), bodyArbitrary(route, pools))
          : bodyArbitrary(route, pools),
      method: fc.oneof(
        { weight: 12, arbitrary: fc.constant(route.method) },
        { weight: 1, arbitrary: fc.constantFrom("PATCH", "PUT", "HEAD", "OPTIONS") },
      ),
    })
    .map(({ params, token, query, headers, body, method }) => {
      let i = 0;
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
        name === "token" ? token : (params[i++] ?? "x"),
      );
      const withBody = method === "GET" || method === "HEAD" ? { none: true as const } : body;
      return {
        method,
        url: `http://localhost${path}${query ? `?${query}` : ""}`,
        label: `${route.method} ${route.path}`,
        headers,
        body: withBody,
      };
    });
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
