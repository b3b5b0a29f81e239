/**
 * Which webhook targets the sandbox sends to, and whose answers it keeps (docs/security.md).
 * Loopback targets (where a developer's receiver runs) are allowed by default; anything else
 * needs --webhook-allow, so a sandbox reachable from a LAN cannot be made to POST into other
 * machines. Response bodies go into the deliveries log only for targets named by --webhook-allow,
 * or for loopback targets while the sandbox itself listens on loopback only: bound beyond
 * loopback, a neighbour with a key must not read the developer's other local services through
 * the log (status and timing are still logged).
 */
import type { Config } from "../../lib/config";
import { isLoopback, isLoopbackBind } from "../../lib/net";

/** Why a delivery was not sent; the deliveries log shows it as the attempt's error. */
export function targetRefusedMessage(host: string): string {
  return `Not sent: ${host} is not an allowed webhook target. Loopback targets are allowed; start the sandbox with --webhook-allow ${host} to allow this one.`;
}

function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return name === "localhost" || name.endsWith(".localhost") || isLoopback(name);
}

export class WebhookTargets {
  private readonly entries: string[];
  private readonly boundToLoopback: boolean;

  constructor(config: Pick<Config, "webhookAllow" | "host">) {
    this.entries = config.webhookAllow.map((entry) => entry.toLowerCase());
    this.boundToLoopback = isLoopbackBind(config.host);
  }

  /** True when --webhook-allow names this URL's host (or host:port), a *.domain above it, or *. */
  private listed(url: URL): boolean {
    const host = url.hostname.toLowerCase();
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    return this.entries.some((entry) => {
      if (entry === "*") return true;
      const at = entry.lastIndexOf(":");
      const hasPort = at > entry.lastIndexOf("]");
      const name = hasPort ? entry.slice(0, at) : entry;
      if (hasPort && entry.slice(at + 1) !== port) return false;
      if (name.startsWith("*.")) return host.endsWith(name.slice(1));
      return host === name;
    });
  }

  /** May the sandbox POST to this URL? */
  allows(target: string): boolean {
    const url = parse(target);
    return url !== null && (isLoopbackName(url.hostname) || this.listed(url));
  }

  /** May the deliveries log keep what this target answered? */
  showsBody(target: string): boolean {
    const url = parse(target);
    if (!url) return false;
    return this.listed(url) || (this.boundToLoopback && isLoopbackName(url.hostname));
  }
}

function parse(target: string): URL | null {
  try {
    return new URL(target);
  } catch {
    return null;
  }
}
