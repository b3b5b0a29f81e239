/**
 * Step 3 of the request pipeline (docs/security.md): the sandbox controls (`/_sandbox/*`) and the
 * dashboard (`/`, `/dashboard/*`) answer loopback clients only, and nothing a page on another site
 * can make a browser send. Refusals are a 403 in the one error envelope.
 *
 * Why: a page on another origin can make the developer's browser POST a form or a `text/plain`
 * fetch to localhost without a preflight; these routes reset data and drive the clock.
 *
 * @example
 * new Elysia().use(sandboxControlsGuard({ config })).post("/_sandbox/reset", () => "reset");
 */
import { Elysia } from "elysia";
import type { Config } from "../../lib/config";
import { isLoopback } from "../../lib/net";
import { ApiError } from "../../domain/errors";
import { requestHost, type ServerLike } from "./host";
import { GUARD_MESSAGES } from "./messages";
import { pathOf } from "./url";

const PROXY_HEADERS = ["forwarded", "x-forwarded-for", "x-real-ip"];

/**
 * The client's address: the socket peer, or with --trust-proxy the address the proxy appended
 * last to X-Forwarded-For. Without --trust-proxy a request carrying proxy headers has no known
 * client (the peer is the proxy, which may be on this very machine): null. In-process requests
 * (no server) are local: "local".
 */
export function clientAddress(
  request: Request,
  config: Config,
  server: ServerLike | null | undefined,
): string | "local" | null {
  const proxied = PROXY_HEADERS.some((name) => request.headers.has(name));
  if (proxied) {
    if (!config.trustProxy) return null;
    const chain = (request.headers.get("x-forwarded-for") ?? "").split(",").map((part) => part.trim());
    const last = chain.filter(Boolean).at(-1);
    if (last) return last;
  }
  if (!server) return "local";
  return server.requestIP(request)?.address ?? null;
}

/** Throws 403 unless the client is on loopback (or --allow-remote-sandbox is set). */
export function checkLoopbackClient(request: Request, config: Config, server: ServerLike | null | undefined): void {
  if (config.allowRemote) return;
  const address = clientAddress(request, config, server);
  if (address === "local" || isLoopback(address ?? undefined)) return;
  throw new ApiError("forbidden", address === null ? GUARD_MESSAGES.proxied : GUARD_MESSAGES.remoteSandbox);
}

/** The routes a web page must not drive: sandbox controls and the dashboard. */
export function isControlPath(path: string): boolean {
  return path === "/" || path.startsWith("/_sandbox/") || path === "/_sandbox" || path.startsWith("/dashboard");
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Refuses what a page on another site can make a browser send to a sandbox control: any request
 * its browser marks cross-site or same-site (another port of localhost is "same-site") except a
 * top-level navigation that only reads; any state-changing request with a foreign (or "null")
 * Origin; and any state-changing request whose body is not JSON — a form or a `text/plain` fetch
 * cannot send `application/json` without a CORS preflight, which the sandbox never grants here.
 * curl, SDKs and test suites send neither Origin nor Sec-Fetch-*, so they pass; the dashboard's
 * own scripts send same-origin JSON.
 */
export function checkCrossSite(request: Request, host: string): void {
  const safe = SAFE_METHODS.has(request.method);
  const site = request.headers.get("sec-fetch-site");
  if (site === "cross-site" || site === "same-site") {
    const navigation = request.headers.get("sec-fetch-mode") === "navigate";
    if (!(safe && navigation)) throw new ApiError("forbidden", GUARD_MESSAGES.crossSite);
  }
  if (safe) return;
  const origin = request.headers.get("origin");
  if (origin !== null && originHost(origin) !== host.toLowerCase()) {
    throw new ApiError("forbidden", GUARD_MESSAGES.crossSite);
  }
  const type = request.headers.get("content-type");
  if (type !== null) {
    const media = type.split(";")[0]!.trim().toLowerCase();
    if (media !== "application/json") throw new ApiError("forbidden", GUARD_MESSAGES.notJson);
  } else if (Number(request.headers.get("content-length") ?? 0) > 0 || request.headers.has("transfer-encoding")) {
    throw new ApiError("forbidden", GUARD_MESSAGES.notJson);
  }
}

function originHost(origin: string): string | null {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return null; // "null" (sandboxed frames, file://) and garbage
  }
}

/** The plugin: on a control path, the loopback check, then the cross-site check. */
export function sandboxControlsGuard(deps: { config: Config }) {
  return new Elysia({ name: "sandbox-controls-guard" }).onRequest(({ request, server }) => {
    if (!isControlPath(pathOf(request.url))) return;
    checkLoopbackClient(request, deps.config, server);
    checkCrossSite(request, requestHost(request, deps.config));
  });
}
