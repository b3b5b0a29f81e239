/**
 * Webhooks: the subscriptions (webhooks), the outbox (webhook_deliveries) and each delivery's
 * attempt log (webhook_attempts), as the API writes and lists them. The dispatchers' claims on
 * due deliveries are in ./webhook-claims.ts. Every statement here is portable SQL
 * (docs/architecture.md): one repository serves SQLite and PostgreSQL.
 */
import { sql, writeBehind, type Executor, type Sql, type WriteBatch } from "../database";
import { sameMerchant } from "./keys";
import type { DeliveryStatus } from "../../domain/schemas/webhooks";

export interface WebhookRow {
  id: string;
  merchant_id: string;
  target_url: string;
  event: string;
  created_at: string;
  updated_at: string;
  disabled_at: string | null;
  deleted_at: string | null;
  /** POST /webhook meta.webhook_retry_count; null: the default schedule. */
  retry_count: number | null;
  /** POST /webhook meta.webhook_retry_frequency (minutes); null: the default schedule. */
  retry_frequency_minutes: number | null;
}

/** A webhook's retry settings as stored (null: the default of src/domain/webhook-policy.ts). */
export interface RetryColumns {
  retry_count: number | null;
  retry_frequency_minutes: number | null;
}

export interface DeliveryRow {
  seq: number;
  id: string;
  merchant_id: string;
  webhook_id: string;
  event: string;
  record_id: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at_ms: number | null;
  last_status_code: number | null;
  last_error: string | null;
  redelivery_of: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
  claimed_by: string | null;
}

/** A delivery with its webhook's target and retry settings, as the log shows it. */
export type DeliveryWithTarget = DeliveryRow & RetryColumns & { target_url: string };

/** A claimed delivery with what sending it needs. */
export type ClaimedDelivery = DeliveryWithTarget & { webhook_secret: string };

export interface AttemptRow {
  id: string;
  merchant_id: string;
  delivery_id: string;
  attempt: number;
  ordinal: number;
  started_at: string;
  finished: number;
  success: number;
  status_code: number | null;
  latency_ms: number | null;
  response_snippet: string | null;
  request_headers: string | null;
  response_headers: string | null;
  error: string | null;
}

export interface DeliveryFilters {
  webhookId?: string;
  status?: DeliveryStatus;
  event?: string;
  recordId?: string;
}

/** A new outbox row. */
export interface NewDelivery {
  id: string;
  merchantId: string;
  webhookId: string;
  event: string;
  recordId: string;
  body: string;
  dueAtMs: number;
  redeliveryOf: string | null;
  createdAt: string;
}

// --- subscriptions -----------------------------------------------------------------------

/** The merchant's active (not deleted, not disabled) webhooks, oldest first. */
export function activeWebhooks(ex: Executor, merchantId: string): Promise<{ id: string; event: string }[]> {
  return ex.all(
    sql`SELECT id, event FROM webhooks WHERE merchant_id = ${merchantId} AND deleted_at IS NULL AND disabled_at IS NULL
        ORDER BY created_at`,
  );
}

/** The merchant's webhooks not deleted (disabled ones too). */
export function liveWebhooks(
  ex: Executor,
  merchantId: string,
): Promise<{ id: string; target_url: string; event: string }[]> {
  return ex.all(
    sql`SELECT id, target_url, event FROM webhooks WHERE merchant_id = ${merchantId} AND deleted_at IS NULL`,
  );
}

export function findWebhook(ex: Executor, merchantId: string, id: string): Promise<WebhookRow | undefined> {
  return ex.get(sql`SELECT * FROM webhooks WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}`);
}

export async function countLiveWebhooks(ex: Executor, merchantId: string): Promise<number> {
  const row = await ex.get<{ n: number }>(
    sql`SELECT COUNT(*) AS n FROM webhooks WHERE merchant_id = ${merchantId} AND deleted_at IS NULL`,
  );
  return Number(row?.n ?? 0);
}

