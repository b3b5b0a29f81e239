import type { Database } from "bun:sqlite";
import { distinctMerchants } from "../../storage/sqlite/distinct-merchants";
import type { Worker } from "../../lib/worker";
import type { DeliveryRow, WebhookService } from "./endpoints";
import type { SandboxClock } from "../clock";
import type { Logger } from "../../lib/logger";
import pkg from "../../../package.json";
import {
  DEFAULT_TIMEOUT_MS,
  MAX_ATTEMPTS,
  MAX_IN_FLIGHT,
  MAX_IN_FLIGHT_PER_MERCHANT,
  retryDelayMs,
  SNIPPET_CHARS,
} from "../../domain/webhook-policy";
import { targetRefusedMessage, WebhookTargets } from "./targets";
import { formatTimestamp } from "../../domain/time";
import {
  HEADER_DELIVERY_ID,
  HEADER_EVENT,
  HEADER_SIGNATURE,
  signatureHeader,
} from "../../../packages/webhooks/signing";

export interface DispatcherOptions {
  db: Database;
  clock: SandboxClock;
  /** The outbox: it says when it wrote pending deliveries (the only wake-up besides clock ticks). */
  outbox: Pick<WebhookService, "onOutbox">;
  log: Logger;
  /** Real-time limit for the receiver's answer (default 10 s). */
  timeoutMs?: number;
  /** Which targets are sent to and whose answers are logged (default: loopback targets, sandbox on loopback). */
  targets?: WebhookTargets;
}

interface Outcome {
  success: boolean;
  statusCode: number | null;
  snippet: string | null;
  /** The receiver's answer headers, as a JSON object; null when no answer came. */
  responseHeaders: string | null;
  error: string | null;
  /** The sandbox stopped while the request was out: logged, not counted, sent again after restart. */
  interrupted: boolean;
}

type DueRow = DeliveryRow & { target_url: string; webhook_secret: string };

export const INTERRUPTED_MESSAGE =
  "Interrupted: the sandbox stopped before the receiver answered; sent again on restart.";
const USER_AGENT = `PaySandbox-Webhooks/${pkg.version}`;

/**
 * Sends the outbox. Deliveries are due on the merchant's sandbox clock. The dispatcher keeps, per
 * merchant, the earliest time a pending delivery is due, and looks for due rows only when a clock
 * tick (each second of real time and each `clock/advance`) reaches it, or right after the outbox
 * wrote new rows: a merchant with nothing pending costs no query at all (before, every tick and
 * every record change ran the due-rows query, ~10% of a POST /charge under load). A delivery waits while an earlier delivery of the same record to the
 * same webhook is still pending, so each receiver sees a record's events in order.
 * Delivery is at least once: a request cut short by a stop is sent again after restart, so
 * receivers should de-duplicate on PaySandbox-Delivery-Id.
 */
export class WebhookDispatcher implements Worker {
  readonly name = "webhooks";
  private running = false;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly inFlightByMerchant = new Map<string, number>();
  private readonly kicked = new Set<string>();
  /**
   * Per merchant, the earliest next_attempt_at_ms of its pending deliveries as far as this process
   * knows; no entry = nothing pending. Only ever early, never late: an early entry costs one scan
   * that finds nothing and reads the true time again.
   */
  private readonly nextDue = new Map<string, number>();
  /** Due-row scans run, ever (tests check that a merchant with nothing due costs none). */
  scans = 0;
  private kickTimer: ReturnType<typeof setTimeout> | undefined;
  private stopping = new AbortController();
  private readonly db: Database;
  private readonly clock: SandboxClock;
  private readonly log: Logger;
  timeoutMs: number;
  private readonly targets: WebhookTargets;

