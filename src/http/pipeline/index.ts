/**
 * The request pipeline: one Elysia plugin per cross-cutting concern, composed here in the order
 * every request meets them (docs/security.md "The request pipeline"):
 *
 * 1. the Host check ............................ host.ts (with the NUL refusal of url.ts)
 * 2. CORS for the public routes ................ cors.ts
 * 3. the sandbox controls' loopback and
 *    cross-site checks ......................... sandbox-controls.ts
 * 4. rate limits and chaos ..................... limits.ts
 * 5. targeted faults (POST /_sandbox/faults) ... faults.ts
 * then, per route: the body (json.ts, read by body.ts: a malformed one is refused before auth),
 * authentication (../auth.ts), validation against the route's schema, the handler; and for any
 * error on the way, the one envelope (error-envelope.ts, with request-id.ts). request-log.ts
 * times the whole (--log-requests). tests/http/pipeline-order.test.ts holds the order.
 *
 * Steps 1 to 5 run in onRequest, before routing; a step that refuses throws, and the envelope
 * answers (a reset_after_commit fault also drops the answer after the handler). Steps that are off (request log, limits) add no hook.
 *
 * @example
 * new Elysia().use(pipeline(deps)).use(chargeRoutes(deps));
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { cors } from "./cors";
import { errorEnvelope } from "./error-envelope";
import { hostCheck } from "./host";
import { jsonBody } from "./json";
import { limits } from "./limits";
import { faults } from "./faults";
import { requestLog } from "./request-log";
import { sandboxControlsGuard } from "./sandbox-controls";
import { urlNulCheck } from "./url";

export { parseJsonBody } from "./json";

export function pipeline(deps: AppDeps) {
  return new Elysia({ name: "pipeline" })
    .use(requestLog(deps))
    .use(hostCheck(deps))
    .use(urlNulCheck())
    .use(cors())
    .use(sandboxControlsGuard(deps))
    .use(limits(deps))
    .use(faults(deps))
    .use(jsonBody())
    .use(errorEnvelope(deps));
}
