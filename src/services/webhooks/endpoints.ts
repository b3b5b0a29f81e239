import type { Database, Statement } from "bun:sqlite";
import type { SandboxClock } from "../clock";
import { EVENT_NAMES, type SandboxEvent } from "../../domain/events";
import { parseJson } from "../../lib/json";
import { paginate, type Page, type PageRequest } from "../../domain/pagination";
import { formatTimestamp } from "../../domain/time";
import { addError, type FieldErrors } from "../../../packages/rules/validation";
import { MAX_ATTEMPTS } from "../../domain/webhook-policy";
import { assertValid, invalidState, notFound } from "../../domain/errors";
import type { Delivery, DeliveryStatus, Webhook } from "../../domain/schemas/webhooks";

export interface WebhookRow {
  id: string;
  merchant_id: string;
  target_url: string;
  event: string;
  created_at: string;
  updated_at: string;
  disabled_at: string | null;
  deleted_at: string | null;
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
}

export interface AttemptRow {
  id: string;
  merchant_id: string;
  delivery_id: string;
  attempt: number;
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

/** Accepted `event` values: every event name, or `*`. */
export const WEBHOOK_EVENTS: readonly string[] = [...EVENT_NAMES, "*"];
/** Active webhooks a merchant may have at once. */
export const MAX_WEBHOOKS = 50;
const MAX_URL_LENGTH = 2048;

export function webhookRecord(row: WebhookRow): Webhook {
  return {
    id: row.id,
    target_url: row.target_url,
    event: row.event,
    created_at: row.created_at,
    updated_at: row.updated_at,
    disabled_at: row.disabled_at,
    deleted_at: row.deleted_at,
  };
}

/** The event name of a test delivery (POST /webhook/{id}/test): sent to one webhook, whatever it subscribes to. */
export const TEST_EVENT = "test";

/** The rules of POST /webhook, as field errors. */
export function validateWebhook(input: { target_url?: unknown; event?: unknown }): FieldErrors {
  const errors: FieldErrors = {};
  const url = typeof input.target_url === "string" ? input.target_url.trim() : "";
  if (url === "") addError(errors, "target_url", "The target_url field is required.");
  else if (url.length > MAX_URL_LENGTH)
    addError(errors, "target_url", `The target_url may not be longer than ${MAX_URL_LENGTH} characters.`);
  else {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      // reported below
    }
    if (!parsed || !["http:", "https:"].includes(parsed.protocol) || parsed.hostname === "") {
      addError(errors, "target_url", "The target_url must be an http:// or https:// URL.");
    }
  }
  const event = typeof input.event === "string" ? input.event.trim() : "";
  if (event === "") addError(errors, "event", "The event field is required.");
  else if (!WEBHOOK_EVENTS.includes(event)) {
    addError(errors, "event", `The event must be one of ${EVENT_NAMES.join(", ")}, or * for every event.`);
  }
  return errors;
}

/** An active webhook as the outbox needs it; a merchant's list is in creation order. */
interface ActiveHook {
  id: string;
  event: string;
  created_at: string;
  r: number;
}

/** Told when pending deliveries were written for a merchant, due at `dueAtMs` (the dispatcher listens). */
export type OutboxListener = (merchantId: string, dueAtMs: number) => void;