  constructor(options: DispatcherOptions) {
    this.targets = options.targets ?? new WebhookTargets({ webhookAllow: [], host: "127.0.0.1" });
    this.db = options.db;
    this.clock = options.clock;
    this.log = options.log;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // The real-time tick visits only merchants with pending deliveries (an index walk).
    options.clock.onTick(
      (merchantId, now) => this.dispatch(merchantId, now),
      () => (this.running ? distinctMerchants(this.db, "webhook_deliveries", "status = 'pending'") : []),
    );
    // The change's transaction has committed (or rolled back) by the time the timer fires.
    options.outbox.onOutbox((merchantId, dueAtMs) => {
      this.expect(merchantId, dueAtMs);
      this.kick(merchantId);
    });
  }

  /** Notes that a pending delivery of the merchant is due at `dueAtMs`. */
  private expect(merchantId: string, dueAtMs: number): void {
    const known = this.nextDue.get(merchantId);
    if (known === undefined || dueAtMs < known) this.nextDue.set(merchantId, dueAtMs);
  }

  /**
   * Reads the earliest due time of the merchant's sendable pending deliveries again (index
   * webhook_deliveries_due); a disabled webhook's wait until WebhookService says it is enabled.
   */
  private refreshNextDue(merchantId: string): void {
    const row = this.db
      .query<{ due: number | null }, [string]>(
        `SELECT MIN(d.next_attempt_at_ms) AS due FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.merchant_id = ? AND d.status = 'pending' AND w.deleted_at IS NULL AND w.disabled_at IS NULL`,
      )
      .get(merchantId);
    if (row?.due === null || row?.due === undefined) this.nextDue.delete(merchantId);
    else this.nextDue.set(merchantId, row.due);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopping = new AbortController();
    // Requests that were out when the process died: log them as interrupted; they are still pending and due.
    this.db.query("UPDATE webhook_attempts SET finished = 1, error = ? WHERE finished = 0").run(INTERRUPTED_MESSAGE);
    const merchants = this.db
      .query<{ merchant_id: string; due: number }, []>(
        "SELECT merchant_id, MIN(next_attempt_at_ms) AS due FROM webhook_deliveries WHERE status = 'pending' GROUP BY merchant_id",
      )
      .all();
    this.nextDue.clear();
    for (const { merchant_id, due } of merchants) {
      this.nextDue.set(merchant_id, due);
      this.dispatch(merchant_id, this.clock.now(merchant_id));
    }
  }

  /** Stops sending: requests still out are cut short, logged as interrupted and stay pending. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.kickTimer);
    this.kickTimer = undefined;
    this.kicked.clear();
    this.stopping.abort();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /** Starts sending every delivery of the merchant due at `now` (synchronous; the requests run on). */
  dispatch(merchantId: string, now: Date): void {
    if (!this.running) return;
    try {
      this.startDue(merchantId, now);
    } catch (error) {
      // Called from clock ticks (and clock/advance requests): a failure here must not break them.
      this.log.error(`webhook dispatch for merchant ${merchantId} failed: ${(error as Error)?.stack ?? String(error)}`);
    }
  }

