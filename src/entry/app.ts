/**
 * createApp(deps) composes every module into one Elysia app. src/entry/server.ts listens with it; tests
 * build the very same app and call app.handle(new Request(...)).
 */
import { Elysia } from "elysia";
import { chargeRoutes } from "../http/routes/charge";
import { customerRoutes } from "../http/routes/customers";
import { dashboardRoutes } from "../http/dashboard/routes";
import { invoiceRoutes } from "../http/routes/invoices";
import { publicInvoiceRoutes } from "../http/routes/invoices-public";
import { receiptRoutes } from "../http/routes/receipts";
import type { AppDeps } from "../http/deps";
import { depositRoutes } from "../http/routes/deposits";
import { faviconRoutes } from "../http/routes/favicon";
import { ApiError, ValidationFailed } from "../domain/errors";
import { MAX_BODY_BYTES, renderError } from "../http/error-envelope";
import {
  checkCrossSite,
  checkHost,
  checkLoopbackClient,
  HostAllowlist,
  isControlPath,
  requestHost,
} from "../http/guard";
import { assertShallow, limits } from "../http/limits";
import { openapiRoutes } from "../http/openapi/ui";
import { paymentMethodRoutes } from "../http/routes/payment-methods";
import { payjsRoutes } from "../http/payjs/routes";
import { rememberRawBody } from "../http/raw-body";
import { sandboxRoutes } from "../http/routes/sandbox";
import { selfRoutes } from "../http/routes/self";
import { transactionRoutes } from "../http/routes/transactions";
import { webpaymentRoutes } from "../http/routes/webpayment";
import { webhookRoutes } from "../http/routes/webhooks";
import { hostedRoutes } from "../http/hosted/index";
import pkg from "../../package.json";
import { buildDeps, type CreateAppOptions } from "./deps";

export { buildDeps, type CreateAppOptions } from "./deps";
export { startWorkers, stopWorkers } from "./workers";

export const VERSION: string = pkg.version;
/** The license of this project (package.json), stated in the OpenAPI document. */
const LICENSE = { name: `${pkg.license} License`, identifier: pkg.license };

/** Public routes any origin may call from a browser. */
const CORS_PREFIXES = ["/webpayment/", "/payjs"];
const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "content-type, idempotency-key, accept",
  "access-control-max-age": "600",
  "access-control-expose-headers": "idempotent-replayed, retry-after, x-request-id",
};

/** Reads a body of at most MAX_BODY_BYTES, refusing larger ones without buffering them. */
async function readBody(request: Request): Promise<string> {
  const declared = Number(request.headers.get("content-length"));
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return "";
  // With a declared length (the usual case) the HTTP server already bounds the body: read it at once,
  // much cheaper than a stream reader (measured: ~8% of a POST /charge). Chunked bodies are streamed.
  if (declared > 0) {
    const text = await request.text();
    if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw tooLarge();
    return text;
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const tooLarge = () => new ApiError("payload_too_large", "The request body may not be larger than 1 MiB.");

/**
 * The one body parser: JSON whatever the content-type says, at most MAX_BODY_BYTES, an empty body
 * as {}. The raw text is kept for the routes that store a member exactly as sent (meta).
 */
async function parseJsonBody({ request }: { request: Request }): Promise<unknown> {
  const text = await readBody(request);
  if (text.trim() === "") return {};
  rememberRawBody(request, text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("malformed_json", "The request body is not valid JSON.");
  }
  // Absurdly nested JSON would overflow the stack of every recursive walk after this point.
  assertShallow(value);
  // JSON spells NUL only as \u0000: the walk runs only when that text is there (cheap on the hot path).
  if (text.includes("\\u0000") && holdsNul(value)) throw new ValidationFailed({ body: [NUL_MESSAGE] });
  return value;
}

const NUL_MESSAGE = "Text may not contain the NUL character (\\u0000).";

/** Whether any string (or key) in a parsed JSON value holds U+0000, which no stored text may hold. */
function holdsNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\0");
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value && typeof value === "object") {
    return Object.entries(value).some(([key, inner]) => key.includes("\0") || holdsNul(inner));
  }
  return false;
}

/**
 * The path of an absolute request URL as `new URL(href).pathname` gives it, without parsing the
 * whole URL for the usual path (letters, digits, "/", "-", "_"). Anything URL parsing could
 * rewrite (dot segments, escapes, backslashes) takes the full parse, so the sandbox-control guard
 * sees what the URL standard says.
 */
function pathOf(href: string): string {
  const start = href.indexOf("/", href.indexOf("//") + 2);
  if (start >= 0) {
    const query = href.indexOf("?", start);
    const hash = href.indexOf("#", start);
    const end = Math.min(query < 0 ? href.length : query, hash < 0 ? href.length : hash);
    const path = href.slice(start, end);
    if (PLAIN_PATH.test(path)) return path;
  }
  return new URL(href).pathname;
}

