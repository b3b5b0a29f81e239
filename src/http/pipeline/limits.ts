/**
 * Step 4 of the request pipeline: production-like limits an integrator can test against, both off
 * by default:
 *
 * - `--rate-limit PUBLIC/MERCHANT` (config.rateLimit, e.g. "10/150"): requests per minute, public
 *   routes (`/webpayment/{token}/…`) counted per web payments token and merchant routes per API key.
 *   Over the limit → 429 `rate_limited` in the error envelope with `Retry-After` (seconds).
 *   Each key has a bucket of LIMIT requests refilled continuously at LIMIT per minute, so a burst of
 *   LIMIT passes and then one request every 60/LIMIT seconds.
 * - `--chaos RATE` (config.chaos, 0..1): that fraction of API requests fails — half of them with a
 *   500 `internal_error`, half by stalling past any sensible client timeout (then a 500). The
 *   decision is taken in onRequest, before routing, parsing and the handler, so a chaos failure
 *   never writes anything: retrying it is always safe.
 *
 * `/_sandbox/…`, `/openapi…`, `/payjs…`, the hosted pages and the dashboard are exempt from both:
 * they are the sandbox's controls and assets, not the payment API. With both limits off the plugin
 * adds no hook at all, so it costs nothing.
 */
import { rateLimiterFor, type RateLimit } from "../../services/rate-limits";
import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { ApiError } from "../../domain/errors";
import { pathOf } from "./url";

/** How long a stalled chaos request hangs before it answers 500 (longer than any sensible client timeout). */
export const CHAOS_STALL_MS = 35_000;

/** Paths that are never rate limited nor failed by chaos. */
const EXEMPT_PREFIXES = ["/_sandbox", "/openapi", "/payjs", "/hosted", "/frames", "/dashboard", "/favicon"];

/** Parses "PUBLIC/MERCHANT" (e.g. "10/150"); empty → null (off). Throws on anything else. */
export function parseRateLimit(value: string): RateLimit | null {
  const text = value.trim();
  if (text === "" || text === "0" || text.toLowerCase() === "off") return null;
  const match = /^(\d+)\s*\/\s*(\d+)$/.exec(text);
  if (!match)
    throw new Error(`--rate-limit expects "PUBLIC/MERCHANT" requests per minute, e.g. 10/150; got "${value}"`);
  const limit = { public: Number(match[1]), merchant: Number(match[2]) };
  if (limit.public < 1 || limit.merchant < 1) throw new Error("--rate-limit values must be at least 1 per minute");
  return limit;
}

/** Which bucket a request counts against, or null when it is not rate limited. */
export function bucketOf(path: string, authorization: string | null): { kind: keyof RateLimit; key: string } | null {
  if (isExempt(path)) return null;
  const publicRoute = /^\/webpayment\/([^/]+)/.exec(path);
  if (publicRoute) return { kind: "public", key: `t:${decodeSafe(publicRoute[1]!)}` };
  const key = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  // Without a key the request is a 401 anyway; it is counted per nothing.
  return key ? { kind: "merchant", key: `k:${key}` } : null;
}

function decodeSafe(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function isExempt(path: string): boolean {
  return path === "/" || EXEMPT_PREFIXES.some((prefix) => path === prefix || path.startsWith(prefix));
}

export { RateLimiter, type RateLimit } from "../../services/rate-limits";

export interface LimitsOptions {
  /** Random source in [0, 1) for chaos (tests pass a deterministic one). */
  random?: () => number;
  stallMs?: number;
  now?: () => number;
}

/** Waits `ms`, or less when the client goes away. */
function stall(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The rate limit and chaos hooks; step 4 of the pipeline (src/http/pipeline/index.ts), before every route. */
export function limits(deps: AppDeps, options: LimitsOptions = {}) {
  const plugin = new Elysia({ name: "limits" });
  const rate = parseRateLimit(deps.config.rateLimit ?? "");
  const chaos = Number(deps.config.chaos) || 0;
  if (!rate && chaos <= 0) return plugin;
  const limiter = rate ? rateLimiterFor(deps.db, rate, options.now) : null;
  const random = options.random ?? Math.random;
  const stallMs = options.stallMs ?? CHAOS_STALL_MS;
  return plugin.onRequest(async ({ request, set, server }) => {
    if (request.method === "OPTIONS") return;
    const path = pathOf(request.url);
    if (isExempt(path)) return;
    if (limiter) {
      const bucket = bucketOf(path, request.headers.get("authorization"));
      const wait = bucket ? await limiter.take(bucket.kind, bucket.key) : null;
      if (wait !== null) {
        throw new ApiError(
          "rate_limited",
          `Too many requests: this sandbox is started with --rate-limit ${deps.config.rateLimit} (requests per minute); retry after ${wait} s.`,
          { retry_after: wait },
          { "retry-after": String(wait) },
        );
      }
    }
    if (chaos > 0 && random() < chaos) {
      const stalls = random() < 0.5;
      set.headers["x-sandbox-chaos"] = stalls ? "stall" : "error";
      if (stalls) {
        // Bun closes idle connections after 10 s; a stall must outlast the client's timeout instead.
        server?.timeout(request, 0);
        await stall(stallMs, request.signal);
      }
      deps.log.info(`chaos: ${request.method} ${path} ${stalls ? "stalled, then " : ""}failed on purpose`);
      throw new ApiError(
        "internal_error",
        `Simulated failure (--chaos ${chaos}): nothing was written; retry the request with the same Idempotency-Key.`,
        { chaos: stalls ? "stall" : "error" },
        { "x-sandbox-chaos": stalls ? "stall" : "error" },
      );
    }
  });
}
