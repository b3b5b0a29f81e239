import { sql, type Executor } from "../database";

export interface StoredIdempotentResponse {
  request_hash: string;
  status: number;
  body: string;
}

export function findIdempotencyKey(
  ex: Executor,
  merchantId: string,
  scope: string,
  key: string,
): Promise<StoredIdempotentResponse | undefined> {
  return ex.get<StoredIdempotentResponse>(
    sql`SELECT request_hash, status, body FROM idempotency_keys WHERE merchant_id = ${merchantId} AND scope = ${scope} AND key = ${key}`,
  );
}

/** Throws UniqueViolation when the key was stored meanwhile (another process on a shared database). */
export async function insertIdempotencyKey(
  ex: Executor,
  row: StoredIdempotentResponse & { merchant_id: string; scope: string; key: string; created_at: string },
): Promise<void> {
  await ex.run(
    sql`INSERT INTO idempotency_keys (merchant_id, scope, key, request_hash, status, body, created_at)
        VALUES (${row.merchant_id}, ${row.scope}, ${row.key}, ${row.request_hash}, ${row.status}, ${row.body}, ${row.created_at})`,
  );
}
