/**
 * Builds the OpenAPI document from the routes' own TypeBox schemas, with @elysiajs/openapi's
 * toOpenAPISchema (the function its plugin uses), plus two things the plugin cannot know:
 *
 * - Which content type the app's body parser reads. The plugin lists a request body's content
 *   types from the route's parsers and skips function parsers (elysiajs/elysia#1720, #1825), so
 *   with our one function parser (size cap, NUL and depth checks, `malformed_json`) every body came out as
 *   `"content": {}`. The parser is documented as what it is: `application/json`.
 * - Which schemas are shared shapes. A schema with a `title` (src/domain/schemas/records.ts: `t.Object({...}, { title:
 *   "Transaction" })`) is listed once under `components.schemas` and referenced with `$ref`
 *   wherever it occurs, so generated clients get one named type per record.
 *
 * Every route the rate limiter covers documents its 429, every route with a body its 400 and 413
 * (both answered before the route's own code), and each answer gets a description of its status.
 * An upload route (`parse: "multipart/form-data"`, a required `file`) lists only multipart/form-data.
 * A text answer whose schema says `contentMediaType` (the hosted pages: text/html) is listed under
 * that media type instead of the plugin's text/plain.
 *
 * What a validating proxy (Stoplight Prism, tests/http/openapi-proxy.test.ts) holds requests to:
 * - Who needs the API key. The document's default is the Bearer key; the public routes (the
 *   web payments token in the path, the hosted pages) take none (`security: []`), and the
 *   sandbox controls take it optionally (it picks the merchant; without one, the default
 *   merchant): `[{}, {apiKey: []}]`, or none at all for the controls that answer no 401.
 * - Whether a body is required: only when its schema requires a member. The body parser reads no
 *   body as `{}`, so a route whose members are all optional (capture, void, a receipt) takes none.
 * - A nullable enum (`type: ["string", "null"]` with `enum`, as the plugin writes a union of
 *   literals and null) lists null among its values, or a validator refuses null.
 */
import { toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import { isExempt } from "../pipeline/limits";
import { ErrorBody } from "../../domain/schemas/records";

type Json = Record<string, unknown>;
type Parser = { fn: unknown };
type Route = { hooks?: { parse?: unknown } & Json };
interface RouteSource {
  getGlobalRoutes(): Route[];
  getGlobalDefinitions(): unknown;
}

export interface DocumentOptions {
  /** The app's function body parser (src/http/pipeline/json.ts); documented as `application/json`. */
  jsonParser: unknown;
  /** info, security schemes and the like, merged over the generated parts. */
  documentation: Json & { info: Json; components?: Json };
  /** Base URL of this sandbox (the servers entry). */
  publicUrl: string;
}

/** Answers the app gives for any route with a JSON body, before the route's own code runs. */
const BODY_ERRORS: Record<string, string> = {
  "400": "The body is not valid JSON (`malformed_json`)",
  "413": "The body is over 1 MiB (`payload_too_large`)",
};

/** The answer of every rate-limited route when the sandbox runs with --rate-limit (limits.ts). */
const RATE_LIMITED = {
  description: "Too many requests (`rate_limited`); only when the sandbox runs with `--rate-limit`",
  headers: {
    "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer", minimum: 1 } },
  },
  content: { "application/json": { schema: ErrorBody } },
};

/** What an answer without a description of its own says (the plugin's is "Response for status N"). */
const STATUS_TEXT: Record<string, string> = {
  "200": "OK",
  "201": "Created",
  "400": "Malformed JSON",
  "401": "No or unknown credential (`unauthenticated`)",
  "402": "Payment declined",
  "403": "The credential may not call this route (`forbidden`)",
  "404": "No such record (`not_found`)",
  "409": "Idempotency-Key reused with another request (`idempotency_conflict`)",
  "413": "Body over 1 MiB",
  "422": "Invalid input (`validation_error`) or state (`invalid_state`)",
  "429": "Too many requests (`rate_limited`)",
};

/** Paths whose routes take no API key: the credential is the web payments token in the path, or none. */
const PUBLIC_PREFIXES = ["/webpayment/", "/payjs/", "/hosted/"];

/** The security requirement of one operation (see the header). */
function securityOf(path: string, responses: Record<string, unknown>): Json[] | undefined {
  if (PUBLIC_PREFIXES.some((prefix) => path.startsWith(prefix))) return [];
  if (path.startsWith("/_sandbox/")) return "401" in responses ? [{}, { apiKey: [] }] : [];
  return undefined;
}

/** Whether a request body schema requires anything (else no body at all is as good as `{}`). */
function requiresMembers(schema: unknown): boolean {
  const required = (schema as { required?: unknown[] } | undefined)?.required;
  return Array.isArray(required) && required.length > 0;
}

/** Keys whose values are data, not schemas: never hoisted. */
const DATA_KEYS = new Set(["examples", "example", "default", "const", "enum"]);

