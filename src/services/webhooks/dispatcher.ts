import type { Database } from "../../storage/database";
import * as repo from "../../storage/repositories/webhook-claims";
import type { ClaimedDelivery } from "../../storage/repositories/webhooks";
import type { Worker } from "../../lib/worker";
import type { WebhookService } from ".";
import { retrySettings } from "./records";
import type { SandboxClock } from "../clock";
import type { Logger } from "../../lib/logger";
import {
  DEFAULT_TIMEOUT_MS,
  MAX_IN_FLIGHT,
  MAX_IN_FLIGHT_PER_MERCHANT,
  maxAttempts,
  retryDelayMs,
} from "../../domain/webhook-policy";
import { targetRefusedMessage, type WebhookTargets } from "./targets";
import { formatTimestamp } from "../../domain/time";
import { describe, failure, readSnippet, requestHeaders, safeHost, safeTarget, type Outcome } from "./attempt";

export interface DispatcherOptions {
  db: Database;
  clock: SandboxClock;
  /** The outbox: it says when it wrote pending deliveries (a wake-up besides clock ticks). */
  outbox: Pick<WebhookService, "onOutbox">;
  log: Logger;
  /** Real-time limit for the receiver's answer (default 10 s). */
  timeoutMs?: number;
  /** Which targets are sent to and whose answers are logged (the app's services.webhookTargets). */
  targets: WebhookTargets;
  /** This dispatcher's name in the claims (default: a fresh UUID per instance). */
  id?: string;
  /**
   * Real time after which a dispatcher that holds claims and said nothing is taken as gone (a
   * killed process): its claims are released and its deliveries sent again (default 10 s).
   */
  staleAfterMs?: number;
}

export const INTERRUPTED_MESSAGE =
  "Interrupted: the sandbox stopped before the receiver answered; sent again on restart.";
/** How often a dispatcher holding claims says it is alive, at most (real time). */
const HEARTBEAT_MS = 1000;

/**
 * Sends the outbox. The database is the queue: any number of dispatchers (one per sandbox
 * process) serve one database, and each sends only the deliveries it claimed (one UPDATE that
 * takes unclaimed due rows: two dispatchers never both send a delivery). Deliveries are due on
 * the merchant's sandbox clock. A dispatcher looks for due work when a clock tick reaches a
 * merchant (each second of real time, each `clock/advance`) or right after its own outbox wrote
 * rows; it first reads the earliest due time from the due-time index (webhook_deliveries_ready),
 * and claims (a "scan") only when something is due: a merchant with nothing due costs no scan.
 * A delivery waits while an earlier delivery of the same record to the same webhook is still
 * pending, so each receiver sees a record's events in order.
 *
 * A dispatcher holding claims says it is alive at most once a second (webhook_dispatchers); one
 * silent for `staleAfterMs` is gone, and whichever dispatcher notices first releases its claims:
 * the requests it had out are logged as interrupted and sent again. Delivery is at least once (a
 * request cut short by a crash is sent again), so receivers de-duplicate on PaySandbox-Delivery-Id.
 */
export class WebhookDispatcher implements Worker {
  readonly name = "webhooks";
  readonly id: string;
  private running = false;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly inFlightByMerchant = new Map<string, number>();
  private readonly kicked = new Set<string>();
  /** Claim queries run, ever (tests check that a merchant with nothing due costs none). */
  scans = 0;
  /** Deliveries this dispatcher claimed, ever. */
  claimed = 0;
  private kickTimer: ReturnType<typeof setTimeout> | undefined;
  private stopping = new AbortController();
  /** The poll under way (one at a time), so stop() can wait for it. */
  private working: Promise<void> | undefined;
  private pollAgain = false;
  private lastHeartbeatMs = 0;
  private readonly db: Database;
  private readonly clock: SandboxClock;
  private readonly log: Logger;
  timeoutMs: number;
  private readonly staleAfterMs: number;
  private readonly targets: WebhookTargets;

