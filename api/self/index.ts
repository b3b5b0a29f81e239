import { Elysia } from "elysia";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { merchantRecord } from "../merchants/service";
import { ErrorBody, MerchantRecord } from "../models";

export function selfRoutes(deps: AppDeps) {
  return new Elysia({ tags: ["Merchant"] })
    .use(merchantAuth(deps))
    .get("/self", ({ merchant }) => merchantRecord(merchant), {
      response: { 200: MerchantRecord, 401: ErrorBody, 403: ErrorBody },
      detail: { summary: "The merchant of the API key, with its settings and webhook secret" },
    });
}