export function buildDocument(app: AnyElysia, options: DocumentOptions): Json {
  // The plugin reads routes through these two (protected) methods; give it the routes with our
  // parser named.
  const source = app as unknown as RouteSource;
  const view = {
    getGlobalDefinitions: () => source.getGlobalDefinitions(),
    getGlobalRoutes: () =>
      source.getGlobalRoutes().map((route) => {
        const parse = route.hooks?.parse as Parser[] | undefined;
        if (!parse?.some((parser) => parser.fn === options.jsonParser)) return route;
        const named = parse.map((parser) =>
          parser.fn === options.jsonParser ? { ...parser, fn: "application/json" } : parser,
        );
        return { ...route, hooks: { ...route.hooks, parse: named } };
      }),
  } as unknown as AnyElysia;
  const generated = toOpenAPISchema(view, { methods: ["options"], staticFile: true });
  const components: Record<string, Json> = {};
  const hoist = namedSchemaHoister(components);
  const paths = generated.paths as Record<string, Record<string, Json>>;
  for (const [path, operations] of Object.entries(paths)) {
    for (const operation of Object.values(operations)) {
      const answers = (operation.responses ?? {}) as Record<string, { content?: Json; description?: string }>;
      for (const [status, response] of Object.entries(answers)) {
        // The plugin describes an answer by its schema's description, else "Response for status N";
        // the envelope's description says nothing about the status, so both get the status's text.
        const generic = response.description === ErrorBody.description;
        if (generic || response.description?.startsWith("Response for status ")) {
          response.description = STATUS_TEXT[status] ?? response.description;
        }
        const text = response.content?.["text/plain"] as { schema?: { contentMediaType?: string } } | undefined;
        const mediaType = text?.schema?.contentMediaType;
        if (mediaType) response.content = { [mediaType]: text };
      }
      if (operation.requestBody) {
        // An upload (a required `file`) is multipart/form-data only: JSON cannot carry its bytes.
        const content = (operation.requestBody as { content?: Record<string, { schema?: { required?: string[] } }> })
          .content;
        if (content?.["multipart/form-data"]?.schema?.required?.includes("file")) delete content["application/json"];
        const schemas = Object.values(content ?? {}).map((media) => media.schema);
        (operation.requestBody as Json).required = schemas.some(requiresMembers);
        const responses = (operation.responses ??= {}) as Record<string, unknown>;
        for (const [status, description] of Object.entries(BODY_ERRORS)) {
          responses[status] ??= { description, content: { "application/json": { schema: ErrorBody } } };
        }
      }
      if (!isExempt(path)) ((operation.responses ??= {}) as Json)["429"] ??= RATE_LIMITED;
      const security = securityOf(path, (operation.responses ?? {}) as Record<string, unknown>);
      if (security) operation.security = security;
      Object.assign(operation, hoist(JSON.parse(JSON.stringify(operation))));
    }
  }
  const { info, components: extra, ...rest } = options.documentation;
  return {
    openapi: "3.1.0",
    ...rest,
    info,
    servers: [{ url: options.publicUrl, description: "This sandbox" }],
    paths,
    components: { ...extra, schemas: sortKeys(components) },
  };
}

/**
 * Returns a function that replaces, depth first, every schema with a `title` by a `$ref` to
 * components.schemas[title]. Two different schemas under one title are a bug in src/domain/schemas.
 */
function namedSchemaHoister(components: Record<string, Json>) {
  const seen = new Map<string, string>();
  const hoist = (node: unknown, key = ""): unknown => {
    if (Array.isArray(node)) return node.map((item) => hoist(item));
    if (node === null || typeof node !== "object" || DATA_KEYS.has(key)) return node;
    const out: Json = {};
    for (const [name, value] of Object.entries(node)) {
      // Elysia's `error` option (a schema's own 422 message) is not a JSON Schema keyword: OpenAPI
      // validators and generators refuse it. A member named "error" is an object here, not text.
      if (name === "error" && key !== "properties" && typeof value === "string") continue;
      out[name] = hoist(value, name);
    }
    // A nullable enum lists null among its values (see the header).
    if (Array.isArray(out.enum) && Array.isArray(out.type) && out.type.includes("null") && !out.enum.includes(null)) {
      out.enum = [...out.enum, null];
    }
    const title = out.title;
    const isSchema = "type" in out || "properties" in out || "anyOf" in out || "oneOf" in out || "allOf" in out;
    if (typeof title !== "string" || !isSchema) return out;
    const text = JSON.stringify(out);
    const before = seen.get(title);
    if (before !== undefined && before !== text) {
      throw new Error(`OpenAPI: two different schemas are titled "${title}"; give one of them another title`);
    }
    seen.set(title, text);
    components[title] = out;
    return { $ref: `#/components/schemas/${title}` };
  };
  return hoist;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
