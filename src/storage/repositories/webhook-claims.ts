/**
 * The webhook dispatchers' claims on due deliveries (webhook_dispatchers, and the claim columns of
 * webhook_deliveries): which merchants have work, claiming it, the attempt log of each request,
 * settling or releasing a claim, and the heartbeats that tell a live dispatcher from a gone one.
 * The rows themselves are ./webhooks.ts's. Portable SQL: the claim differs only by PostgreSQL's
 * row locks.
 */
import { sql, type Executor } from "../database";
import type { DeliveryStatus } from "../../domain/schemas/webhooks";
import type { ClaimedDelivery } from "./webhooks";

/**
 * The merchants with unclaimed pending deliveries, each with its earliest due time (sandbox
 * epoch ms): one seek per merchant in the due-time index webhook_deliveries_ready, so the walk
 * costs O(merchants with work), whatever the row count.
 */
export async function readyMerchants(ex: Executor): Promise<{ merchantId: string; dueAtMs: number }[]> {
  const found: { merchantId: string; dueAtMs: number }[] = [];
  let after = "";
  for (;;) {
    const row = await ex.get<{ merchant_id: string; next_attempt_at_ms: number | null }>(
      sql`SELECT merchant_id, next_attempt_at_ms FROM webhook_deliveries
          WHERE merchant_id > ${after} AND status = 'pending' AND claimed_by IS NULL
          ORDER BY merchant_id, next_attempt_at_ms LIMIT 1`,
    );
    if (!row) return found;
    found.push({ merchantId: row.merchant_id, dueAtMs: Number(row.next_attempt_at_ms ?? 0) });
    after = row.merchant_id;
  }
}

/** The earliest due time (sandbox epoch ms) of the merchant's unclaimed pending deliveries: one index seek. */
export async function earliestReady(ex: Executor, merchantId: string): Promise<number | undefined> {
  const row = await ex.get<{ next_attempt_at_ms: number | null }>(
    sql`SELECT next_attempt_at_ms FROM webhook_deliveries
        WHERE merchant_id = ${merchantId} AND status = 'pending' AND claimed_by IS NULL
        ORDER BY next_attempt_at_ms LIMIT 1`,
  );
  return row ? Number(row.next_attempt_at_ms ?? 0) : undefined;
}

/**
 * Claims up to `limit` of the merchant's deliveries due at `nowMs` for `dispatcherId`: pending,
 * unclaimed, to an active webhook, and not waiting behind an earlier pending delivery of the same
 * record to the same webhook; oldest first. The claim is one UPDATE that re-checks
 * `claimed_by IS NULL` on each row, so two dispatchers never both claim a delivery (PostgreSQL
 * also skips rows another claim has locked). Returns the claimed deliveries with what sending needs.
 */
export async function claimDue(
  ex: Executor,
  dispatcherId: string,
  merchantId: string,
  nowMs: number,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const due = sql`SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.merchant_id = ${merchantId} AND d.status = 'pending' AND d.claimed_by IS NULL
        AND d.next_attempt_at_ms <= ${nowMs} AND w.deleted_at IS NULL AND w.disabled_at IS NULL
        AND NOT EXISTS (
          SELECT 1 FROM webhook_deliveries e
          WHERE e.webhook_id = d.webhook_id AND e.record_id = d.record_id AND e.status = 'pending' AND e.seq < d.seq)
      ORDER BY d.seq LIMIT ${limit}`;
  // PostgreSQL: the rows are picked and locked once, in a materialized CTE. In
  // "UPDATE … WHERE id IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)" the subquery
  // may run again as the UPDATE goes, skip the rows the UPDATE has just claimed (locked by itself) and pick
  // more: a claim of 3 took all 20 ready rows (tests/storage/webhook-claims.test.ts), which broke
  // the dispatcher's cap of requests out per merchant.
  const claimed = await ex.all<{ id: string }>(
    ex.dialect === "postgres"
      ? sql`WITH picked AS MATERIALIZED (${due} FOR UPDATE OF d SKIP LOCKED)
            UPDATE webhook_deliveries SET claimed_by = ${dispatcherId}
            FROM picked WHERE webhook_deliveries.id = picked.id
              AND webhook_deliveries.status = 'pending' AND webhook_deliveries.claimed_by IS NULL
            RETURNING webhook_deliveries.id`
      : sql`UPDATE webhook_deliveries SET claimed_by = ${dispatcherId}
            WHERE id IN (${due}) AND status = 'pending' AND claimed_by IS NULL
            RETURNING id`,
  );
  if (claimed.length === 0) return [];
  const ids = sql.join(claimed.map((row) => sql`${row.id}`));
  return ex.all(
    sql`SELECT d.*, w.target_url, w.retry_count, w.retry_frequency_minutes, m.webhook_secret FROM webhook_deliveries d
        JOIN webhooks w ON w.id = d.webhook_id JOIN merchants m ON m.id = d.merchant_id
        WHERE d.id IN (${ids}) ORDER BY d.seq`,
  );
}

/** Says the dispatcher is alive (and holding claims) at real time `nowMs`. */
export async function heartbeat(ex: Executor, dispatcherId: string, nowMs: number): Promise<void> {
  await ex.run(
    sql`INSERT INTO webhook_dispatchers (id, heartbeat_ms) VALUES (${dispatcherId}, ${nowMs})
        ON CONFLICT (id) DO UPDATE SET heartbeat_ms = excluded.heartbeat_ms`,
  );
}

