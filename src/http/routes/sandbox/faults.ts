import { Elysia, t } from "elysia";
import type { AppDeps } from "../../deps";
import { ErrorBody, Integer, Nullable, Timestamp } from "../../../domain/schemas/records";
import { FAULT_KINDS, MAX_FAULT_COUNT, MAX_LATENCY_MS, type RouteInfo } from "../../../services/faults";
import { loopbackOnly, sandboxMerchant } from "./control";

const Kind = t.String({ description: "How the request fails (docs/testing-failures.md): " + FAULT_KINDS.join(", ") });
const Fault = t.Object(
  {
    id: t.String(),
    route: t.String({ description: 'The pattern: a method and a path, * matches anything ("POST /charge")' }),
    kind: Kind,
    count: Integer({ description: "How many matching requests it fails" }),
    remaining: Integer({ description: "How many of them are still to come" }),
    latency_ms: Nullable(Integer()),
    created_at: Timestamp,
  },
  { title: "Fault" },
);
const FiredFault = t.Object(
  {
    id: t.String({ description: "The X-Sandbox-Fault-Id of the faulted answer" }),
    fault_id: t.String(),
    kind: Kind,
    route: t.String(),
    method: t.String(),
    path: t.String(),
    fired_at: Timestamp,
    latency_ms: Nullable(Integer()),
    transaction_id: Nullable(t.String({ description: "The transaction the request made, when it ran" })),
  },
  { title: "FiredFault" },
);

/**
 * `/_sandbox/faults`: targeted faults. The acting merchant's next requests matching a route pattern
 * fail the armed way (src/http/pipeline/faults.ts), in the order armed. `routes` lists the app's
 * routes, which a pattern must match. Loopback only.
 */
export function faultRoutes(deps: AppDeps, routes: () => readonly RouteInfo[]) {
  const { faults } = deps.services;
  const merchantOf = async (authorization: string | undefined) => (await sandboxMerchant(deps, authorization)).id;
  return new Elysia({ prefix: "/_sandbox/faults", tags: ["Sandbox control"] })
    .use(loopbackOnly(deps))
    .post("", async ({ headers, body }) => faults.arm(await merchantOf(headers.authorization), body, routes()), {
      body: t.Object({
        route: t.Optional(
          t.Unknown({ description: 'A method and a path of the API; * matches anything: "POST /charge"' }),
        ),
        kind: t.Optional(t.Unknown({ description: FAULT_KINDS.join(", ") })),
        count: t.Optional(
          t.Unknown({ description: `How many matching requests it fails: 1 (default) to ${MAX_FAULT_COUNT}` }),
        ),
        latency_ms: t.Optional(t.Unknown({ description: `latency: how long each is held, 1 to ${MAX_LATENCY_MS} ms` })),
      }),
      response: { 200: Fault, 401: ErrorBody, 403: ErrorBody, 422: ErrorBody },
      detail: {
        summary: "Make the acting merchant's next matching requests fail",
        description:
          "error_500, unavailable_503 and rate_limited_429 (both with Retry-After) answer that error before the request runs; timeout holds the request until the client gives up (nothing runs); reset drops the connection before the request runs; reset_after_commit lets it run and commit, then drops the connection without an answer; latency holds it latency_ms, then serves it. Faulted answers carry X-Sandbox-Fault. A route that matches no API route, an unknown kind, a count outside 1-1000: 422 naming it, nothing armed.",
      },
    })
    .get("", async ({ headers }) => faults.list(await merchantOf(headers.authorization)), {
      response: {
        200: t.Object({ pending: t.Array(Fault), fired: t.Array(FiredFault) }),
        401: ErrorBody,
        403: ErrorBody,
      },
      detail: { summary: "The acting merchant's pending faults and the ones that fired" },
    })
    .delete("", async ({ headers }) => ({ cleared: faults.clear(await merchantOf(headers.authorization)) }), {
      response: {
        200: t.Object({ cleared: Integer({ description: "Pending faults removed" }) }),
        401: ErrorBody,
        403: ErrorBody,
      },
      detail: { summary: "Clear the acting merchant's pending and fired faults" },
    });
}
