/**
 * Step 5 of the request pipeline: targeted faults (POST /_sandbox/faults, src/services/faults.ts).
 * The calling merchant's next request that matches an armed fault fails its way, with the header
 * `X-Sandbox-Fault: <kind>` on any answer:
 *
 * - error_500, unavailable_503 (Retry-After), rate_limited_429 (Retry-After): that answer in the
 *   error envelope, before routing; nothing runs.
 * - timeout: no answer until the client gives up (or 35 s, then a 500); nothing runs.
 * - reset: the connection drops before the request runs, without an answer.
 * - reset_after_commit: the request runs and commits, then the connection drops without an answer.
 * - latency: held latency_ms, then served normally.
 *
 * The merchant is the API key's, the web payments token's of a public route, else the default
 * merchant. With nothing armed a request costs one comparison. --chaos (limits.ts) is separate.
 *
 * @example
 * new Elysia().use(faults(deps)).post("/charge", () => "charged");
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { ApiError } from "../../domain/errors";
import { pathOf } from "./url";

/** How long a `timeout` fault holds a request whose client has not given up (then a 500). */
export const FAULT_TIMEOUT_MS = 35_000;
/** The Retry-After of the 503 and 429 faults, in seconds. */
export const FAULT_RETRY_AFTER_S = 1;

export const FAULT_ANSWERS = {
  error500: "Simulated failure (a fault armed with POST /_sandbox/faults): nothing was written.",
  unavailable503: `The service is unavailable (a fault armed with POST /_sandbox/faults); retry after ${FAULT_RETRY_AFTER_S} s.`,
  rateLimited429: `Too many requests (a fault armed with POST /_sandbox/faults); retry after ${FAULT_RETRY_AFTER_S} s.`,
  timeout: "No answer in time (a timeout fault armed with POST /_sandbox/faults): nothing was written.",
} as const;

/**
 * An answer that never comes: its body fails before a byte is sent, so the server drops the
 * connection (the client sees a reset) and logs nothing.
 */
function dropped(kind: string): Response {
  const body = new ReadableStream({
    pull(controller) {
      controller.error(undefined);
    },
  });
  return new Response(body, { status: 200, headers: { "x-sandbox-fault": kind } });
}

/** Waits `ms`, or less when the client goes away. */
function hold(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The merchant a request acts for, as the fault list knows it; null when its credential is unknown. */
async function merchantOf(deps: AppDeps, request: Request, path: string): Promise<string | null> {
  const { merchants } = deps.services;
  try {
    const token = /^\/webpayment\/([^/]+)/.exec(path)?.[1];
    if (token) return (await merchants.authenticateToken(decodeURIComponent(token))).id;
    const authorization = request.headers.get("authorization");
    if (authorization) return (await merchants.authenticateApiKey(authorization)).id;
    return (await merchants.getDefault()).id;
  } catch {
    // A request the API will refuse (401, 403) meets no fault: it answers as it would.
    return null;
  }
}

/** The transaction a faulted request made, from its answer: a transaction, a 402, or an invoice's charge. */
function transactionIdOf(value: unknown): string | null {
  if (!value || typeof value !== "object") return null;
  const body = value as {
    id?: unknown;
    type?: unknown;
    transaction?: { id?: unknown };
    invoice?: { child_transactions?: { id?: unknown }[] };
    child_transactions?: { id?: unknown }[];
    status?: unknown;
  };
  if (typeof body.transaction?.id === "string") return body.transaction.id;
  const invoiceCharge = body.invoice?.child_transactions?.[0]?.id;
  if (typeof invoiceCharge === "string") return invoiceCharge;
  if (typeof body.id === "string" && typeof body.type === "string") return body.id;
  if (typeof body.id === "string" && typeof body.status === "string") {
    const charge = body.child_transactions?.[0]?.id;
    return typeof charge === "string" ? charge : null;
  }
  return null;
}

export function faults(deps: AppDeps) {
  const service = deps.services.faults;
  return new Elysia({ name: "faults" })
    .onRequest(async ({ request, set, server }) => {
      if (!service.armed || request.method === "OPTIONS") return;
      const path = pathOf(request.url);
      if (path.startsWith("/_sandbox")) return;
      const merchantId = await merchantOf(deps, request, path);
      const fired = merchantId === null ? null : service.take(merchantId, request.method, path);
      if (!fired) return;
      // The answer's headers carry the fault to onAfterHandle too (its id names it there).
      set.headers["x-sandbox-fault"] = fired.kind;
      set.headers["x-sandbox-fault-id"] = fired.id;
      deps.log.info(`fault: ${request.method} ${path} meets ${fired.kind} (armed for ${fired.route})`);
      const header = { "x-sandbox-fault": fired.kind, "x-sandbox-fault-id": fired.id };
      const retry = { ...header, "retry-after": String(FAULT_RETRY_AFTER_S) };
      switch (fired.kind) {
        case "error_500":
          throw new ApiError("internal_error", FAULT_ANSWERS.error500, { fault: fired.kind }, header);
        case "unavailable_503":
          throw new ApiError("service_unavailable", FAULT_ANSWERS.unavailable503, { fault: fired.kind }, retry);
        case "rate_limited_429":
          throw new ApiError(
            "rate_limited",
            FAULT_ANSWERS.rateLimited429,
            { fault: fired.kind, retry_after: FAULT_RETRY_AFTER_S },
            retry,
          );
        case "timeout":
          // Bun closes idle connections after 10 s; the hold must outlast the client's patience instead.
          server?.timeout(request, 0);
          await hold(FAULT_TIMEOUT_MS, request.signal);
          throw new ApiError("internal_error", FAULT_ANSWERS.timeout, { fault: fired.kind }, header);
        case "reset":
          return dropped(fired.kind);
        case "latency":
          server?.timeout(request, 0);
          await hold(fired.latency_ms ?? 0, request.signal);
          return;
        case "reset_after_commit":
          return;
      }
    })
    .onAfterHandle({ as: "global" }, ({ set, responseValue }) => {
      const id = set.headers["x-sandbox-fault-id"];
      if (typeof id !== "string") return;
      service.ran(id, transactionIdOf(responseValue));
      // The unit of work has committed (and, on the server, the group commit holds the answer until
      // it is durable): the answer is dropped on its way out.
      const kind = set.headers["x-sandbox-fault"];
      if (kind === "reset_after_commit") return dropped(kind);
    });
}
