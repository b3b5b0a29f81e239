/**
 * Step 1 of the request pipeline (docs/security.md): which Host names the sandbox answers.
 *
 * Why: the sandbox runs on a developer's laptop while they browse the web. A DNS-rebinding name
 * (one that resolves to 127.0.0.1) makes the browser treat the sandbox as that page's own origin;
 * answering only the Host names the sandbox is reached by stops it. Refusals are a 403 in the one
 * error envelope.
 *
 * @example
 * new Elysia().use(hostCheck({ config, publicUrl: "http://localhost:7290" })).get("/", () => "ok");
 */
import { networkInterfaces } from "node:os";
import { Elysia } from "elysia";
import type { Config } from "../../lib/config";
import { isLoopbackBind } from "../../lib/net";
import { ApiError } from "../../domain/errors";
import { GUARD_MESSAGES } from "./messages";

/** The listening server as far as the guard needs it (Bun's Server, or a test's stand-in). */
export interface ServerLike {
  port?: number;
  requestIP(request: Request): { address: string } | null;
}

/**
 * Names that reach this machine's loopback. 10.0.2.2 is how the Android emulator reaches its host's
 * loopback; an IP literal cannot be rebound to another address, so allowing it opens nothing.
 */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]", "10.0.2.2"];

/** How many Host decisions an allowlist keeps (HostAllowlist.allows). */
const MAX_DECISIONS = 64;

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

  /**
   * Decisions by Host value, for the listening port and public URL they were made under: every
   * request asks again, almost always with the same one or two values. Bounded, so a client
   * sending endless distinct Host values costs no memory.
   */
  private readonly decided = new Map<string, boolean>();
  private decidedFor: { port: number | undefined; publicUrl: string } = { port: undefined, publicUrl: "" };

  allows(hostHeader: string, listeningPort: number | undefined): boolean {
    const publicUrl = this.publicUrl();
    if (this.decidedFor.port !== listeningPort || this.decidedFor.publicUrl !== publicUrl) {
      this.decided.clear();
      this.decidedFor = { port: listeningPort, publicUrl };
    }
    let allowed = this.decided.get(hostHeader);
    if (allowed === undefined) {
      allowed = this.decide(hostHeader, listeningPort);
      if (this.decided.size >= MAX_DECISIONS) this.decided.clear();
      this.decided.set(hostHeader, allowed);
    }
    return allowed;
  }

  private decide(hostHeader: string, listeningPort: number | undefined): boolean {
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
  const host = request.headers.get("host") ?? new URL(request.url).host;
  const header = config.trustProxy ? request.headers.get("x-forwarded-host") : null;
  const forwarded = header ? header.split(",")[0]!.trim() : undefined;
  // Behind a proxy that forwards the Host, the listening port says nothing about either name.
  const port = forwarded === undefined ? server?.port : undefined;
  refuseUnlessAllowed(allowlist, host, port);
  if (forwarded !== undefined) refuseUnlessAllowed(allowlist, forwarded, port);
}

function refuseUnlessAllowed(allowlist: HostAllowlist, host: string, port: number | undefined): void {
  if (!allowlist.allows(host, port)) throw new ApiError("forbidden", GUARD_MESSAGES.foreignHost(host.slice(0, 100)));
}

/**
 * The plugin: every request's Host (and, with --trust-proxy, X-Forwarded-Host) must be allowed.
 * `publicUrl` is read per request: the server sets it once it knows its port.
 */
export function hostCheck(deps: { config: Config; publicUrl: string }) {
  const hosts = new HostAllowlist(deps.config, () => deps.publicUrl);
  return new Elysia({ name: "host-check" }).onRequest(({ request, server }) =>
    checkHost(request, deps.config, hosts, server),
  );
}
