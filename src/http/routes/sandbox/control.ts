/**
 * What every sandbox control shares: the loopback guard and the merchant a control acts on (the
 * reset and merchant deletion themselves are deps.services.sandbox).
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { checkLoopbackClient } from "../../pipeline/sandbox-controls";

/**
 * Guards a plugin to loopback clients unless --allow-remote-sandbox is set (src/http/pipeline/sandbox-controls.ts; the
 * app's pipeline checks /_sandbox and the dashboard paths already, this keeps each plugin's
 * promise true wherever it is mounted). In-process requests (app.handle in tests) count as local.
 */
export function loopbackOnly(deps: AppDeps) {
  // On transform, before the body is validated: a remote client is refused whatever it sent.
  return new Elysia().onTransform({ as: "scoped" }, ({ request, server }) =>
    checkLoopbackClient(request, deps.config, server),
  );
}

/** The merchant a sandbox control acts on: the one whose API key is sent, else the default merchant. */
export async function sandboxMerchant(deps: AppDeps, authorization: string | undefined) {
  return authorization
    ? deps.services.merchants.authenticateApiKey(authorization)
    : deps.services.merchants.getDefault();
}
