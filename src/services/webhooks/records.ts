/**
 * How the webhook service's rows read as records: a webhook (GET /webhook), a delivery with its
 * attempt log, and the retry settings of POST /webhook's `meta` as stored and as the policy reads them.
 */
import type * as repo from "../../storage/repositories/webhooks";
import type { DeliveryWithTarget, WebhookRow } from "../../storage/repositories/webhooks";
import { parseJson } from "../../lib/json";
import { formatTimestamp } from "../../domain/time";
import { maxAttempts, type RetrySettings } from "../../domain/webhook-policy";
import type { Delivery, Webhook } from "../../domain/schemas/webhooks";
import { apiUserId } from "../self";

export function webhookRecord(row: WebhookRow): Webhook {
  return {
    id: row.id,
    user_id: apiUserId(row.merchant_id),
    merchant_id: row.merchant_id,
    reference_id: null,
    url: row.target_url,
    target_url: row.target_url,
    event: row.event,
    meta: { webhook_retry_count: row.retry_count, webhook_retry_frequency: row.retry_frequency_minutes },
    created_at: row.created_at,
    updated_at: row.updated_at,
    disabled_at: row.disabled_at,
    deleted_at: row.deleted_at,
  };
}

/** POST /webhook's `meta` (the members this service reads). */
export interface RetryMeta {
  webhook_retry_count?: number;
  webhook_retry_frequency?: number;
}

/** The stored retry columns from `meta`; a member left out keeps `current`'s (PUT) or the default (POST). */
export function retryColumns(meta: RetryMeta | undefined, current?: repo.RetryColumns): repo.RetryColumns {
  return {
    retry_count: meta?.webhook_retry_count === undefined ? (current?.retry_count ?? null) : meta.webhook_retry_count,
    retry_frequency_minutes:
      meta?.webhook_retry_frequency === undefined
        ? (current?.retry_frequency_minutes ?? null)
        : meta.webhook_retry_frequency,
  };
}

/** A webhook's (or a delivery's) stored retry columns as the policy's settings. */
export function retrySettings(row: repo.RetryColumns): RetrySettings {
  return { retryCount: row.retry_count, retryFrequencyMinutes: row.retry_frequency_minutes };
}

export function deliveryRecord(row: DeliveryWithTarget, attempts: repo.AttemptRow[]): Delivery {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    target_url: row.target_url,
    event: row.event,
    record_id: row.record_id,
    status: row.status,
    attempts: row.attempts,
    max_attempts: maxAttempts(retrySettings(row)),
    next_attempt_at:
      row.status === "pending" && row.next_attempt_at_ms !== null
        ? formatTimestamp(new Date(row.next_attempt_at_ms))
        : null,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    delivered_at: row.delivered_at,
    redelivery_of: row.redelivery_of,
    payload: parseJson<unknown>(row.body, null),
    attempt_log: attempts.map((a) => ({
      attempt: a.attempt,
      started_at: a.started_at,
      success: a.success === 1,
      status_code: a.status_code,
      latency_ms: a.latency_ms,
      response_snippet: a.response_snippet,
      request_headers: parseJson<Record<string, string>>(a.request_headers ?? "{}", {}),
      response_headers: a.response_headers ? parseJson<Record<string, string> | null>(a.response_headers, null) : null,
      error: a.error,
    })),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