const PLAIN_PATH = /^[A-Za-z0-9/_-]*$/;

/**
 * NUL in the path or query: no record id or route holds it, and PostgreSQL text cannot (SQLite's
 * can), so it is answered the same on both before it reaches a query: a 404 in the path, a 422
 * naming the parameter in the query.
 */
function refuseNul(url: URL): void {
  if (!url.href.includes("%00")) return;
  if (url.pathname.includes("%00"))
    throw new ApiError("not_found", "Not found: no route or record has a path with a NUL character.");
  for (const [name, value] of url.searchParams) {
    if (name.includes("\0") || value.includes("\0"))
      throw new ValidationFailed({ [name.replaceAll("\0", "")]: [NUL_MESSAGE] });
  }
}

export async function createApp(options: CreateAppOptions) {
  const deps = await buildDeps(options);
  return composeApp(deps);
}

export function composeApp(deps: AppDeps) {
  // A request's id and start time, taken only when something will read them: with request logging
  // off (the default) a request that succeeds costs neither a UUID nor a map entry; an error gets
  // its id when it is rendered.
  const requestIds = new WeakMap<Request, { id: string; start: number }>();
  const requestIdOf = (request: Request): string => {
    let entry = requestIds.get(request);
    if (!entry) requestIds.set(request, (entry = { id: crypto.randomUUID(), start: NaN }));
    return entry.id;
  };
  const hosts = new HostAllowlist(deps.config, () => deps.publicUrl);
  const app = new Elysia()
    .decorate("deps", deps)
    // The pipeline, in order (docs/security.md): host check → CORS → cross-site and loopback
    // checks of the sandbox controls → rate limits → auth → validation → handler → error envelope.
    .onRequest(({ request, set, server }) => {
      if (deps.config.logRequests) requestIds.set(request, { id: crypto.randomUUID(), start: performance.now() });
      checkHost(request, deps.config, hosts, server);
      const href = request.url;
      if (href.includes("%00")) refuseNul(new URL(href));
      const path = pathOf(href);
      if (isControlPath(path)) {
        checkLoopbackClient(request, deps.config, server);
        checkCrossSite(request, requestHost(request, deps.config));
      }
      if (CORS_PREFIXES.some((prefix) => path.startsWith(prefix))) {
        Object.assign(set.headers, CORS_HEADERS);
        if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS_HEADERS });
      }
    })
    .onParse(parseJsonBody)
    .onError(({ code, error, request, set }) => {
      const id = requestIdOf(request);
      const rendered = renderError(code, error, id, deps.log, request);
      // Every 5xx is logged with its request id, whether or not request lines are on.
      if (rendered.status >= 500) {
        deps.log.error(`${request.method} ${new URL(request.url).pathname} ${rendered.status} request ${id}`);
      }
      set.status = rendered.status;
      Object.assign(set.headers, rendered.headers);
      return rendered.body;
    })
    .use(requestLog(deps, requestIds))
    // --rate-limit and --chaos (off by default: then no hook at all); before every route.
    .use(limits(deps))
    .use(openapiRoutes(deps, { version: VERSION, license: LICENSE, jsonParser: parseJsonBody }))
    .use(faviconRoutes())
    .use(webpaymentRoutes(deps))
    .use(payjsRoutes(deps))
    .use(publicInvoiceRoutes(deps))
    .use(invoiceRoutes(deps))
    .use(receiptRoutes(deps))
    .use(hostedRoutes(deps))
    .use(chargeRoutes(deps))
    .use(transactionRoutes(deps))
    .use(depositRoutes(deps))
    .use(customerRoutes(deps))
    .use(paymentMethodRoutes(deps))
    .use(selfRoutes(deps))
    .use(webhookRoutes(deps))
    .use(sandboxRoutes(deps))
    .use(dashboardRoutes(deps));
  return app;
}

export type App = ReturnType<typeof composeApp>;

/**
 * `--log-requests`: one line per request (method, path, status, time), written after the answer
 * left. Without the flag the plugin adds no hook at all.
 */
function requestLog(deps: AppDeps, requestIds: WeakMap<Request, { id: string; start: number }>) {
  const plugin = new Elysia();
  if (!deps.config.logRequests) return plugin;
  return plugin.onAfterResponse({ as: "global" }, ({ request, set, responseValue }) => {
    const started = requestIds.get(request);
    const ms = started ? (performance.now() - started.start).toFixed(1) : "?";
    // A handler that returns a Response (pages, assets, 304s) carries its own status.
    const status = responseValue instanceof Response ? responseValue.status : (set.status ?? 200);
    // Only the path: query strings and bodies never reach the log.
    deps.log.info(`${request.method} ${new URL(request.url).pathname} ${status} ${ms}ms`);
  });
}
