import type { Database, Executor } from "../../storage/database";
import { holdUntilCommit } from "../../storage/repositories/locks";
import * as repo from "../../storage/repositories/webhooks";
import type { DeliveryWithTarget, WebhookRow } from "../../storage/repositories/webhooks";
import type { SandboxClock } from "../clock";
import { EVENT_NAMES, type EventBus, type SandboxEvent } from "../../domain/events";
import type { Listing, PageRequest } from "../../domain/pagination";
import { formatTimestamp } from "../../domain/time";
import { addError, type FieldErrors } from "../../../packages/rules/validation";
import { assertValid, invalidState, notFound } from "../../domain/errors";
import type { Delivery, Webhook } from "../../domain/schemas/webhooks";
import { deliveryRecord, retryColumns, webhookRecord, type RetryMeta } from "./records";

export { retrySettings, webhookRecord, type RetryMeta } from "./records";

export type { AttemptRow, DeliveryFilters, DeliveryRow, WebhookRow } from "../../storage/repositories/webhooks";

/** Accepted `event` values: every event name, or `*`. */
export const WEBHOOK_EVENTS: readonly string[] = [...EVENT_NAMES, "*"];
/** Active webhooks a merchant may have at once. */
export const MAX_WEBHOOKS = 50;
const MAX_URL_LENGTH = 2048;

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

/** Told when pending deliveries were written for a merchant, due at `dueAtMs` (the dispatcher listens). */
export type OutboxListener = (merchantId: string, dueAtMs: number) => void;

/**
 * Webhooks: the subscriptions, the outbox the change's unit of work writes (enqueue, an event
 * listener), and the delivery log. ./dispatcher.ts sends what the outbox holds; ./targets.ts says
 * where it may.
 *
 * Vocabulary (docs/architecture.md, "Services"): `get` (the record by id, or a 404), `list` (a
 * page of active webhooks), `create`, `update`, `delete`, `getRow` (the stored row); the domain
 * verbs `sendTest`, `enqueue`, `redeliver`; the delivery log's `getDelivery` and `listDeliveries`.
 */
