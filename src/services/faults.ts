/**
 * Targeted faults (POST /_sandbox/faults): a merchant's next requests that match a route pattern
 * fail in a chosen way — an error answer, a connection that drops before or after the request
 * runs, an answer that never comes, or one that comes late. The request pipeline fires them
 * (src/http/pipeline/faults.ts); this service holds what is armed and what fired, per merchant.
 *
 * Held in this process's memory: a request with nothing armed costs one check of a counter, and
 * a fault is a test's instruction to the process it talks to. --chaos (random faults) is separate.
 */
import { ValidationFailed } from "../domain/errors";
import { formatTimestamp } from "../domain/time";

export const FAULT_KINDS = [
  "error_500",
  "unavailable_503",
  "rate_limited_429",
  "timeout",
  "reset",
  "reset_after_commit",
  "latency",
] as const;

/** How a faulted request fails (docs/testing-failures.md "Targeted faults"). */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Bounds: far beyond any test, small enough that a typo cannot arm a fault for hours. */
export const MAX_FAULT_COUNT = 1000;
export const MAX_LATENCY_MS = 60_000;
/** Faults pending per merchant, and fired ones kept for GET and the dashboard. */
export const MAX_PENDING_FAULTS = 100;
export const MAX_FIRED_FAULTS = 200;

/** A route of the app, as a fault pattern is checked against it. */
export interface RouteInfo {
  method: string;
  path: string;
}

export interface Fault {
  id: string;
  route: string;
  kind: FaultKind;
  /** How many matching requests it fails in all. */
  count: number;
  /** How many of them are still to come. */
  remaining: number;
  latency_ms: number | null;
  created_at: string;
}

export interface FiredFault {
  /** This firing's id (the X-Sandbox-Fault-Id header of the faulted answer). */
  id: string;
  fault_id: string;
  kind: FaultKind;
  route: string;
  method: string;
  path: string;
  fired_at: string;
  /** latency: how long the request was held. */
  latency_ms: number | null;
  /** The transaction the faulted request made, when it ran (reset_after_commit, latency). */
  transaction_id: string | null;
}

/** The 422 messages of POST /_sandbox/faults (tests compare against these). */
export const FAULT_MESSAGES = {
  routeRequired: 'The route field is required: a method and a path, e.g. "POST /charge" (* matches anything).',
  routeShape: (route: string) =>
    `The route ${JSON.stringify(route)} is not a method and a path, e.g. "POST /charge" or "* /transaction/*".`,
  routeUnknown: (route: string) => `The route ${JSON.stringify(route)} matches no route of the sandbox's API.`,
  routeControl: (route: string) =>
    `The route ${JSON.stringify(route)} is a sandbox control (/_sandbox/…), which faults never touch.`,
  kindUnknown: (kind: unknown) =>
    `${JSON.stringify(kind)} is not a fault kind; the kinds are ${FAULT_KINDS.join(", ")}.`,
  count: (count: unknown) =>
    `The count must be a whole number from 1 to ${MAX_FAULT_COUNT}; got ${JSON.stringify(count)}.`,
  latencyRequired: `A latency fault needs latency_ms: a whole number of milliseconds from 1 to ${MAX_LATENCY_MS}.`,
  latency: (value: unknown) =>
    `The latency_ms must be a whole number from 1 to ${MAX_LATENCY_MS}; got ${JSON.stringify(value)}.`,
  tooMany: `At most ${MAX_PENDING_FAULTS} faults may be pending per merchant; clear some first (DELETE /_sandbox/faults).`,
} as const;

const METHODS = new Set(["*", "GET", "POST", "PUT", "PATCH", "DELETE"]);

/** A pattern's parts: the method (or *) and a path whose * matches any characters. */
function parsePattern(route: string): { method: string; path: RegExp; text: string } | null {
  const match = /^\s*([A-Za-z*]+)\s+(\/\S*)\s*$/.exec(route);
  if (!match || !METHODS.has(match[1]!.toUpperCase())) return null;
  const text = match[2]!;
  const source = text.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return { method: match[1]!.toUpperCase(), path: new RegExp(`^${source.join(".*")}$`), text };
}

/** A route's path as a pattern would name it (`:id` → a sample segment) and as a regular expression. */
function routeShapes(path: string): { sample: string; pattern: RegExp } {
  const sample = path.replace(/:[^/]+/g, "x") || "/";
  const source = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.+?^${}()|[\]\\*]/g, "\\$&")));
  return { sample, pattern: new RegExp(`^${source.join("/") || "/"}$`) };
}

const isControl = (path: string) => path === "/_sandbox" || path.startsWith("/_sandbox/");

export class FaultService {
  private readonly pending = new Map<string, Fault[]>();
  private readonly fired = new Map<string, FiredFault[]>();
  /** Faults pending across every merchant: 0 lets each request pass with one comparison. */
  private armedCount = 0;

  constructor(private readonly now: () => Date = () => new Date()) {}

  /** True when some merchant has a fault pending. */
  get armed(): boolean {
    return this.armedCount > 0;
  }

