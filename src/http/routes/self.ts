import { Elysia } from "elysia";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { ErrorBody } from "../../domain/schemas/records";
import { SelfRecord } from "../../domain/schemas/self";
import { selfRecord } from "../../services/self";

export function selfRoutes(deps: AppDeps) {
  return new Elysia({ tags: ["Merchant"] })
    .use(merchantAuth(deps))
    .get("/self", ({ merchant }) => selfRecord(merchant), {
      response: { 200: SelfRecord, 401: ErrorBody, 403: ErrorBody },
      detail: {
        summary: "The merchant of the API key: its settings and webhook secret, plus { user, merchant }",
        description:
          "The sandbox's merchant fields at the top level; `user` (the key's API user) and `merchant` (hosted_payments_token is the web payments token, options its settings) in the real service's shape.",
      },
    });
}