  private startDue(merchantId: string, now: Date): void {
    const due = this.nextDue.get(merchantId);
    if (due === undefined || due > now.getTime()) return; // nothing pending, or not yet due: no query
    const busy = this.inFlightByMerchant.get(merchantId) ?? 0;
    const room = Math.min(MAX_IN_FLIGHT - this.inFlight.size, MAX_IN_FLIGHT_PER_MERCHANT - busy);
    if (room <= 0) return;
    this.scans++;
    const rows = this.db
      .query<DueRow, [string, number, number]>(
        `SELECT d.*, w.target_url, m.webhook_secret
         FROM webhook_deliveries d
         JOIN webhooks w ON w.id = d.webhook_id
         JOIN merchants m ON m.id = d.merchant_id
         WHERE d.merchant_id = ? AND d.status = 'pending' AND d.next_attempt_at_ms <= ? AND w.deleted_at IS NULL
           AND w.disabled_at IS NULL
           AND NOT EXISTS (
             SELECT 1 FROM webhook_deliveries e
             WHERE e.webhook_id = d.webhook_id AND e.record_id = d.record_id AND e.status = 'pending' AND e.seq < d.seq)
         ORDER BY d.seq
         LIMIT ?`,
      )
      .all(merchantId, now.getTime(), room + busy);
    // Nothing due after all (the entry was early): learn the true next time instead of asking again.
    if (rows.length === 0) this.refreshNextDue(merchantId);
    let started = 0;
    for (const row of rows) {
      if (started >= room) break;
      if (this.inFlight.has(row.id)) continue;
      started++;
      this.inFlightByMerchant.set(merchantId, (this.inFlightByMerchant.get(merchantId) ?? 0) + 1);
      const sending = this.send(row)
        .catch((error) => this.log.error(`webhook delivery ${row.id} could not be recorded: ${String(error)}`))
        .finally(() => {
          this.inFlight.delete(row.id);
          const left = (this.inFlightByMerchant.get(merchantId) ?? 1) - 1;
          if (left > 0) this.inFlightByMerchant.set(merchantId, left);
          else this.inFlightByMerchant.delete(merchantId);
          // Delivered, failed for good, or retried later: the merchant's next due time moved.
          this.refreshNextDue(merchantId);
          this.kick(merchantId);
        });
      this.inFlight.set(row.id, sending);
    }
  }

  /** Looks for due deliveries of the merchant as soon as the current synchronous work is done. */
  private kick(merchantId: string): void {
    if (!this.running) return;
    this.kicked.add(merchantId);
    this.kickTimer ??= setTimeout(() => {
      this.kickTimer = undefined;
      const merchants = [...this.kicked];
      this.kicked.clear();
      for (const id of merchants) this.dispatch(id, this.clock.now(id));
    }, 0);
  }

