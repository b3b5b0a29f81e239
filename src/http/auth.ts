import { Elysia } from "elysia";
import type { AppDeps } from "./deps";

/**
 * Resolves the merchant of `Authorization: Bearer <api_key>` before the body is validated, so
 * a request without a valid key is a 401 whatever else is wrong with it.
 */
export function merchantAuth(deps: AppDeps) {
  return new Elysia().derive({ as: "scoped" }, async ({ headers }) => ({
    merchant: await deps.services.merchants.authenticateApiKey(headers.authorization),
  }));
}

/** The merchant of the web payments token in the path of a public route. */
export function tokenAuth(deps: AppDeps) {
  return new Elysia().derive({ as: "scoped" }, async ({ params }) => ({
    merchant: await deps.services.merchants.authenticateToken((params as { token?: string }).token ?? ""),
  }));
}
