import { t } from "elysia";
import { EVENT_NAMES } from "../events";
import { MAX_ATTEMPTS, RETRY_COUNT_RANGE, RETRY_FREQUENCY_RANGE } from "../webhook-policy";
import { Integer, OneOfString, RuleString } from "./records";

const Timestamp = t.String({ description: "YYYY-MM-DD HH:MM:SS (UTC)" });
const NullableTimestamp = t.Union([Timestamp, t.Null()]);

/** target_url's rule (an http(s) URL of at most 2048 characters), enforced by validateWebhook (RuleString). */
const TARGET_URL_RULE = { pattern: "^\\s*[hH][tT][tT][pP][sS]?://[^/\\s]", maxLength: 2048 } as const;

/** `meta` of POST /webhook (and PUT): the webhook's own retry schedule. A fresh schema per use (Elysia edits them in place). */
const RetryMetaBody = () =>
  t.Object(
    {
      webhook_retry_count: t.Optional(
        Integer({
          ...RETRY_COUNT_RANGE,
          description: `retries after a failed first attempt; absent: ${MAX_ATTEMPTS - 1}`,
          examples: [3],
        }),
      ),
      webhook_retry_frequency: t.Optional(
        Integer({
          ...RETRY_FREQUENCY_RANGE,
          description: "minutes between attempts, on the sandbox clock; absent: 10 s, 1 min, 10 min, then 1 h",
          examples: [5],
        }),
      ),
    },
    {
      additionalProperties: true,
      description: "the retry settings; other members are accepted and not kept",
    },
  );

/** target_url and event of POST /webhook, in the body or the query string (a fresh schema per use). */
const webhookTarget = (where: string) => ({
  target_url: t.Optional(
    RuleString({
      description: `http(s) URL that receives a POST per event. Required, here or in the ${where}.`,
      examples: ["https://example.com/hooks"],
      ...TARGET_URL_RULE,
    }),
  ),
  event: t.Optional(
    OneOfString([...EVENT_NAMES, "*"], `an event name, or * for every event. Required, here or in the ${where}.`),
  ),
});

/**
 * POST /webhook's body. The real service takes target_url and event as query parameters
 * (WebhookQuery); the sandbox takes them there, in the body, or one in each. Given in both, the
 * body's wins (as the real service's framework merges input). A document cannot require a member
 * "in the body or the query", so both are optional in each and the service names a missing one.
 */
export const WebhookBody = t.Object(
  { ...webhookTarget("query string"), meta: t.Optional(RetryMetaBody()) },
  { title: "WebhookRequest" },
);
export type WebhookBody = typeof WebhookBody.static;

/** POST /webhook's query parameters: the real service's way to give target_url and event. */
export const WebhookQuery = t.Object(webhookTarget("body"));

export const WebhookUpdateBody = t.Object(
  {
    target_url: t.Optional(RuleString({ description: "a new http(s) URL", ...TARGET_URL_RULE })),
    event: t.Optional(OneOfString([...EVENT_NAMES, "*"], "an event name, or *")),
    disabled: t.Optional(
      t.Boolean({
        description: "true: receive nothing new (pending deliveries wait); false: receive again and send what waited",
      }),
    ),
    meta: t.Optional(RetryMetaBody()),
  },
  { title: "WebhookUpdateRequest" },
);
export type WebhookUpdateBody = typeof WebhookUpdateBody.static;

export const WebhookRecord = t.Object(
  {
    id: t.String(),
    user_id: t.String({ description: "the API user the merchant's key acts as (GET /self user.id)" }),
    merchant_id: t.String(),
    reference_id: t.Null({ description: "always null: no webhook here is tied to one record" }),
    url: t.String({ description: "the real service's name for target_url (the same value)" }),
    target_url: t.String(),
    event: t.String(),
    meta: t.Object(
      {
        webhook_retry_count: t.Union([Integer(), t.Null()], { description: "null: the default (4 retries)" }),
        webhook_retry_frequency: t.Union([Integer(), t.Null()], {
          description: "minutes between attempts; null: the default (10 s, 1 min, 10 min, then 1 h)",
        }),
      },
      { description: "the retry settings given at POST /webhook (or PUT)" },
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
    disabled_at: t.Union([Timestamp, t.Null()], { description: "set while the webhook is disabled" }),
    deleted_at: NullableTimestamp,
  },
  { title: "Webhook" },
);
export type Webhook = typeof WebhookRecord.static;

export const DELIVERY_STATUSES = ["pending", "delivered", "failed", "cancelled"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
const Status = (description?: string) =>
  t.Union([t.Literal("pending"), t.Literal("delivered"), t.Literal("failed"), t.Literal("cancelled")], {
    description,
  });

export const AttemptRecord = t.Object(
  {
    attempt: Integer({ description: "1-based attempt number" }),
    started_at: Timestamp,
    success: t.Boolean({ description: "the receiver answered 2xx" }),
    status_code: t.Union([Integer(), t.Null()], { description: "null when no HTTP answer came (timeout, refused)" }),
    latency_ms: t.Union([Integer(), t.Null()], { description: "null while the request is out" }),
    response_snippet: t.Union([t.String(), t.Null()], { description: "the start of the receiver's answer" }),
    request_headers: t.Record(t.String(), t.String(), { description: "the headers sent, signature included" }),
    response_headers: t.Union([t.Record(t.String(), t.String()), t.Null()], {
      description: "the headers of the receiver's answer; null when none came",
    }),
    error: t.Union([t.String(), t.Null()]),
  },
  { title: "WebhookAttempt" },
);

export const DeliveryRecord = t.Object(
  {
    id: t.String({ description: "also sent as PaySandbox-Delivery-Id" }),
    webhook_id: t.String(),
    target_url: t.String(),
    event: t.String(),
    record_id: t.String({ description: "id of the record the event is about" }),
    status: Status(
      "pending (will be sent or retried), delivered (a 2xx came back), failed (gave up), cancelled (the webhook was deleted)",
    ),
    attempts: Integer({ description: "completed attempts" }),
    max_attempts: Integer({
      default: MAX_ATTEMPTS,
      description: "attempts it gets: the webhook's meta.webhook_retry_count + 1 (5 by default)",
    }),
    next_attempt_at: t.Union([Timestamp, t.Null()], { description: "on the merchant's sandbox clock" }),
    last_status_code: t.Union([Integer(), t.Null()]),
    last_error: t.Union([t.String(), t.Null()]),
    delivered_at: NullableTimestamp,
    redelivery_of: t.Union([t.String(), t.Null()], { description: "the delivery this one re-sends" }),
    payload: t.Unknown({ description: "the body sent: the record as it was when the event happened" }),
    attempt_log: t.Array(AttemptRecord),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: "WebhookDelivery" },
);
export type Delivery = typeof DeliveryRecord.static;

export const DeliveryQuery = {
  status: t.Optional(Status()),
  event: t.Optional(t.String()),
  record_id: t.Optional(t.String()),
};
