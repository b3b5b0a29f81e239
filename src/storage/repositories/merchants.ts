import { getBatched, sql, type Executor, type Sql } from "../database";
import { insertionOrder } from "./order";

export interface MerchantRow {
  id: string;
  name: string;
  email: string;
  web_payments_token: string;
  web_payments_token_hash: string;
  api_key: string;
  api_key_hash: string;
  webhook_secret: string;
  avs_zip: number;
  avs_street: number;
  advanced_customization: number;
  ach_settlement_days: number;
  /** JSON array of MerchantCustomField (src/services/merchant-options.ts). */
  custom_fields: string;
  /** JSON object of ReceiptOptions. */
  receipt_options: string;
  /** 1 when the merchant surcharges credit cards (src/domain/surcharge.ts). */
  is_surcharge_enabled: number;
  /** The surcharge rate in basis points (300 is 3%); 0 when none is set. */
  surcharge_rate_bps: number;
  clock_offset_ms: number;
  is_default: number;
  created_at: string;
  updated_at: string;
  /**
   * How many active webhooks the merchant has, as the request's own read of it by key or token saw
   * them: PostgreSQL only (see activeWebhooks), where no merchant row is cached.
   */
  active_webhooks?: number;
}

/**
 * On PostgreSQL, a request's read of its merchant also counts the merchant's active webhooks (one
 * index seek of a small table). PostgreSQL caches no merchant (src/services/merchants.ts: no
 * foreignCommitMark), so this is what the database held when the request began: a unit of work of
 * that request may skip the outbox of a merchant with none (WebhookService.actsFor), since a
 * webhook registered later, through any process, is concurrent with the request.
 */
function activeWebhooks(ex: Executor, merchant: string): Sql {
  return ex.dialect === "postgres"
    ? sql.raw(`, (SELECT COUNT(*)::int FROM webhooks w WHERE w.merchant_id = ${merchant}.id
        AND w.deleted_at IS NULL AND w.disabled_at IS NULL) AS active_webhooks`)
    : sql``;
}

export function findMerchant(ex: Executor, id: string): Promise<MerchantRow | undefined> {
  return ex.get<MerchantRow>(sql`SELECT * FROM merchants WHERE id = ${id}`);
}

/** The merchant of an API key; on PostgreSQL read together with concurrent requests' (getBatched). */
export function findMerchantByApiKeyHash(ex: Executor, hash: string): Promise<MerchantRow | undefined> {
  return merchantByHash(ex, "api_key_hash", "findMerchantByApiKeyHash", hash);
}

/** The merchant of a web payments token; on PostgreSQL read together with concurrent requests' (getBatched). */
export function findMerchantByTokenHash(ex: Executor, hash: string): Promise<MerchantRow | undefined> {
  return merchantByHash(ex, "web_payments_token_hash", "findMerchantByTokenHash", hash);
}

/** The merchant whose `column` (a unique hash of a credential) is `hash`, batched under `key`. */
function merchantByHash(
  ex: Executor,
  column: "api_key_hash" | "web_payments_token_hash",
  key: string,
  hash: string,
): Promise<MerchantRow | undefined> {
  const name = sql.raw(column);
  return getBatched<MerchantRow>(
    ex,
    sql`SELECT *${activeWebhooks(ex, "merchants")} FROM merchants WHERE ${name} = ${hash}`,
    {
      key,
      row: { hash },
      select: (rows) => sql`SELECT m.*${activeWebhooks(ex, "m")}, k._row
      FROM json_to_recordset(${rows}) AS k(_row int, hash text) JOIN merchants m ON m.${name} = k.hash`,
    },
  );
}

export function findDefaultMerchant(ex: Executor): Promise<MerchantRow | undefined> {
  return ex.get<MerchantRow>(sql`SELECT * FROM merchants WHERE is_default = 1`);
}

/** Merchants besides the default one. */
export async function countCreatedMerchants(ex: Executor): Promise<number> {
  return (await ex.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM merchants WHERE is_default = 0`))!.n;
}

export function listMerchants(ex: Executor): Promise<MerchantRow[]> {
  return ex.all<MerchantRow>(sql`SELECT * FROM merchants ORDER BY created_at, ${insertionOrder(ex)}`);
}

export type NewMerchant = Omit<MerchantRow, "clock_offset_ms" | "is_surcharge_enabled" | "surcharge_rate_bps"> &
  Partial<Pick<MerchantRow, "is_surcharge_enabled" | "surcharge_rate_bps">>;

/** Throws UniqueViolation when a key or token is already used. */
export async function insertMerchant(ex: Executor, m: NewMerchant): Promise<void> {
  await ex.run(
    sql`INSERT INTO merchants (id, name, email, web_payments_token, web_payments_token_hash, api_key, api_key_hash,
          webhook_secret, avs_zip, avs_street, advanced_customization, ach_settlement_days, custom_fields,
          receipt_options, is_surcharge_enabled, surcharge_rate_bps, is_default, created_at, updated_at)
        VALUES (${m.id}, ${m.name}, ${m.email}, ${m.web_payments_token}, ${m.web_payments_token_hash}, ${m.api_key},
          ${m.api_key_hash}, ${m.webhook_secret}, ${m.avs_zip}, ${m.avs_street}, ${m.advanced_customization},
          ${m.ach_settlement_days}, ${m.custom_fields}, ${m.receipt_options}, ${m.is_surcharge_enabled ?? 0},
          ${m.surcharge_rate_bps ?? 0}, ${m.is_default}, ${m.created_at},
          ${m.updated_at})`,
  );
}

export type MerchantSettingsColumns = Pick<
  MerchantRow,
  | "avs_zip"
  | "avs_street"
  | "advanced_customization"
  | "ach_settlement_days"
  | "custom_fields"
  | "receipt_options"
  | "is_surcharge_enabled"
  | "surcharge_rate_bps"
>;

export async function updateMerchantSettings(
  ex: Executor,
  id: string,
  s: MerchantSettingsColumns,
  updatedAt: string,
): Promise<void> {
  await ex.run(
    sql`UPDATE merchants SET avs_zip = ${s.avs_zip}, avs_street = ${s.avs_street},
          advanced_customization = ${s.advanced_customization}, ach_settlement_days = ${s.ach_settlement_days},
          custom_fields = ${s.custom_fields}, receipt_options = ${s.receipt_options},
          is_surcharge_enabled = ${s.is_surcharge_enabled}, surcharge_rate_bps = ${s.surcharge_rate_bps},
          updated_at = ${updatedAt}
        WHERE id = ${id}`,
  );
}

export type MerchantKeyColumns = Pick<
  MerchantRow,
  "api_key" | "api_key_hash" | "web_payments_token" | "web_payments_token_hash" | "webhook_secret"
>;

/** Throws UniqueViolation when a key or token is already used by another merchant. */
export async function updateMerchantKeys(
  ex: Executor,
  id: string,
  k: MerchantKeyColumns,
  updatedAt: string,
): Promise<void> {
  await ex.run(
    sql`UPDATE merchants SET api_key = ${k.api_key}, api_key_hash = ${k.api_key_hash},
          web_payments_token = ${k.web_payments_token}, web_payments_token_hash = ${k.web_payments_token_hash},
          webhook_secret = ${k.webhook_secret}, updated_at = ${updatedAt}
        WHERE id = ${id}`,
  );
}
