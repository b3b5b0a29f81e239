/**
 * The requests scripts/fuzz.ts sends, as fast-check arbitraries: for one route of the OpenAPI
 * document, a path with real and made-up ids, a query string, headers with this merchant's, another
 * merchant's or garbage credentials, and a body — generated from the route's schema and mutated,
 * arbitrary or invalid JSON, unicode, huge or deeply nested documents, or raw bytes.
 */
import fc from "fast-check";
import { TEST_BANK, TEST_CARDS } from "../packages/rules/test-data";
import { EVENT_NAMES } from "../src/domain/events";

export interface Route {
  method: string;
  /** OpenAPI template, e.g. /transaction/{id}/refund */
  path: string;
  params: string[];
  query: string[];
  body: JsonSchema | undefined;
}

export type JsonSchema = {
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

/** Records the fuzzer refers to by id; refreshed after a reset. */
export interface Pools {
  ids: string[];
  tokens: string[];
  keys: string[];
}

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

export interface FuzzRequest {
  method: string;
  url: string;
  label: string;
  headers: Record<string, string>;
  body: BodyKind;
}

export function requestArbitrary(route: Route, pools: Pools): fc.Arbitrary<FuzzRequest> {
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