/** Dispatchers that said nothing since `cutoffMs` (real time): gone. */
export async function silentDispatchers(ex: Executor, cutoffMs: number): Promise<string[]> {
  const rows = await ex.all<{ id: string }>(sql`SELECT id FROM webhook_dispatchers WHERE heartbeat_ms < ${cutoffMs}`);
  return rows.map((row) => row.id);
}

/**
 * Releases every claim of a dispatcher (stopped, or silent since `cutoffMs` when given): its
 * requests still marked out are logged with `interruptedMessage`, its deliveries become free to
 * claim again. Run it in a unit of work. Returns false when the dispatcher spoke again since the
 * cutoff (or another dispatcher released it first): then nothing changed.
 */
export async function releaseDispatcher(
  ex: Executor,
  dispatcherId: string,
  interruptedMessage: string,
  cutoffMs: number | null,
): Promise<boolean> {
  const removed = await ex.run(
    cutoffMs === null
      ? sql`DELETE FROM webhook_dispatchers WHERE id = ${dispatcherId}`
      : sql`DELETE FROM webhook_dispatchers WHERE id = ${dispatcherId} AND heartbeat_ms < ${cutoffMs}`,
  );
  if (cutoffMs !== null && removed.changes === 0) return false;
  await ex.run(
    sql`UPDATE webhook_attempts SET finished = 1, error = ${interruptedMessage}
        WHERE finished = 0 AND delivery_id IN (SELECT id FROM webhook_deliveries WHERE claimed_by = ${dispatcherId})`,
  );
  await ex.run(sql`UPDATE webhook_deliveries SET claimed_by = NULL WHERE claimed_by = ${dispatcherId}`);
  return true;
}

/** Logs the start of an attempt (a request about to go out); its ordinal follows the delivery's last. */
export async function insertAttempt(
  ex: Executor,
  row: {
    id: string;
    merchantId: string;
    deliveryId: string;
    attempt: number;
    startedAt: string;
    requestHeaders: string;
  },
): Promise<void> {
  await ex.run(
    sql`INSERT INTO webhook_attempts (id, merchant_id, delivery_id, attempt, ordinal, started_at, request_headers)
        SELECT ${row.id}, ${row.merchantId}, ${row.deliveryId}, ${row.attempt}, COALESCE(MAX(ordinal), 0) + 1,
          ${row.startedAt}, ${row.requestHeaders}
        FROM webhook_attempts WHERE delivery_id = ${row.deliveryId}`,
  );
}

export interface AttemptOutcome {
  success: boolean;
  statusCode: number | null;
  latencyMs: number;
  snippet: string | null;
  responseHeaders: string | null;
  error: string | null;
}

export async function finishAttempt(ex: Executor, attemptId: string, outcome: AttemptOutcome): Promise<void> {
  await ex.run(
    sql`UPDATE webhook_attempts SET finished = 1, success = ${outcome.success ? 1 : 0}, status_code = ${outcome.statusCode},
        latency_ms = ${outcome.latencyMs}, response_snippet = ${outcome.snippet}, response_headers = ${outcome.responseHeaders},
        error = ${outcome.error} WHERE id = ${attemptId}`,
  );
}

/**
 * Records where a claimed delivery stands after an attempt and gives up the claim. Only the
 * holder of the claim may (a dispatcher declared gone has lost it), and a delivery cancelled
 * while the request was out stays cancelled. Returns false when the claim was no longer held.
 */
export async function settleDelivery(
  ex: Executor,
  id: string,
  dispatcherId: string,
  result: {
    status: DeliveryStatus;
    attempts: number;
    nextAttemptAtMs: number | null;
    statusCode: number | null;
    error: string | null;
    deliveredAt: string | null;
    now: string;
  },
): Promise<boolean> {
  const done = await ex.run(
    sql`UPDATE webhook_deliveries SET claimed_by = NULL,
          status = CASE WHEN status = 'pending' THEN ${result.status} ELSE status END,
          attempts = CASE WHEN status = 'pending' THEN ${result.attempts} ELSE attempts END,
          next_attempt_at_ms = CASE WHEN status = 'pending' THEN ${result.nextAttemptAtMs} ELSE next_attempt_at_ms END,
          last_status_code = CASE WHEN status = 'pending' THEN ${result.statusCode} ELSE last_status_code END,
          last_error = CASE WHEN status = 'pending' THEN ${result.error} ELSE last_error END,
          delivered_at = CASE WHEN status = 'pending' THEN ${result.deliveredAt} ELSE delivered_at END,
          updated_at = CASE WHEN status = 'pending' THEN ${result.now} ELSE updated_at END
        WHERE id = ${id} AND claimed_by = ${dispatcherId}`,
  );
  return done.changes > 0;
}

/** Gives up a claim without recording an attempt (the request was cut short by a stop). */
export async function releaseClaim(ex: Executor, id: string, dispatcherId: string): Promise<void> {
  await ex.run(sql`UPDATE webhook_deliveries SET claimed_by = NULL WHERE id = ${id} AND claimed_by = ${dispatcherId}`);
}