export class WebhookService {
  /**
   * Each merchant's active webhooks, read once on SQLite (one process): every record change asks for
   * them (a charge with no webhook would otherwise pay a SELECT for nothing). On PostgreSQL, where
   * other processes change them, enqueue reads them in the change's unit of work instead. create(), update() and delete() drop the
   * merchant's entry, and so does forget() (the sandbox reset, which deletes rows behind this service's back).
   */
  private readonly active = new Map<string, { id: string; event: string }[]>();
  /** Units of work that act for a merchant row their request read (actsFor), with that row's count. */
  private readonly readBy = new WeakMap<Executor, { merchantId: string; activeWebhooks: number }>();
  private readonly listeners: OutboxListener[] = [];

  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
    private readonly events: EventBus<Executor>,
  ) {}

  /** Registers a listener for new pending deliveries. */
  onOutbox(listener: OutboxListener): void {
    this.listeners.push(listener);
  }

  /**
   * Unit of work `tx` acts for `merchant` as its request read it when it began (the idempotent
   * routes; on PostgreSQL that read counts the active webhooks, src/storage/repositories/merchants.ts).
   * An event of that merchant in that unit, when it had none, writes no outbox row: the same rows as
   * the INSERT … SELECT would write at the unit's end, but for a webhook registered meanwhile,
   * concurrent with the request, and without the record's JSON or the statement's part. Units that
   * read no merchant (jobs, other routes) write the INSERT … SELECT as before.
   */
  actsFor(tx: Executor, merchant: { id: string; active_webhooks?: number }): void {
    if (merchant.active_webhooks === undefined) return;
    this.readBy.set(tx, { merchantId: merchant.id, activeWebhooks: merchant.active_webhooks });
  }

  /** Drops what is cached about a merchant's webhooks (after its rows changed outside this service). */
  forget(merchantId: string): void {
    this.active.delete(merchantId);
  }

  /** Reads the merchant's active webhooks again after they changed, so the next change finds them cached. */
  private async reload(merchantId: string): Promise<void> {
    this.active.delete(merchantId);
    this.active.set(merchantId, await repo.activeWebhooks(this.db, merchantId));
  }

  private async activeHooks(ex: Executor, merchantId: string): Promise<{ id: string; event: string }[]> {
    let hooks = this.active.get(merchantId);
    if (!hooks) {
      hooks = await repo.activeWebhooks(ex, merchantId);
      this.active.set(merchantId, hooks);
    }
    return hooks;
  }

  private written(merchantId: string, dueAtMs: number): void {
    for (const listener of this.listeners) listener(merchantId, dueAtMs);
  }

  /** A new webhook; target_url and event may be missing or of any type here (validateWebhook names them). */
  async create(
    merchantId: string,
    input: { target_url?: unknown; event?: unknown; meta?: RetryMeta },
  ): Promise<Webhook> {
    assertValid(validateWebhook(input));
    const targetUrl = String(input.target_url).trim();
    const event = String(input.event).trim();
    const row = await this.db.transaction(async (tx) => {
      // Two creates at once take turns, so neither makes a duplicate nor passes MAX_WEBHOOKS.
      await holdUntilCommit(tx, "webhooks", merchantId);
      const live = await repo.liveWebhooks(tx, merchantId);
      if (live.some((w) => w.target_url === targetUrl && w.event === event)) {
        assertValid({ event: [`${targetUrl} already receives ${event}.`] });
      }
      if (live.length >= MAX_WEBHOOKS) {
        throw invalidState(`A merchant may have at most ${MAX_WEBHOOKS} webhooks; delete one first.`);
      }
      const id = crypto.randomUUID();
      const now = this.clock.timestamp(merchantId);
      const retry = retryColumns(input.meta);
      const row = { id, merchant_id: merchantId, target_url: targetUrl, event, created_at: now, updated_at: now };
      const record = webhookRecord({ ...row, ...retry, disabled_at: null, deleted_at: null });
      // Announced before it exists: the other webhooks hear of it, the new one does not.
      await this.events.emit(tx, { merchantId, name: "create_webhook", record });
      await repo.insertWebhook(tx, { id, merchantId, targetUrl, event, now, ...retry });
      return this.getRow(tx, merchantId, id);
    });
    await this.reload(merchantId);
    return webhookRecord(row);
  }

  /** GET /webhook/{id}: the webhook's record (deleted ones too), or a 404. */
  async get(merchantId: string, id: string, ex: Executor = this.db): Promise<Webhook> {
    return webhookRecord(await this.getRow(ex, merchantId, id));
  }

  /** The stored row (deleted ones too); 404 for none or another merchant's. */
  async getRow(ex: Executor, merchantId: string, id: string): Promise<WebhookRow> {
    const row = await repo.findWebhook(ex, merchantId, id);
    if (!row) throw notFound("Webhook");
    return row;
  }

  /** Active webhooks, newest first. */
  async list(merchantId: string, page: PageRequest): Promise<Listing<Webhook>> {
    const total = await repo.countLiveWebhooks(this.db, merchantId);
    const rows = await repo.listLiveWebhooks(this.db, merchantId, page.perPage, page.offset);
    return { rows: rows.map(webhookRecord), total };
  }

  /** Soft delete: the webhook stops receiving at once; its pending deliveries are cancelled. */
  async delete(merchantId: string, id: string): Promise<Webhook> {
    const row = await this.db.transaction(async (tx) => {
      const current = await this.getRow(tx, merchantId, id);
      if (current.deleted_at) return current;
      await repo.deleteWebhook(tx, id, this.clock.timestamp(merchantId));
      const deleted = await this.getRow(tx, merchantId, id);
      // The others hear of it; the deleted one receives nothing more.
      this.forget(merchantId);
      await this.events.emit(tx, { merchantId, name: "delete_webhook", record: webhookRecord(deleted) });
      return deleted;
    });
    await this.reload(merchantId);
    return webhookRecord(row);
  }

  /**
   * Changes a webhook's URL or event, or disables/enables it. A disabled webhook receives
   * nothing new; its pending deliveries wait and go out once it is enabled again.
   */
  async update(
    merchantId: string,
    id: string,
    input: { target_url?: string; event?: string; disabled?: boolean; meta?: RetryMeta },
  ): Promise<Webhook> {
    const { row, enabled } = await this.db.transaction(async (tx) => {
      // Takes turns with creates: a changed target or event is checked against the others too.
      await holdUntilCommit(tx, "webhooks", merchantId);
      const current = await this.getRow(tx, merchantId, id);
      if (current.deleted_at) throw invalidState("This webhook was deleted; create a new one instead.");
      const next = { target_url: input.target_url ?? current.target_url, event: input.event ?? current.event };
      assertValid(validateWebhook(next));
      const targetUrl = next.target_url.trim();
      const event = next.event.trim();
      if (await repo.findClash(tx, merchantId, targetUrl, event, id)) {
        assertValid({ event: [`${targetUrl} already receives ${event}.`] });
      }
      const now = this.clock.timestamp(merchantId);
      const disabledAt =
        input.disabled === undefined ? current.disabled_at : input.disabled ? (current.disabled_at ?? now) : null;
      const retry = retryColumns(input.meta, current);
      await repo.updateWebhook(tx, id, { targetUrl, event, disabledAt, now, ...retry });
      return {
        row: await this.getRow(tx, merchantId, id),
        enabled: current.disabled_at !== null && disabledAt === null,
      };
    });
    await this.reload(merchantId);
    // Enabled again: what it kept pending may be due now.
    if (enabled) this.written(merchantId, this.clock.now(merchantId).getTime());
    return webhookRecord(row);
  }

  /**
   * Queues a test delivery to one webhook (event `test`, a small sample body), due now, signed
   * like every other: the way to check a receiver's signature code without making a payment.
   * Answers the delivery as created (pending), read in the unit of work, like `redeliver`.
   */
  async sendTest(merchantId: string, id: string): Promise<Delivery> {
    const now = this.clock.now(merchantId);
    const created = await this.db.transaction(async (tx) => {
      const hook = await this.getRow(tx, merchantId, id);
      if (hook.deleted_at) throw invalidState("This webhook was deleted; it receives nothing more.");
      if (hook.disabled_at) throw invalidState("This webhook is disabled; enable it to send a test event.");
      const stamp = formatTimestamp(now);
      const fresh = crypto.randomUUID();
      const body = JSON.stringify({
        id: `test_${fresh}`,
        test: true,
        message: "A test event from the PaySandbox dashboard or POST /webhook/{id}/test.",
        webhook_id: hook.id,
        created_at: stamp,
      });
      await repo.insertDeliveries(tx, [
        {
          id: fresh,
          merchantId,
          webhookId: hook.id,
          event: TEST_EVENT,
          recordId: `test_${fresh}`,
          body,
          dueAtMs: now.getTime(),
          redeliveryOf: null,
          createdAt: stamp,
        },
      ]);
      return this.getDelivery(merchantId, fresh, tx);
    });
    this.written(merchantId, now.getTime());
    await this.runDueJobs(merchantId);
    return created;
  }

  /** Runs the merchant's due jobs now, so the dispatcher sends a new delivery without waiting for the next second. */
  private async runDueJobs(merchantId: string): Promise<void> {
    try {
      await this.clock.tick(merchantId);
    } catch {
      // a failing job is the clock ticker's to report and retry (within a second), not this request's
    }
  }

  /**
   * The outbox: one pending delivery per active webhook that wants this event, written by the
   * EventBus listener in the unit of work of the change (`ex`), with the record frozen as JSON.
   * On SQLite, an event no cached webhook wants returns at once without a promise: most charges
   * have no webhook, and neither the JSON nor a promise is made for them.
   */
  enqueue(ex: Executor, event: SandboxEvent): Promise<void> | undefined {
    // On PostgreSQL other processes register webhooks too: the write picks them from the table itself
    // (INSERT … SELECT, held until the unit's end), so none made elsewhere is missed and no read waits;
    // none when the request's own read of its merchant counted no webhook (actsFor).
    if (ex.dialect === "postgres") {
      const read = this.readBy.get(ex);
      if (read && read.merchantId === event.merchantId && read.activeWebhooks === 0) return undefined;
      const now = this.clock.now(event.merchantId);
      const merchantId = event.merchantId;
      const dueAtMs = now.getTime();
      return repo.insertDeliveriesOfEvent(
        ex,
        {
          merchantId,
          event: event.name,
          recordId: event.record.id,
          body: JSON.stringify(event.record),
          dueAtMs,
          createdAt: formatTimestamp(now),
        },
        (n) => n > 0 && this.written(merchantId, dueAtMs),
      );
    }
    const cached = this.active.get(event.merchantId);
    if (cached) return this.enqueueFor(ex, event, cached);
    return this.activeHooks(ex, event.merchantId).then((all) => this.enqueueFor(ex, event, all));
  }

  /** SQLite's outbox rows of one event for the merchant's active webhooks `all` (nothing, when none wants it). */
  private enqueueFor(
    ex: Executor,
    event: SandboxEvent,
    all: readonly { id: string; event: string }[],
  ): Promise<void> | undefined {
    const hooks = all.filter((hook) => hook.event === event.name || hook.event === "*");
    if (hooks.length === 0) return undefined;
    const now = this.clock.now(event.merchantId);
    const [merchantId, dueAtMs, body] = [event.merchantId, now.getTime(), JSON.stringify(event.record)];
    const common = { merchantId, event: event.name, recordId: event.record.id, body, dueAtMs };
    const stamp = { createdAt: formatTimestamp(now) };
    const rows = hooks.map((hook) => ({ ...common, ...stamp, id: crypto.randomUUID(), webhookId: hook.id }));
    return repo
      .insertDeliveries(
        ex,
        rows.map((row) => ({ ...row, redeliveryOf: null })),
      )
      .then(() => this.written(merchantId, dueAtMs));
  }

  /** Deliveries, newest first, each with its attempt log (all attempts in one query). */
  async listDeliveries(
    merchantId: string,
    filters: repo.DeliveryFilters,
    page: PageRequest,
  ): Promise<Listing<Delivery>> {
    const total = await repo.countDeliveries(this.db, merchantId, filters);
    const rows = await repo.listDeliveries(this.db, merchantId, filters, page.perPage, page.offset);
    return { rows: await this.deliveryRecords(rows), total };
  }

  /** One delivery of this merchant; 404 for none or another merchant's. */
  async getDelivery(merchantId: string, id: string, ex: Executor = this.db): Promise<Delivery> {
    const row = await repo.findDelivery(ex, merchantId, id);
    if (!row) throw notFound("Webhook delivery");
    return (await this.deliveryRecords([row], ex))[0]!;
  }

  /**
   * Sends a delivery again: a new delivery of the same body to the same webhook, due now,
   * which keeps the per-record order (it waits for earlier pending deliveries of the record).
   * The answer is the delivery as created (pending), read in the unit of work: once committed
   * the dispatcher (of this or another process) may deliver it before a later read.
   */
  async redeliver(merchantId: string, id: string): Promise<Delivery> {
    const now = this.clock.now(merchantId);
    const created = await this.db.transaction(async (tx) => {
      const original = await repo.findDelivery(tx, merchantId, id);
      if (!original) throw notFound("Webhook delivery");
      const hook = await this.getRow(tx, merchantId, original.webhook_id);
      if (hook.deleted_at) throw invalidState("The webhook of this delivery was deleted; it receives nothing more.");
      const fresh = crypto.randomUUID();
      await repo.insertDeliveries(tx, [
        {
          id: fresh,
          merchantId,
          webhookId: original.webhook_id,
          event: original.event,
          recordId: original.record_id,
          body: original.body,
          dueAtMs: now.getTime(),
          redeliveryOf: original.id,
          createdAt: formatTimestamp(now),
        },
      ]);
      return this.getDelivery(merchantId, fresh, tx);
    });
    this.written(merchantId, now.getTime());
    await this.runDueJobs(merchantId);
    return created;
  }

  private async deliveryRecords(rows: DeliveryWithTarget[], ex: Executor = this.db): Promise<Delivery[]> {
    const attempts = await repo.attemptsOf(
      ex,
      rows.map((row) => row.id),
    );
    return rows.map((row) => deliveryRecord(row, attempts.get(row.id) ?? []));
  }
}