  private async send(row: DueRow): Promise<void> {
    const attempt = row.attempts + 1;
    const attemptId = crypto.randomUUID();
    // The attempt's sandbox time is taken once, here, and everything about it derives from it: a clock
    // advance that lands while the request is out (or that jumped over the due time) does not move it.
    const startedAt = this.clock.runTime(row.merchant_id, row.next_attempt_at_ms ?? 0);
    const headers = requestHeaders(row);
    this.db
      .query(
        "INSERT INTO webhook_attempts (id, merchant_id, delivery_id, attempt, started_at, request_headers) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(attemptId, row.merchant_id, row.id, attempt, formatTimestamp(startedAt), JSON.stringify(headers));
    const started = performance.now();
    const outcome = await this.post(row, headers);
    const latency = Math.round(performance.now() - started);
    this.record(row, attempt, attemptId, outcome, latency, new Date(startedAt.getTime() + latency));
    const target = safeTarget(row.target_url);
    const result = outcome.statusCode ?? outcome.error;
    this.log.info(`webhook ${row.event} ${row.id} → ${target} attempt ${attempt}: ${result} ${latency}ms`);
  }

  private async post(row: DueRow, headers: Record<string, string>): Promise<Outcome> {
    if (!this.targets.allows(row.target_url)) {
      // No request at all: a sandbox reachable from a LAN must not POST into other machines.
      return failure(targetRefusedMessage(safeHost(row.target_url)));
    }
    const outcome = await this.request(row, headers);
    // Status and timing are always logged; what the target answered only when it may be shown.
    return this.targets.showsBody(row.target_url) ? outcome : { ...outcome, snippet: null, responseHeaders: null };
  }

  private async request(row: DueRow, headers: Record<string, string>): Promise<Outcome> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.timeoutMs);
    const signal = AbortSignal.any([timeout.signal, this.stopping.signal]);
    let statusCode: number | null = null;
    let responseHeaders: string | null = null;
    try {
      const response = await fetch(row.target_url, {
        method: "POST",
        body: row.body,
        redirect: "manual",
        signal,
        headers,
      });
      statusCode = response.status;
      responseHeaders = JSON.stringify(Object.fromEntries(response.headers));
      const snippet = await readSnippet(response);
      const success = statusCode >= 200 && statusCode < 300;
      const error = success ? null : `HTTP ${statusCode}`;
      return { success, statusCode, snippet, responseHeaders, error, interrupted: false };
    } catch (error) {
      if (statusCode !== null) {
        // The status came; only the body stalled or broke off. The status decides.
        const success = statusCode >= 200 && statusCode < 300;
        const failed = success ? null : `HTTP ${statusCode}`;
        return { success, statusCode, snippet: null, responseHeaders, error: failed, interrupted: false };
      }
      if (timeout.signal.aborted) {
        return failure(`No answer within ${this.timeoutMs} ms (timeout).`);
      }
      if (this.stopping.signal.aborted) return { ...failure(INTERRUPTED_MESSAGE), interrupted: true };
      return failure(describe(error));
    } finally {
      clearTimeout(timer);
    }
  }

  private record(
    row: DueRow,
    attempt: number,
    attemptId: string,
    outcome: Outcome,
    latency: number,
    finishedAt: Date,
  ): void {
    this.db
      .transaction(() => {
        this.db
          .query(
            "UPDATE webhook_attempts SET finished = 1, success = ?, status_code = ?, latency_ms = ?, response_snippet = ?, response_headers = ?, error = ? WHERE id = ?",
          )
          .run(
            outcome.success ? 1 : 0,
            outcome.statusCode,
            latency,
            outcome.snippet,
            outcome.responseHeaders,
            outcome.error,
            attemptId,
          );
        if (outcome.interrupted) return;
        const now = finishedAt;
        const stamp = formatTimestamp(finishedAt);
        const status = outcome.success ? "delivered" : attempt >= MAX_ATTEMPTS ? "failed" : "pending";
        const next = status === "pending" ? now.getTime() + retryDelayMs(attempt) : null;
        // status = 'pending': a delivery cancelled (webhook deleted) while the request was out stays cancelled.
        this.db
          .query(
            `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at_ms = ?, last_status_code = ?,
               last_error = ?, delivered_at = ?, updated_at = ? WHERE id = ? AND status = 'pending'`,
          )
          .run(status, attempt, next, outcome.statusCode, outcome.error, outcome.success ? stamp : null, stamp, row.id);
      })
      .immediate();
  }
}

function failure(error: string): Outcome {
  return { success: false, statusCode: null, snippet: null, responseHeaders: null, error, interrupted: false };
}

/** The headers of one attempt, signed at real time (see signing.ts); kept in the attempt log. */
function requestHeaders(row: DueRow): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    [HEADER_EVENT]: row.event,
    [HEADER_DELIVERY_ID]: row.id,
    [HEADER_SIGNATURE]: signatureHeader(
      row.webhook_secret,
      { deliveryId: row.id, event: row.event, body: row.body },
      Math.floor(Date.now() / 1000),
    ),
  };
}

/** The start of the receiver's answer, without reading more than a few KiB of it. */
async function readSnippet(response: Response): Promise<string | null> {
  if (!response.body) return null;
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < SNIPPET_CHARS * 4) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks)).slice(0, SNIPPET_CHARS);
  return text === "" ? null : text;
}

function describe(error: unknown): string {
  const code = (error as { code?: string })?.code;
  const message = (error as Error)?.message ?? String(error);
  if (code === "ConnectionRefused" || /ECONNREFUSED|refused/i.test(message)) return "Connection refused.";
  return `Request failed: ${message}`;
}

/** Origin and path only: query strings and credentials in a target URL stay out of the log. */
function safeTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.origin + parsed.pathname;
  } catch {
    return "(invalid url)";
  }
}

/** The host[:port] of a target URL, for messages. */
function safeHost(target: string): string {
  try {
    return new URL(target).host;
  } catch {
    return "(invalid URL)";
  }
}
