import { Elysia, t } from "elysia";
import type { AppDeps } from "../../deps";
import { ErrorBody, Integer } from "../../../domain/schemas/records";
import { loopbackOnly, sandboxMerchant } from "./control";

/** `/_sandbox/reset`: every record of the acting merchant deleted and its clock back on real time. */
export function resetRoutes(deps: AppDeps) {
  return new Elysia({ prefix: "/_sandbox", tags: ["Sandbox control"] }).use(loopbackOnly(deps)).post(
    "/reset",
    async ({ headers }) => {
      const merchant = await sandboxMerchant(deps, headers.authorization);
      const deleted = await deps.services.sandbox.reset(merchant.id);
      await deps.clock.resetToRealTime(merchant.id);
      return { deleted };
    },
    {
      response: { 200: t.Object({ deleted: t.Record(t.String(), Integer()) }), 401: ErrorBody, 403: ErrorBody },
      detail: {
        summary:
          "Delete every record of the acting merchant and put its clock back on real time (keys and settings stay)",
      },
    },
  );
}
