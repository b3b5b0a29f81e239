import { Elysia, t } from "elysia";
import { listPage } from "../../page";
import type { AppDeps } from "../../deps";
import { ErrorBody, PageOf, PageQuery } from "../../../domain/schemas/records";
import { DeliveryQuery, DeliveryRecord } from "../../../domain/schemas/webhooks";
import { loopbackOnly, sandboxMerchant } from "./control";

const IdParams = t.Object({ id: t.String() });

/** `/_sandbox/webhook-deliveries`: every delivery of the acting merchant, and redelivery. */
export function webhookDeliveryRoutes(deps: AppDeps) {
  const { webhooks } = deps.services;
  return new Elysia({ prefix: "/_sandbox/webhook-deliveries", tags: ["Sandbox control"] })
    .use(loopbackOnly(deps))
    .get(
      "",
      async ({ headers, query, request }) => {
        const merchant = await sandboxMerchant(deps, headers.authorization);
        const filters = {
          webhookId: query.webhook_id,
          status: query.status,
          event: query.event,
          recordId: query.record_id,
        };
        return listPage(query, request, (page) => webhooks.listDeliveries(merchant.id, filters, page));
      },
      {
        query: t.Object({ ...PageQuery, ...DeliveryQuery, webhook_id: t.Optional(t.String()) }),
        response: { 200: PageOf(DeliveryRecord), 401: ErrorBody, 403: ErrorBody, 422: ErrorBody },
        detail: { summary: "Webhook deliveries of the acting merchant, newest first, with every attempt" },
      },
    )
    .get(
      "/:id",
      async ({ headers, params }) =>
        webhooks.getDelivery((await sandboxMerchant(deps, headers.authorization)).id, params.id),
      {
        params: IdParams,
        response: { 200: DeliveryRecord, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        detail: { summary: "One webhook delivery with every attempt" },
      },
    )
    .post(
      "/:id/redeliver",
      async ({ headers, params }) =>
        webhooks.redeliver((await sandboxMerchant(deps, headers.authorization)).id, params.id),
      {
        params: IdParams,
        response: { 200: DeliveryRecord, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody },
        detail: {
          summary: "Send a delivery again",
          description:
            "Creates a new delivery (new PaySandbox-Delivery-Id, redelivery_of set) with the same body, due now.",
        },
      },
    );
}