/** Webhooks not deleted, newest first. */
export function listLiveWebhooks(
  ex: Executor,
  merchantId: string,
  limit: number,
  offset: number,
): Promise<WebhookRow[]> {
  return ex.all(
    sql`SELECT * FROM webhooks WHERE merchant_id = ${merchantId} AND deleted_at IS NULL
        ORDER BY created_at DESC LIMIT ${limit} OFFSET ${offset}`,
  );
}

/** Another live webhook of the merchant with this target and event, if any. */
export function findClash(
  ex: Executor,
  merchantId: string,
  targetUrl: string,
  event: string,
  exceptId: string,
): Promise<{ id: string } | undefined> {
  return ex.get(
    sql`SELECT id FROM webhooks WHERE merchant_id = ${merchantId} AND deleted_at IS NULL AND target_url = ${targetUrl}
        AND event = ${event} AND id <> ${exceptId}`,
  );
}

export async function insertWebhook(
  ex: Executor,
  row: { id: string; merchantId: string; targetUrl: string; event: string; now: string } & Partial<RetryColumns>,
): Promise<void> {
  await ex.run(
    sql`INSERT INTO webhooks (id, merchant_id, target_url, event, created_at, updated_at, retry_count,
        retry_frequency_minutes)
        VALUES (${row.id}, ${row.merchantId}, ${row.targetUrl}, ${row.event}, ${row.now}, ${row.now},
        ${row.retry_count ?? null}, ${row.retry_frequency_minutes ?? null})`,
  );
}

export async function updateWebhook(
  ex: Executor,
  id: string,
  change: { targetUrl: string; event: string; disabledAt: string | null; now: string } & RetryColumns,
): Promise<void> {
  await ex.run(
    sql`UPDATE webhooks SET target_url = ${change.targetUrl}, event = ${change.event}, disabled_at = ${change.disabledAt},
        retry_count = ${change.retry_count}, retry_frequency_minutes = ${change.retry_frequency_minutes},
        updated_at = ${change.now} WHERE id = ${id}`,
  );
}

/** Soft delete, and the webhook's pending deliveries cancelled (in the caller's unit of work). */
export async function deleteWebhook(ex: Executor, id: string, now: string): Promise<void> {
  await ex.run(sql`UPDATE webhooks SET deleted_at = ${now}, updated_at = ${now} WHERE id = ${id}`);
  await ex.run(
    sql`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at_ms = NULL,
        last_error = 'The webhook was deleted.', updated_at = ${now}
        WHERE webhook_id = ${id} AND status = 'pending'`,
  );
}

// --- the outbox --------------------------------------------------------------------------

/** Writes outbox rows, all in one statement. */
export async function insertDeliveries(ex: Executor, rows: readonly NewDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  const values = rows.map(
    (r) =>
      sql`(${r.id}, ${r.merchantId}, ${r.webhookId}, ${r.event}, ${r.recordId}, ${r.body}, ${r.dueAtMs}, ${r.redeliveryOf}, ${r.createdAt}, ${r.createdAt})`,
  );
  await ex.run(
    sql`INSERT INTO webhook_deliveries (id, merchant_id, webhook_id, event, record_id, body, next_attempt_at_ms,
        redelivery_of, created_at, updated_at) VALUES ${sql.join(values)}`,
  );
}

/**
 * The outbox in one write, reading no row first: a pending delivery of the event for each of the
 * merchant's active webhooks that wants it (its name or "*"), oldest webhook first. Nothing waits on
 * it (PostgreSQL holds it until the unit's end, writeBehind); `then` is told how many it wrote.
 */
export function insertDeliveriesOfEvent(
  ex: Executor,
  e: { merchantId: string; event: string; recordId: string; body: string; dueAtMs: number; createdAt: string },
  then: (written: number) => void,
): Promise<void> {
  const write = sql`INSERT INTO webhook_deliveries (id, merchant_id, webhook_id, event, record_id, body, next_attempt_at_ms,
        redelivery_of, created_at, updated_at)
      SELECT gen_random_uuid()::text, merchant_id, id, ${e.event}, ${e.recordId}, ${e.body}, ${e.dueAtMs}, NULL,
        ${e.createdAt}, ${e.createdAt}
      FROM webhooks WHERE merchant_id = ${e.merchantId} AND deleted_at IS NULL AND disabled_at IS NULL
        AND event IN (${e.event}, '*')
      ORDER BY created_at`;
  return writeBehind(ex, write, {
    independent: true,
    batch: deliveriesBatch(e),
    then: (result) => then(result.changes),
  });
}