/** Subscriptions, the outbox the change transactions write, and the delivery log. */
export class WebhookService {
  /**
   * Each merchant's active webhooks, read once: every record change asks for them (a charge with
   * no webhook would otherwise pay a SELECT for nothing). create(), update() and delete() drop the
   * merchant's entry, and so does forget() (the sandbox reset, which deletes rows behind this service's back).
   */
  private readonly active = new Map<string, ActiveHook[]>();
  private readonly activeQuery: Statement<ActiveHook, [string]>;
  private readonly listeners: OutboxListener[] = [];

  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
  ) {
    this.activeQuery = db.prepare(
      "SELECT id, event, created_at, rowid AS r FROM webhooks WHERE merchant_id = ? AND deleted_at IS NULL AND disabled_at IS NULL",
    );
  }

  /** Registers a listener for new pending deliveries. */
  onOutbox(listener: OutboxListener): void {
    this.listeners.push(listener);
  }

  /** Drops what is cached about a merchant's webhooks (after its rows changed outside this service). */
  forget(merchantId: string): void {
    this.active.delete(merchantId);
  }

  private activeHooks(merchantId: string): ActiveHook[] {
    let hooks = this.active.get(merchantId);
    if (!hooks) {
      // Sorted here, not with ORDER BY, which costs several µs per call in bun:sqlite (measured).
      hooks = this.activeQuery
        .all(merchantId)
        .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.r - b.r));
      this.active.set(merchantId, hooks);
    }
    return hooks;
  }

  private written(merchantId: string, dueAtMs: number): void {
    for (const listener of this.listeners) listener(merchantId, dueAtMs);
  }

  create(merchantId: string, input: { target_url: string; event: string }): Webhook {
    assertValid(validateWebhook(input));
    const targetUrl = input.target_url.trim();
    const event = input.event.trim();
    return this.db
      .transaction(() => {
        const active = this.db
          .query<{ id: string; target_url: string; event: string }, [string]>(
            "SELECT id, target_url, event FROM webhooks WHERE merchant_id = ? AND deleted_at IS NULL",
          )
          .all(merchantId);
        if (active.some((w) => w.target_url === targetUrl && w.event === event)) {
          assertValid({ event: [`${targetUrl} already receives ${event}.`] });
        }
        if (active.length >= MAX_WEBHOOKS) {
          throw invalidState(`A merchant may have at most ${MAX_WEBHOOKS} webhooks; delete one first.`);
        }
        const id = crypto.randomUUID();
        const now = this.clock.timestamp(merchantId);
        this.db
          .query(
            "INSERT INTO webhooks (id, merchant_id, target_url, event, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
          )
          .run(id, merchantId, targetUrl, event, now, now);
        this.forget(merchantId);
        return webhookRecord(this.get(merchantId, id));
      })
      .immediate();
  }

  /** A webhook of this merchant (deleted ones too); 404 for none or another merchant's. */
  get(merchantId: string, id: string): WebhookRow {
    const row = this.db
      .query<WebhookRow, [string, string]>("SELECT * FROM webhooks WHERE id = ? AND merchant_id = ?")
      .get(id, merchantId);
    if (!row) throw notFound("Webhook");
    return row;
  }

  record(merchantId: string, id: string): Webhook {
    return webhookRecord(this.get(merchantId, id));
  }

  /** Active webhooks, newest first. */
  list(merchantId: string, page: PageRequest, url: string): Page<Webhook> {
    const total = this.db
      .query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM webhooks WHERE merchant_id = ? AND deleted_at IS NULL")
      .get(merchantId)!.n;
    const rows = this.db
      .query<WebhookRow, [string, number, number]>(
        "SELECT * FROM webhooks WHERE merchant_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?",
      )
      .all(merchantId, page.perPage, page.offset);
    return paginate(rows.map(webhookRecord), total, page, url);
  }

  /** Soft delete: the webhook stops receiving at once; its pending deliveries are cancelled. */
  delete(merchantId: string, id: string): Webhook {
    return this.db
      .transaction(() => {
        const current = this.get(merchantId, id);
        if (current.deleted_at) return webhookRecord(current);
        const now = this.clock.timestamp(merchantId);
        this.db.query("UPDATE webhooks SET deleted_at = ?, updated_at = ? WHERE id = ?").run(now, now, id);
        this.forget(merchantId);
        this.db
          .query(
            "UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at_ms = NULL, last_error = 'The webhook was deleted.', updated_at = ? WHERE webhook_id = ? AND status = 'pending'",
          )
          .run(now, id);
        return webhookRecord(this.get(merchantId, id));
      })
      .immediate();
  }

  /**
   * Changes a webhook's URL or event, or disables/enables it. A disabled webhook receives
   * nothing new; its pending deliveries wait and go out once it is enabled again.
   */
  update(merchantId: string, id: string, input: { target_url?: string; event?: string; disabled?: boolean }): Webhook {
    return this.db
      .transaction(() => {
        const current = this.get(merchantId, id);
        if (current.deleted_at) throw invalidState("This webhook was deleted; create a new one instead.");
        const next = { target_url: input.target_url ?? current.target_url, event: input.event ?? current.event };
        assertValid(validateWebhook(next));
        const targetUrl = next.target_url.trim();
        const event = next.event.trim();
        const clash = this.db
          .query<{ id: string }, [string, string, string, string]>(
            "SELECT id FROM webhooks WHERE merchant_id = ? AND deleted_at IS NULL AND target_url = ? AND event = ? AND id <> ?",
          )
          .get(merchantId, targetUrl, event, id);
        if (clash) assertValid({ event: [`${targetUrl} already receives ${event}.`] });
        const now = this.clock.timestamp(merchantId);
        const disabledAt =
          input.disabled === undefined ? current.disabled_at : input.disabled ? (current.disabled_at ?? now) : null;
        this.db
          .query("UPDATE webhooks SET target_url = ?, event = ?, disabled_at = ?, updated_at = ? WHERE id = ?")
          .run(targetUrl, event, disabledAt, now, id);
        this.forget(merchantId);
        // Enabled again: what it kept pending may be due now.
        if (current.disabled_at && disabledAt === null) this.written(merchantId, this.clock.now(merchantId).getTime());
        return webhookRecord(this.get(merchantId, id));
      })
      .immediate();
  }

  /**
   * Queues a test delivery to one webhook (event `test`, a small sample body), due now, signed
   * like every other: the way to check a receiver's signature code without making a payment.
   */
  sendTest(merchantId: string, id: string): Delivery {
    const deliveryId = this.db
      .transaction(() => {
        const hook = this.get(merchantId, id);
        if (hook.deleted_at) throw invalidState("This webhook was deleted; it receives nothing more.");
        if (hook.disabled_at) throw invalidState("This webhook is disabled; enable it to send a test event.");
        const now = this.clock.now(merchantId);
        const stamp = formatTimestamp(now);
        const fresh = crypto.randomUUID();
        const body = JSON.stringify({
          id: `test_${fresh}`,
          test: true,
          message: "A test event from the PaySandbox dashboard or POST /webhook/{id}/test.",
          webhook_id: hook.id,
          created_at: stamp,
        });
        this.db
          .query(
            `INSERT INTO webhook_deliveries (id, merchant_id, webhook_id, event, record_id, body, next_attempt_at_ms, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(fresh, merchantId, hook.id, TEST_EVENT, `test_${fresh}`, body, now.getTime(), stamp, stamp);
        this.written(merchantId, now.getTime());
        return fresh;
      })
      .immediate();
    this.runDueJobs(merchantId);
    return this.delivery(merchantId, deliveryId);
  }

  /** Runs the merchant's due jobs now, so the dispatcher sends a new delivery without waiting for the next second. */
  private runDueJobs(merchantId: string): void {
    try {
      this.clock.tick(merchantId);
    } catch {
      // a failing job is the clock ticker's to report and retry (within a second), not this request's
    }
  }

  /**
   * The outbox: one pending delivery per active webhook that wants this event, written by the
   * EventBus listener inside the transaction of the change, with the record frozen as JSON.
   * Returns how many rows it wrote.
   */
  enqueue(event: SandboxEvent): number {
    const all = this.activeHooks(event.merchantId);
    if (all.length === 0) return 0;
    const hooks = all.filter((hook) => hook.event === event.name || hook.event === "*");
    if (hooks.length === 0) return 0;
    const body = JSON.stringify(event.record);
    const now = this.clock.now(event.merchantId);
    const insert = this.db.query(
      `INSERT INTO webhook_deliveries (id, merchant_id, webhook_id, event, record_id, body, next_attempt_at_ms, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const hook of hooks) {
      const stamp = formatTimestamp(now);
      insert.run(
        crypto.randomUUID(),
        event.merchantId,
        hook.id,
        event.name,
        event.record.id,
        body,
        now.getTime(),
        stamp,
        stamp,
      );
    }
    this.written(event.merchantId, now.getTime());
    return hooks.length;
  }

  /** Deliveries, newest first, each with its attempt log. */
  deliveries(merchantId: string, filters: DeliveryFilters, page: PageRequest, url: string): Page<Delivery> {
    const where = ["d.merchant_id = ?"];
    const params: (string | number)[] = [merchantId];
    if (filters.webhookId) {
      where.push("d.webhook_id = ?");
      params.push(filters.webhookId);
    }
    if (filters.status) {
      where.push("d.status = ?");
      params.push(filters.status);
    }
    if (filters.event) {
      where.push("d.event = ?");
      params.push(filters.event);
    }
    if (filters.recordId) {
      where.push("d.record_id = ?");
      params.push(filters.recordId);
    }
    const clause = where.join(" AND ");
    const total = this.db
      .query<{ n: number }, (string | number)[]>(`SELECT COUNT(*) AS n FROM webhook_deliveries d WHERE ${clause}`)
      .get(...params)!.n;
    const rows = this.db
      .query<DeliveryRow & { target_url: string }, (string | number)[]>(
        `SELECT d.*, w.target_url FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE ${clause} ORDER BY d.seq DESC LIMIT ? OFFSET ?`,
      )
      .all(...params, page.perPage, page.offset);
    return paginate(
      rows.map((row) => this.deliveryRecord(row)),
      total,
      page,
      url,
    );
  }

  /** One delivery of this merchant; 404 for none or another merchant's. */
  delivery(merchantId: string, id: string): Delivery {
    const row = this.db
      .query<DeliveryRow & { target_url: string }, [string, string]>(
        "SELECT d.*, w.target_url FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = ? AND d.merchant_id = ?",
      )
      .get(id, merchantId);
    if (!row) throw notFound("Webhook delivery");
    return this.deliveryRecord(row);
  }

  /**
   * Sends a delivery again: a new delivery of the same body to the same webhook, due now,
   * which keeps the per-record order (it waits for earlier pending deliveries of the record).
   */
  redeliver(merchantId: string, id: string): Delivery {
    const newId = this.db
      .transaction(() => {
        const original = this.delivery(merchantId, id);
        const hook = this.get(merchantId, original.webhook_id);
        if (hook.deleted_at) throw invalidState("The webhook of this delivery was deleted; it receives nothing more.");
        const row = this.db
          .query<DeliveryRow, [string]>("SELECT * FROM webhook_deliveries WHERE id = ?")
          .get(original.id)!;
        const now = this.clock.now(merchantId);
        const stamp = formatTimestamp(now);
        const fresh = crypto.randomUUID();
        this.db
          .query(
            `INSERT INTO webhook_deliveries (id, merchant_id, webhook_id, event, record_id, body, next_attempt_at_ms, redelivery_of, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            fresh,
            merchantId,
            row.webhook_id,
            row.event,
            row.record_id,
            row.body,
            now.getTime(),
            row.id,
            stamp,
            stamp,
          );
        this.written(merchantId, now.getTime());
        return fresh;
      })
      .immediate();
    this.runDueJobs(merchantId);
    return this.delivery(merchantId, newId);
  }

  private deliveryRecord(row: DeliveryRow & { target_url: string }): Delivery {
    const attempts = this.db
      .query<AttemptRow, [string]>("SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY rowid")
      .all(row.id);
    return {
      id: row.id,
      webhook_id: row.webhook_id,
      target_url: row.target_url,
      event: row.event,
      record_id: row.record_id,
      status: row.status,
      attempts: row.attempts,
      max_attempts: MAX_ATTEMPTS,
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
        response_headers: a.response_headers
          ? parseJson<Record<string, string> | null>(a.response_headers, null)
          : null,
        error: a.error,
      })),
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }
}