  constructor(options: DispatcherOptions) {
    this.targets = options.targets;
    this.db = options.db;
    this.clock = options.clock;
    this.log = options.log;
    this.id = options.id ?? crypto.randomUUID();
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.staleAfterMs = options.staleAfterMs ?? 10_000;
    // A merchant's tick (clock/advance, a test delivery): look at that merchant.
    options.clock.onTick(
      (merchantId) => this.kick(merchantId),
      () => [],
    );
    // Each second of real time: every merchant with ready deliveries, and dispatchers gone silent.
    options.clock.onSecond(() => this.kick());
    // Written by this process: look as soon as the change's unit of work is done.
    options.outbox.onOutbox((merchantId) => this.kick(merchantId));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopping = new AbortController();
    this.kick();
  }

  /** Stops sending: requests still out are cut short, logged as interrupted, and their claims released. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearTimeout(this.kickTimer);
    this.kickTimer = undefined;
    this.kicked.clear();
    this.stopping.abort();
    await this.working;
    await Promise.allSettled([...this.inFlight.values()]);
    try {
      await this.db.transaction((tx) => repo.releaseDispatcher(tx, this.id, INTERRUPTED_MESSAGE, null));
    } catch (error) {
      this.log.error(`webhook dispatcher ${this.id} could not release its claims: ${String(error)}`);
    }
  }

  /**
   * Looks for due deliveries (of one merchant, or — no argument — of every merchant with ready
   * deliveries) as soon as the current work is done. Returns at once; the requests run on.
   */
  kick(merchantId?: string): void {
    if (!this.running) return;
    this.kicked.add(merchantId ?? "*");
    this.kickTimer ??= setTimeout(() => {
      this.kickTimer = undefined;
      void this.poll();
    }, 0);
  }