  /**
   * Arms a fault for the merchant's next matching requests, after the ones armed before. Anything
   * wrong is a 422 naming it, and nothing is armed. `routes` are the app's routes.
   */
  arm(
    merchantId: string,
    input: { route?: unknown; kind?: unknown; count?: unknown; latency_ms?: unknown },
    routes: readonly RouteInfo[],
  ): Fault {
    const errors: Record<string, string[]> = {};
    const route = input.route;
    if (typeof route !== "string" || route.trim() === "") {
      errors.route = [FAULT_MESSAGES.routeRequired];
    } else {
      const pattern = parsePattern(route);
      if (!pattern) errors.route = [FAULT_MESSAGES.routeShape(route)];
      else if (isControl(pattern.text.replaceAll("*", "x"))) errors.route = [FAULT_MESSAGES.routeControl(route)];
      else if (!this.matchesARoute(pattern, routes)) errors.route = [FAULT_MESSAGES.routeUnknown(route)];
    }
    const kind = input.kind;
    if (typeof kind !== "string" || !(FAULT_KINDS as readonly string[]).includes(kind)) {
      errors.kind = [FAULT_MESSAGES.kindUnknown(kind)];
    }
    const count = input.count ?? 1;
    if (typeof count !== "number" || !Number.isInteger(count) || count < 1 || count > MAX_FAULT_COUNT) {
      errors.count = [FAULT_MESSAGES.count(count)];
    }
    const latency = input.latency_ms;
    if (kind === "latency" && latency === undefined) errors.latency_ms = [FAULT_MESSAGES.latencyRequired];
    else if (
      latency !== undefined &&
      (typeof latency !== "number" || !Number.isInteger(latency) || latency < 1 || latency > MAX_LATENCY_MS)
    ) {
      errors.latency_ms = [FAULT_MESSAGES.latency(latency)];
    }
    const list = this.pending.get(merchantId) ?? [];
    if (list.length >= MAX_PENDING_FAULTS) errors.route = [...(errors.route ?? []), FAULT_MESSAGES.tooMany];
    if (Object.keys(errors).length > 0) throw new ValidationFailed(errors);
    const fault: Fault = {
      id: crypto.randomUUID(),
      route: (route as string).trim().replace(/\s+/, " "),
      kind: kind as FaultKind,
      count: count as number,
      remaining: count as number,
      latency_ms: typeof latency === "number" ? latency : null,
      created_at: formatTimestamp(this.now()),
    };
    list.push(fault);
    this.pending.set(merchantId, list);
    this.armedCount++;
    return fault;
  }

  private matchesARoute(pattern: NonNullable<ReturnType<typeof parsePattern>>, routes: readonly RouteInfo[]): boolean {
    const concrete = pattern.text.replaceAll("*", "x");
    return routes.some((route) => {
      if (isControl(route.path)) return false;
      if (pattern.method !== "*" && route.method.toUpperCase() !== pattern.method) return false;
      const shapes = routeShapes(route.path);
      return pattern.path.test(shapes.sample) || shapes.pattern.test(concrete);
    });
  }

  /**
   * The fault this request meets, if any: the first pending one of the merchant (in the order
   * armed) whose pattern matches. It is counted as fired at once.
   */
  take(merchantId: string, method: string, path: string): FiredFault | null {
    if (isControl(path)) return null;
    const list = this.pending.get(merchantId);
    if (!list) return null;
    const index = list.findIndex((fault) => {
      const pattern = parsePattern(fault.route)!;
      return (pattern.method === "*" || pattern.method === method.toUpperCase()) && pattern.path.test(path);
    });
    if (index < 0) return null;
    const fault = list[index]!;
    fault.remaining--;
    if (fault.remaining === 0) {
      list.splice(index, 1);
      this.armedCount--;
      if (list.length === 0) this.pending.delete(merchantId);
    }
    const fired: FiredFault = {
      id: crypto.randomUUID(),
      fault_id: fault.id,
      kind: fault.kind,
      route: fault.route,
      method: method.toUpperCase(),
      path,
      fired_at: formatTimestamp(this.now()),
      latency_ms: fault.latency_ms,
      transaction_id: null,
    };
    const history = this.fired.get(merchantId) ?? [];
    history.push(fired);
    if (history.length > MAX_FIRED_FAULTS) history.shift();
    this.fired.set(merchantId, history);
    return fired;
  }

  /**
   * Notes that a faulted request ran (latency, reset_after_commit) and the transaction it made, if
   * any; answers the firing, or undefined when it is no longer kept (cleared meanwhile).
   */
  ran(firedId: string, transactionId: string | null): FiredFault | undefined {
    for (const history of this.fired.values()) {
      const fired = history.find((entry) => entry.id === firedId);
      if (fired) {
        fired.transaction_id = transactionId;
        return fired;
      }
    }
    return undefined;
  }

  /** What is pending and what fired, for the merchant. */
  list(merchantId: string): { pending: Fault[]; fired: FiredFault[] } {
    return {
      pending: (this.pending.get(merchantId) ?? []).map((fault) => ({ ...fault })),
      fired: (this.fired.get(merchantId) ?? []).map((fired) => ({ ...fired })),
    };
  }

  /** The faults that fired on requests that made this transaction (the dashboard's transaction page). */
  firedFor(merchantId: string, transactionId: string): FiredFault[] {
    return (this.fired.get(merchantId) ?? []).filter((fired) => fired.transaction_id === transactionId);
  }

  /** Clears the merchant's pending and fired faults; answers how many were pending. */
  clear(merchantId: string): number {
    const list = this.pending.get(merchantId) ?? [];
    this.armedCount -= list.length;
    this.pending.delete(merchantId);
    this.fired.delete(merchantId);
    return list.length;
  }
}
