import type { Database } from "bun:sqlite";
import { ApiError } from "../domain/errors";
import { atomically } from "../storage/sqlite/atomic";
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
 * commit in one immediate transaction, and `work` is synchronous, so concurrent duplicates
 * cannot both run it. A thrown error (a 422, say) rolls everything back and stores nothing.
 */
export function runIdempotent(
  db: Database,
  options: { merchantId: string; scope: string; key: string | undefined; body: unknown; now: string },
  work: () => StoredResponse,
): StoredResponse & { replayed: boolean } {
  const { key } = options;
  if (key === undefined || key === "") return { ...atomically(db, work), replayed: false };
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
  return atomically(db, () => {
    const stored = db
      .query<{ request_hash: string; status: number; body: string }, [string, string, string]>(
        "SELECT request_hash, status, body FROM idempotency_keys WHERE merchant_id = ? AND scope = ? AND key = ?",
      )
      .get(options.merchantId, options.scope, key);
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
    const response = work();
    db.query(
      "INSERT INTO idempotency_keys (merchant_id, scope, key, request_hash, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ).run(options.merchantId, options.scope, key, hash, response.status, JSON.stringify(response.body), options.now);
    return { ...response, replayed: false };
  });
}
