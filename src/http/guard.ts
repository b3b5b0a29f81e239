/**
 * The first steps of the request pipeline (docs/security.md): which Host names the sandbox
 * answers, which client a request comes from, and whether a request to the sandbox controls or
 * the dashboard can be a web page's doing. All three answer in the one error envelope.
 *
 * Why: the sandbox runs on a developer's laptop while they browse the web. A page on another
 * origin can make their browser POST a form or a `text/plain` fetch to localhost (no preflight),
 * and a DNS-rebinding name (one that resolves to 127.0.0.1) makes the browser treat the sandbox as
 * that page's own origin. The Host check stops the second; the cross-site check the first.
 */
import { networkInterfaces } from "node:os";
import type { Config } from "../lib/config";
import { isLoopback, isLoopbackBind } from "../lib/net";
import { ApiError } from "../domain/errors";

/** Messages of the guard's refusals; tests compare against these. */
export const GUARD_MESSAGES = {
  foreignHost: (host: string) =>
    `This sandbox does not answer the Host "${host}". It answers localhost, 127.0.0.1 and [::1] on its port, ` +
    "its own addresses when bound beyond loopback, and names given with --allow-host.",
  crossSite:
    "Sandbox controls and dashboard actions accept requests from this origin only (a page on another site sent this one).",
  notJson: "Sandbox controls and dashboard actions accept Content-Type: application/json only.",
  remoteSandbox:
    "The /_sandbox routes and the dashboard answer loopback clients only; start with --allow-remote-sandbox to open them.",
  proxied:
    "This request came through a proxy (it carries Forwarded or X-Forwarded-For), so its client is unknown; " +
    "start with --trust-proxy to believe the proxy, or call the sandbox directly.",
} as const;

/** The listening server as far as the guard needs it (Bun's Server, or a test's stand-in). */
export interface ServerLike {
  port?: number;
  requestIP(request: Request): { address: string } | null;
}

export { isLoopback, isLoopbackBind } from "../lib/net";

/**
 * Names that reach this machine's loopback. 10.0.2.2 is how the Android emulator reaches its host's
 * loopback; an IP literal cannot be rebound to another address, so allowing it opens nothing.
 */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]", "10.0.2.2"];

/** Splits a Host header value into a lower-case name and its port ("" when none). */
export function splitHost(host: string): { name: string; port: string } {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(host.trim().toLowerCase());
  return match ? { name: match[1]!, port: match[2] ?? "" } : { name: host.toLowerCase(), port: "" };
}

/** This machine's addresses as Host names (IPv6 in brackets), for a server bound beyond loopback. */
function machineAddresses(): string[] {
  const names: string[] = [];
  for (const list of Object.values(networkInterfaces()))
    for (const info of list ?? []) {
      const address = info.address.replace(/%.*$/, "").toLowerCase();
      names.push(info.family === "IPv6" ? `[${address}]` : address);
    }
  return names;
}

/**
 * Decides which Host values this sandbox answers. Loopback names are allowed on the listening
 * port; an app without a listening server (tests calling app.handle) has no port to compare,
 * so there the loopback names are allowed with any port. --allow-host NAME allows NAME on any
 * port, NAME:PORT only on that one. The public URL's host is always allowed.
 */
export class HostAllowlist {
  private readonly anyPort = new Set<string>();
  private readonly exact = new Set<string>();
  private readonly ownNames: string[];

  constructor(
    config: Config,
    private readonly publicUrl: () => string,
  ) {
    this.ownNames = isLoopbackBind(config.host) ? [] : machineAddresses();
    for (const entry of config.allowHost) {
      const { name, port } = splitHost(entry);
      if (port) this.exact.add(`${name}:${port}`);
      else this.anyPort.add(name);
    }
  }

  allows(hostHeader: string, listeningPort: number | undefined): boolean {
    const { name, port } = splitHost(hostHeader);
    if (this.anyPort.has(name) || this.exact.has(`${name}:${port}`)) return true;
    if (this.matchesPublicUrl(name, port)) return true;
    const local = LOOPBACK_NAMES.includes(name) || this.ownNames.includes(name);
    if (!local) return false;
    return listeningPort === undefined || port === String(listeningPort);
  }

  /** The public URL last parsed, and its host name and port (parsed once, not per request). */
  private parsed: { url: string; hostname: string; port: string; defaultPort: string } | null = null;

  private matchesPublicUrl(name: string, port: string): boolean {
    const text = this.publicUrl();
    if (this.parsed?.url !== text) {
      try {
        const url = new URL(text);
        const defaultPort = url.protocol === "https:" ? "443" : "80";
        this.parsed = { url: text, hostname: url.hostname.toLowerCase(), port: url.port || defaultPort, defaultPort };
      } catch {
        return false;
      }
    }
    const { hostname, port: publicPort, defaultPort } = this.parsed;
    return hostname === name && publicPort === (port || defaultPort);
  }
}

/** The Host a request was addressed to: the header, else (in-process requests) the URL's. */
export function requestHost(request: Request, config: Config): string {
  if (config.trustProxy) {
    const forwarded = request.headers.get("x-forwarded-host");
    if (forwarded) return forwarded.split(",")[0]!.trim();
  }
  return request.headers.get("host") ?? new URL(request.url).host;
}

/** Throws 403 unless the request's Host (and, with --trust-proxy, X-Forwarded-Host) is allowed. */
export function checkHost(
  request: Request,
  config: Config,
  allowlist: HostAllowlist,
  server: ServerLike | null | undefined,
): void {
  const hosts = [request.headers.get("host") ?? new URL(request.url).host];
  if (config.trustProxy) {
    const forwarded = request.headers.get("x-forwarded-host");
    if (forwarded) hosts.push(forwarded.split(",")[0]!.trim());
  }
  const port = config.trustProxy && hosts.length > 1 ? undefined : server?.port;
  for (const host of hosts) {
    if (!allowlist.allows(host, port)) throw new ApiError("forbidden", GUARD_MESSAGES.foreignHost(host.slice(0, 100)));
  }
}

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
