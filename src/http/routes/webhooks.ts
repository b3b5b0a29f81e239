import { Elysia, t } from "elysia";
import { listPage } from "../page";
import { merchantAuth } from "../auth";
import { objectMembers } from "../object-members";
import type { AppDeps } from "../deps";
import { AUTH_ERRORS, ErrorBody, PageOf, PageQuery } from "../../domain/schemas/records";
import {
  DeliveryQuery,
  DeliveryRecord,
  WebhookBody,
  WebhookQuery,
  WebhookRecord,
  WebhookUpdateBody,
} from "../../domain/schemas/webhooks";

const IdParams = t.Object({ id: t.String() });
const NOT_FOUND = { ...AUTH_ERRORS, 404: ErrorBody };

/** POST /webhook's target_url and event from the query string and the body: the body's member wins. */
function webhookInput(query: typeof WebhookQuery.static, body: WebhookBody | undefined) {
  const given = body ?? {};
  return {
    ...given,
    target_url: given.target_url !== undefined ? given.target_url : query.target_url,
    event: given.event !== undefined ? given.event : query.event,
  };
}

/** `/webhook`: subscriptions and their delivery log (merchant API key). */
export function webhookRoutes(deps: AppDeps) {
  const { webhooks } = deps.services;
  return new Elysia({ prefix: "/webhook", tags: ["Webhooks"] })
    .use(merchantAuth(deps))
    .get("", ({ merchant, query, request }) => listPage(query, request, (page) => webhooks.list(merchant.id, page)), {
      query: t.Object(PageQuery),
      response: { 200: PageOf(WebhookRecord), ...AUTH_ERRORS },
      detail: { summary: "List active webhooks (newest first; deleted ones left out)" },
    })
    .post("", ({ merchant, body, query }) => webhooks.create(merchant.id, webhookInput(query, body)), {
      query: WebhookQuery,
      body: WebhookBody,
      transform: objectMembers(WebhookBody),
      response: { 200: WebhookRecord, ...AUTH_ERRORS },
      detail: {
        summary: "Subscribe a URL to an event",
        description:
          'target_url and event are required, each in the query string (as the real service takes them) or in the JSON body; given in both, the body\'s wins. Each event is POSTed to target_url with the record as the body and the headers PaySandbox-Event-Name, PaySandbox-Delivery-Id and PaySandbox-Signature (t=<unix>,v2=<hex HMAC-SHA256(webhook_secret, "<t>.<delivery id>.<event name>.<raw body>")>; packages/webhooks/verify.ts checks it). A non-2xx answer or none within 10 s is retried 4 more times (after 10 s, 1 min, 10 min, 1 h of sandbox time), or as meta says: webhook_retry_count retries, webhook_retry_frequency minutes apart.',
      },
    })
    .get("/:id", ({ merchant, params }) => webhooks.get(merchant.id, params.id), {
      params: IdParams,
      response: { 200: WebhookRecord, ...NOT_FOUND },
      detail: { summary: "Get a webhook (deleted ones too, with deleted_at set)" },
    })
    .put("/:id", ({ merchant, params, body }) => webhooks.update(merchant.id, params.id, body), {
      params: IdParams,
      body: WebhookUpdateBody,
      transform: objectMembers(WebhookUpdateBody),
      response: { 200: WebhookRecord, ...NOT_FOUND },
      detail: {
        summary: "Change a webhook's target_url, event or retry settings, or disable/enable it",
        description:
          "A disabled webhook receives nothing new; its pending deliveries wait and are sent once it is enabled again.",
      },
    })
    .post("/:id/test", ({ merchant, params }) => webhooks.sendTest(merchant.id, params.id), {
      params: IdParams,
      body: t.Optional(t.Object({}, { title: "WebhookTestRequest", description: "nothing to send; {} or no body" })),
      response: { 200: DeliveryRecord, ...NOT_FOUND },
      detail: {
        summary: "Send a test event to one webhook",
        description:
          "A delivery with PaySandbox-Event-Name: test and a small sample body, signed like every other, due now. 422 when the webhook is disabled or deleted.",
      },
    })
    .delete("/:id", ({ merchant, params }) => webhooks.delete(merchant.id, params.id), {
      params: IdParams,
      response: { 200: WebhookRecord, ...NOT_FOUND },
      detail: { summary: "Delete a webhook (soft): it receives nothing more; pending deliveries are cancelled" },
    })
    .get(
      "/:id/deliveries",
      async ({ merchant, params, query, request }) => {
        await webhooks.get(merchant.id, params.id);
        const filters = { webhookId: params.id, status: query.status, event: query.event, recordId: query.record_id };
        return listPage(query, request, (page) => webhooks.listDeliveries(merchant.id, filters, page));
      },
      {
        params: IdParams,
        query: t.Object({ ...PageQuery, ...DeliveryQuery }),
        response: { 200: PageOf(DeliveryRecord), ...NOT_FOUND },
        detail: { summary: "The webhook's deliveries, newest first, each with every attempt" },
      },
    );
}
