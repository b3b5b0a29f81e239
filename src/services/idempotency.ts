import { UniqueViolation, type Database, type Transaction } from "../storage/database";
import { findIdempotencyKey, insertIdempotencyKey } from "../storage/repositories/idempotency";
import { holdUntilCommit } from "../storage/repositories/locks";
import { ApiError } from "../domain/errors";
import { sha256Hex } from "../lib/crypto";

export interface StoredResponse {
  status: number;
  body: unknown;
}

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Canonical JSON (sorted keys), so the same body hashes the same whatever its key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * Runs `work` at most once per (merchant, scope, key): a repeat with the same body gets the
 * stored response, one with a different body a 409. The check, the work and the stored response
 * are one unit of work, and units of work take turns on the database, so concurrent duplicates
 * cannot both run it (on a shared database the key's primary key refuses the second, which then
 * answers as a repeat). A thrown error (a 422, say) rolls everything back and stores nothing.
 */
export async function runIdempotent(
  db: Database,
  options: { merchantId: string; scope: string; key: string | undefined; body: unknown; now: string },
  work: (tx: Transaction) => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  const { key } = options;
  if (key === undefined || key === "") return { ...(await db.transaction(work)), replayed: false };
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new ApiError(
      "validation_error",
      `The Idempotency-Key may not be longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`,
      {
        errors: {
          "Idempotency-Key": [`The Idempotency-Key may not be longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`],
        },
      },
    );
  }
  const hash = sha256Hex(canonical(options.body));
  const attempt = () =>
    db.transaction(async (tx) => {
      // A second request with this key waits for the first's COMMIT and replays its stored answer
      // (on PostgreSQL; without the turn it ran the work on what it read before that commit).
      await holdUntilCommit(tx, "idempotency-key", options.merchantId, options.scope, key);
      const stored = await findIdempotencyKey(tx, options.merchantId, options.scope, key);
      if (stored) {
        if (stored.request_hash !== hash) {
          throw new ApiError(
            "idempotency_conflict",
            "This Idempotency-Key was already used with a different request body; use a new key for a new request.",
            { idempotency_key: key },
          );
        }
        return { status: stored.status, body: JSON.parse(stored.body) as unknown, replayed: true };
      }
      const response = await work(tx);
      await storeKey(tx, {
        merchant_id: options.merchantId,
        scope: options.scope,
        key,
        request_hash: hash,
        status: response.status,
        body: JSON.stringify(response.body),
        created_at: options.now,
      });
      return { ...response, replayed: false };
    });
  try {
    return await attempt();
  } catch (error) {
    // Another process stored the key between our check and our write: its answer is the answer.
    if (error instanceof KeyTaken) return attempt();
    throw error;
  }
}

class KeyTaken extends Error {}

async function storeKey(tx: Transaction, row: Parameters<typeof insertIdempotencyKey>[1]): Promise<void> {
  try {
    await insertIdempotencyKey(tx, row);
  } catch (error) {
    if (error instanceof UniqueViolation) throw new KeyTaken("the Idempotency-Key was stored meanwhile");
    throw error;
  }
}