  /** Waits until the dispatcher has looked at everything it was woken for and recorded every request it sent (tests). */
  async idle(): Promise<void> {
    while (this.kickTimer !== undefined || this.working || this.inFlight.size > 0) {
      if (this.working) await this.working;
      else if (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
      else await Bun.sleep(1);
    }
  }

  private async poll(): Promise<void> {
    if (this.working) {
      this.pollAgain = true;
      return;
    }
    const work = (async () => {
      do {
        this.pollAgain = false;
        const merchants = [...this.kicked];
        this.kicked.clear();
        try {
          await this.visit(merchants);
        } catch (error) {
          // Called from clock ticks: a failure here must not break them; the next tick tries again.
          this.log.error(`webhook dispatch failed: ${(error as Error)?.stack ?? String(error)}`);
        }
      } while (this.running && (this.pollAgain || this.kicked.size > 0));
    })();
    this.working = work;
    try {
      await work;
    } finally {
      this.working = undefined;
    }
  }

  private async visit(merchants: string[]): Promise<void> {
    if (!this.running) return;
    let due: { merchantId: string; dueAtMs: number }[];
    if (merchants.includes("*")) {
      await this.keepAlive();
      await this.releaseSilent();
      due = await repo.readyMerchants(this.db);
    } else {
      due = [];
      for (const merchantId of merchants) {
        const dueAtMs = await repo.earliestReady(this.db, merchantId);
        if (dueAtMs !== undefined) due.push({ merchantId, dueAtMs });
      }
    }
    for (const { merchantId, dueAtMs } of due) {
      if (!this.running) return;
      const now = this.clock.now(merchantId).getTime();
      if (dueAtMs <= now) await this.claimAndSend(merchantId, now);
    }
  }

  /** Says this dispatcher is alive while it holds claims (at most once a second). */
  private async keepAlive(force = false): Promise<void> {
    const now = this.clock.realDate().getTime();
    if (!force && (this.inFlight.size === 0 || now - this.lastHeartbeatMs < HEARTBEAT_MS)) return;
    this.lastHeartbeatMs = now;
    await repo.heartbeat(this.db, this.id, now);
  }

  /** Releases the claims of dispatchers silent for too long (killed): their deliveries are sent again. */
  private async releaseSilent(): Promise<void> {
    const cutoff = this.clock.realDate().getTime() - this.staleAfterMs;
    for (const gone of await repo.silentDispatchers(this.db, cutoff)) {
      if (gone === this.id) continue;
      const released = await this.db.transaction((tx) => repo.releaseDispatcher(tx, gone, INTERRUPTED_MESSAGE, cutoff));
      if (released) this.log.info(`webhook dispatcher ${gone} went silent; its deliveries are sent again`);
    }
  }

  private async claimAndSend(merchantId: string, nowMs: number): Promise<void> {
    const busy = this.inFlightByMerchant.get(merchantId) ?? 0;
    const room = Math.min(MAX_IN_FLIGHT - this.inFlight.size, MAX_IN_FLIGHT_PER_MERCHANT - busy);
    if (room <= 0) return;
    // Registered (alive) before holding any claim, so a crash right after never strands one.
    await this.keepAlive(this.inFlight.size === 0);
    this.scans++;
    const rows = await repo.claimDue(this.db, this.id, merchantId, nowMs, room);
    this.claimed += rows.length;
    for (const row of rows) {
      this.inFlightByMerchant.set(merchantId, (this.inFlightByMerchant.get(merchantId) ?? 0) + 1);
      const sending = this.send(row)
        .catch((error) => this.log.error(`webhook delivery ${row.id} could not be recorded: ${String(error)}`))
        .finally(() => {
          this.inFlight.delete(row.id);
          const left = (this.inFlightByMerchant.get(merchantId) ?? 1) - 1;
          if (left > 0) this.inFlightByMerchant.set(merchantId, left);
          else this.inFlightByMerchant.delete(merchantId);
          // Delivered, failed for good, or retried later: the next of the record may be due now.
          this.kick(merchantId);
        });
      this.inFlight.set(row.id, sending);
    }
  }

  private async send(row: ClaimedDelivery): Promise<void> {
    const attempt = row.attempts + 1;
    const attemptId = crypto.randomUUID();
    // The attempt's sandbox time is taken once, here, and everything about it derives from it: a clock
    // advance that lands while the request is out (or that jumped over the due time) does not move it.
    const startedAt = this.clock.runTime(row.merchant_id, row.next_attempt_at_ms ?? 0);
    const headers = requestHeaders(row);
    await repo.insertAttempt(this.db, {
      id: attemptId,
      merchantId: row.merchant_id,
      deliveryId: row.id,
      attempt,
      startedAt: formatTimestamp(startedAt),
      requestHeaders: JSON.stringify(headers),
    });
    const started = performance.now();
    const outcome = await this.post(row, headers);
    const latency = Math.round(performance.now() - started);
    await this.record(row, attempt, attemptId, outcome, latency, new Date(startedAt.getTime() + latency));
    const target = safeTarget(row.target_url);
    const result = outcome.statusCode ?? outcome.error;
    this.log.info(`webhook ${row.event} ${row.id} → ${target} attempt ${attempt}: ${result} ${latency}ms`);
  }

  private async post(row: ClaimedDelivery, headers: Record<string, string>): Promise<Outcome> {
    if (!this.targets.allows(row.target_url)) {
      // No request at all: a sandbox reachable from a LAN must not POST into other machines.
      return failure(targetRefusedMessage(safeHost(row.target_url)));
    }
    const outcome = await this.request(row, headers);
    // Status and timing are always logged; what the target answered only when it may be shown.
    return this.targets.showsBody(row.target_url) ? outcome : { ...outcome, snippet: null, responseHeaders: null };
  }

  private async request(row: ClaimedDelivery, headers: Record<string, string>): Promise<Outcome> {
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

  private async record(
    row: ClaimedDelivery,
    attempt: number,
    attemptId: string,
    outcome: Outcome,
    latency: number,
    finishedAt: Date,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      await repo.finishAttempt(tx, attemptId, {
        success: outcome.success,
        statusCode: outcome.statusCode,
        latencyMs: latency,
        snippet: outcome.snippet,
        responseHeaders: outcome.responseHeaders,
        error: outcome.error,
      });
      if (outcome.interrupted) {
        await repo.releaseClaim(tx, row.id, this.id);
        return;
      }
      const stamp = formatTimestamp(finishedAt);
      // The webhook's meta.webhook_retry_count/frequency, as they are when this attempt settles.
      const retry = retrySettings(row);
      const status = outcome.success ? "delivered" : attempt >= maxAttempts(retry) ? "failed" : "pending";
      const held = await repo.settleDelivery(tx, row.id, this.id, {
        status,
        attempts: attempt,
        nextAttemptAtMs: status === "pending" ? finishedAt.getTime() + retryDelayMs(attempt, retry) : null,
        statusCode: outcome.statusCode,
        error: outcome.error,
        deliveredAt: outcome.success ? stamp : null,
        now: stamp,
      });
      if (!held) this.log.error(`webhook delivery ${row.id}: the claim was lost while the request was out`);
    });
  }
}