/** insertDeliveriesOfEvent's event among those of concurrent units, all written by one INSERT (group commit). */
function deliveriesBatch(e: Parameters<typeof insertDeliveriesOfEvent>[1]): WriteBatch {
  return {
    key: "insertDeliveriesOfEvent",
    row: {
      merchant_id: e.merchantId,
      event: e.event,
      record_id: e.recordId,
      body: e.body,
      due_at_ms: e.dueAtMs,
      created_at: e.createdAt,
    },
    select: (rows) => sql`SELECT gen_random_uuid()::text AS id, w.merchant_id, w.id AS webhook_id, e.event, e.record_id,
        e.body, e.due_at_ms, e.created_at, e._row
      FROM json_to_recordset(${rows}) AS e(_row int, merchant_id text, event text, record_id text, body text,
        due_at_ms bigint, created_at text)
      JOIN webhooks w ON w.merchant_id = e.merchant_id AND w.deleted_at IS NULL AND w.disabled_at IS NULL
        AND w.event IN (e.event, '*')
      ORDER BY e._row, w.created_at`,
    insert: (source) => sql`INSERT INTO webhook_deliveries (id, merchant_id, webhook_id, event, record_id, body,
        next_attempt_at_ms, redelivery_of, created_at, updated_at)
      SELECT id, merchant_id, webhook_id, event, record_id, body, due_at_ms, NULL, created_at, created_at FROM ${source}`,
  };
}

export function findDelivery(ex: Executor, merchantId: string, id: string): Promise<DeliveryWithTarget | undefined> {
  return ex.get(
    sql`SELECT d.*, w.target_url, w.retry_count, w.retry_frequency_minutes
        FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.id = ${id} AND d.merchant_id = ${merchantId}`,
  );
}

function deliveryWhere(merchantId: string, filters: DeliveryFilters): Sql {
  const where = [sql`d.merchant_id = ${merchantId}`];
  if (filters.webhookId) where.push(sql`d.webhook_id = ${filters.webhookId}`);
  if (filters.status) where.push(sql`d.status = ${filters.status}`);
  if (filters.event) where.push(sql`d.event = ${filters.event}`);
  if (filters.recordId) where.push(sql`d.record_id = ${filters.recordId}`);
  return sql.join(where, " AND ");
}

export async function countDeliveries(ex: Executor, merchantId: string, filters: DeliveryFilters): Promise<number> {
  const row = await ex.get<{ n: number }>(
    sql`SELECT COUNT(*) AS n FROM webhook_deliveries d WHERE ${deliveryWhere(merchantId, filters)}`,
  );
  return Number(row?.n ?? 0);
}

/** Deliveries, newest first. */
export function listDeliveries(
  ex: Executor,
  merchantId: string,
  filters: DeliveryFilters,
  limit: number,
  offset: number,
): Promise<DeliveryWithTarget[]> {
  return ex.all(
    sql`SELECT d.*, w.target_url, w.retry_count, w.retry_frequency_minutes
        FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE ${deliveryWhere(merchantId, filters)} ORDER BY d.seq DESC LIMIT ${limit} OFFSET ${offset}`,
  );
}

/** The attempt logs of several deliveries, in one query: by delivery id, each in order. */
export async function attemptsOf(ex: Executor, deliveryIds: readonly string[]): Promise<Map<string, AttemptRow[]>> {
  const byDelivery = new Map<string, AttemptRow[]>();
  if (deliveryIds.length === 0) return byDelivery;
  const ids = sql.join(deliveryIds.map((id) => sql`${id}`));
  const rows = await ex.all<AttemptRow>(
    sql`SELECT * FROM webhook_attempts WHERE delivery_id IN (${ids}) ORDER BY delivery_id, ordinal`,
  );
  for (const row of rows) {
    const list = byDelivery.get(row.delivery_id);
    if (list) list.push(row);
    else byDelivery.set(row.delivery_id, [row]);
  }
  return byDelivery;
}
