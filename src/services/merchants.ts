import { UniqueViolation, type Database, type Executor } from "../storage/database";
import { EphemeralExpired, type EphemeralTokens } from "./ephemeral";
import * as repo from "../storage/repositories/merchants";
import type { MerchantRow } from "../storage/repositories/merchants";
import type { MerchantRecord } from "../domain/schemas/records";
import { constantTimeEqual, randomToken, sha256Hex } from "../lib/crypto";
import { WELL_KNOWN_KEYS } from "../lib/config";
import { ApiError, assertValid, notFound } from "../domain/errors";
import type { FieldErrors } from "../../packages/rules/validation";
import { parseCustomFields, validateCustomField, type CustomFieldInput } from "./merchant-options";
import { checkSettings, rateBpsOf, receiptOptionsOf, settingsOf, type SettingsInput } from "./merchant-settings";
import type { SandboxClock } from "./clock";

export type { MerchantRow };
export { settingsOf, surchargePolicyOf, type MerchantSettings, type SettingsInput } from "./merchant-settings";

/** The merchant record (docs/contract.md §6): the type of its schema. */
export type Merchant = typeof MerchantRecord.static;

/** The secrets regenerateKeys() can replace. */
export const REGENERABLE_KEYS = ["api_key", "web_payments_token", "webhook_secret"] as const;
export type RegenerableKey = (typeof REGENERABLE_KEYS)[number];

export const DEFAULT_MERCHANT_NAME = "Sandbox Merchant";

export const MERCHANT_MESSAGES = {
  wellKnownRefused: (key: string) =>
    `${key} is the documented sandbox key, and it is off: this sandbox listens beyond loopback (--host), so the default merchant has random keys. Use the ones printed at start (or GET /_sandbox/merchants from this machine).`,
} as const;

export function merchantRecord(row: MerchantRow): Merchant {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    web_payments_token: row.web_payments_token,
    api_key: row.api_key,
    webhook_secret: row.webhook_secret,
    is_default: row.is_default === 1,
    settings: settingsOf(row),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const keyInUse = () =>
  new ApiError("validation_error", "That key is already in use by another merchant.", {
    errors: { api_key: ["That key is already in use by another merchant."] },
  });

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Merchants, their keys and settings (./merchant-settings.ts); authentication of API keys and web
 * payments tokens. Vocabulary (docs/architecture.md, "Services"): `find` (by id, or undefined),
 * `getDefault`, `list`, `create`, `ensureDefault`; the changes `updateSettings`, `saveCustomField`,
 * `removeCustomField`, `updateKeys`, `regenerateKeys`; `authenticateApiKey`, `authenticateToken`.
 * A merchant is read as its row: every layer above needs its keys and settings, not a record.
 */
export class MerchantService {
  /**
   * Merchants by the SHA-256 of their API key and of their web payments token: every authenticated
   * request resolves its merchant here instead of with a SELECT (README "Performance"). Only hits
   * are kept, so unknown keys cannot grow it. Every write to a merchant through this process goes
   * through this service and empties both maps (`changed()`), so a changed key or setting is seen
   * by the next request. A write by another process is seen through the database's mark of foreign
   * commits (SQLite's data_version: a second process on the same file empties the maps with its
   * next commit); where there is no such mark (PostgreSQL, several processes) nothing is cached.
   */
  private readonly byApiKeyHash = new Map<string, MerchantRow>();
  private readonly byTokenHash = new Map<string, MerchantRow>();
  /** Bumped by every `changed()`: a row read before a change is not cached after it. */
  private generation = 0;
  /** The database's foreign-commit mark the maps were filled under. */
  private cachedUnder: number | null = null;
  /** Merchant lookups that went to the database (tests read it: a cache hit costs none). */
  lookups = 0;

  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
    /** GET /ephemeral's tokens, accepted where the API key is (./ephemeral.ts). */
    private readonly ephemeral?: EphemeralTokens,
  ) {}

  /** Forgets every cached merchant: each write of this service calls it, and so must a delete elsewhere. */
  changed(): void {
    this.generation++;
    this.byApiKeyHash.clear();
    this.byTokenHash.clear();
  }

  private async byHash(
    column: "api_key_hash" | "web_payments_token_hash",
    secret: string,
  ): Promise<MerchantRow | null> {
    const hash = sha256Hex(secret);
    const mark = this.db.foreignCommitMark();
    if (mark !== this.cachedUnder) {
      // Another process committed (it may have changed a key), or nothing may be cached at all.
      this.changed();
      this.cachedUnder = mark;
    }
    const cache = column === "api_key_hash" ? this.byApiKeyHash : this.byTokenHash;
    let row = cache.get(hash) ?? null;
    if (!row) {
      this.lookups++;
      const generation = this.generation;
      row =
        (column === "api_key_hash"
          ? await repo.findMerchantByApiKeyHash(this.db, hash)
          : await repo.findMerchantByTokenHash(this.db, hash)) ?? null;
      if (row && mark !== null && generation === this.generation) cache.set(hash, row);
    }
    // The lookup is by hash, so its timing says nothing about the key; confirm in constant time.
    if (!row) return null;
    const stored = column === "api_key_hash" ? row.api_key : row.web_payments_token;
    return constantTimeEqual(stored, secret) ? row : null;
  }

  /** The merchant's row, or undefined. */
  find(id: string, ex: Executor = this.db): Promise<MerchantRow | undefined> {
    return repo.findMerchant(ex, id);
  }

  async getDefault(): Promise<MerchantRow> {
    const row = await repo.findDefaultMerchant(this.db);
    if (!row) throw new Error("the default merchant is missing; ensureDefault() was not called");
    return row;
  }

  /** Merchants besides the default one (the ones POST /_sandbox/merchants made). */
  countCreated(): Promise<number> {
    return repo.countCreatedMerchants(this.db);
  }

  list(): Promise<MerchantRow[]> {
    return repo.listMerchants(this.db);
  }

  /**
   * Creates the default merchant with the configured keys, or brings its keys in line with them.
   * An empty key means "random, kept in the database": the stored one stays unless it is the
   * documented well-known key, which is replaced (with a new webhook secret) — a sandbox listening
   * beyond loopback must not answer to a key everyone knows.
   */
  async ensureDefault(webPaymentsToken: string, apiKey: string, retried = false): Promise<MerchantRow> {
    const existing = await repo.findDefaultMerchant(this.db);
    const wanted = (configured: string, stored: string | undefined, wellKnown: string, prefix: string) =>
      configured !== "" ? configured : stored !== undefined && stored !== wellKnown ? stored : randomToken(prefix);
    const token = wanted(webPaymentsToken, existing?.web_payments_token, WELL_KNOWN_KEYS.webPaymentsToken, "wpt_");
    const key = wanted(apiKey, existing?.api_key, WELL_KNOWN_KEYS.apiKey, "sk_sandbox_");
    if (!existing) {
      try {
        return await this.create({
          name: DEFAULT_MERCHANT_NAME,
          webPaymentsToken: token,
          apiKey: key,
          isDefault: true,
        });
      } catch (error) {
        // Another sandbox process on the same database created it first (at most one default
        // merchant, and keys are unique): use theirs, with this process's configured keys.
        if (retried || !(await repo.findDefaultMerchant(this.db))) throw error;
        return this.ensureDefault(webPaymentsToken, apiKey, true);
      }
    }
    if (existing.api_key !== key || existing.web_payments_token !== token) {
      const wasWellKnown = existing.api_key === WELL_KNOWN_KEYS.apiKey && apiKey === "";
      return this.updateKeys(existing.id, {
        apiKey: key,
        webPaymentsToken: token,
        webhookSecret: wasWellKnown ? randomToken("whsec_") : undefined,
      });
    }
    return existing;
  }

  async create(input: {
    name: string;
    email?: string;
    webPaymentsToken?: string;
    apiKey?: string;
    isDefault?: boolean;
    settings?: SettingsInput;
  }): Promise<MerchantRow> {
    const id = crypto.randomUUID();
    const token = input.webPaymentsToken ?? randomToken("wpt_");
    const apiKey = input.apiKey ?? randomToken("sk_sandbox_");
    const now = this.clock.timestamp(id);
    const s = input.settings ? checkSettings(input.settings, null) : null;
    try {
      await repo.insertMerchant(this.db, {
        id,
        name: input.name,
        email: input.email ?? "",
        web_payments_token: token,
        web_payments_token_hash: sha256Hex(token),
        api_key: apiKey,
        api_key_hash: sha256Hex(apiKey),
        webhook_secret: randomToken("whsec_"),
        avs_zip: s?.avs_zip ? 1 : 0,
        avs_street: s?.avs_street ? 1 : 0,
        advanced_customization: s?.advanced_customization ? 1 : 0,
        ach_settlement_days: s?.ach_settlement_days ?? 2,
        custom_fields: JSON.stringify(s?.custom_fields ?? []),
        receipt_options: JSON.stringify(s ? receiptOptionsOf(s) : {}),
        is_surcharge_enabled: s?.is_surcharge_enabled ? 1 : 0,
        surcharge_rate_bps: rateBpsOf(s),
        is_default: input.isDefault ? 1 : 0,
        created_at: now,
        updated_at: now,
      });
      this.changed();
    } catch (error) {
      if (error instanceof UniqueViolation) throw keyInUse();
      throw error;
    }
    return (await this.find(id))!;
  }

  /**
   * Changes any subset of the settings. Every value is checked first (src/services/merchant-options.ts
   * and the rules below); a 422 names each failing field and nothing is written.
   */
  async updateSettings(id: string, settings: SettingsInput): Promise<MerchantRow> {
    const row = await this.find(id);
    if (!row) throw notFound("Merchant");
    const next = checkSettings(settings, settingsOf(row));
    await repo.updateMerchantSettings(
      this.db,
      id,
      {
        avs_zip: next.avs_zip ? 1 : 0,
        avs_street: next.avs_street ? 1 : 0,
        advanced_customization: next.advanced_customization ? 1 : 0,
        ach_settlement_days: next.ach_settlement_days,
        custom_fields: JSON.stringify(next.custom_fields),
        receipt_options: JSON.stringify(receiptOptionsOf(next)),
        is_surcharge_enabled: next.is_surcharge_enabled ? 1 : 0,
        surcharge_rate_bps: rateBpsOf(next),
      },
      this.clock.timestamp(id),
    );
    this.changed();
    return (await this.find(id))!;
  }

  /**
   * Adds a custom field, or replaces the one whose id is `replacing` (its id may change), in
   * place; errors are named after the field's own members (`id`, `name`, ...), as a form shows them.
   */
  async saveCustomField(id: string, input: CustomFieldInput, replacing?: string): Promise<MerchantRow> {
    const row = await this.find(id);
    if (!row) throw notFound("Merchant");
    const fields = parseCustomFields(row.custom_fields);
    const errors: FieldErrors = {};
    const field = validateCustomField(input, "", errors);
    const at = replacing === undefined ? -1 : fields.findIndex((f) => f.id === replacing);
    if (replacing !== undefined && at === -1) throw notFound("Custom field");
    if (field.id !== "" && fields.some((f, index) => f.id === field.id && index !== at)) {
      errors.id = [...(errors.id ?? []), `The custom field id ${field.id} is already used; ids must be unique.`];
    }
    assertValid(errors);
    const next = at === -1 ? [...fields, field] : fields.map((f, index) => (index === at ? field : f));
    return this.updateSettings(id, { custom_fields: next });
  }

  /** Removes a custom field by id (404 when the merchant has none with that id). */
  async removeCustomField(id: string, fieldId: string): Promise<MerchantRow> {
    const row = await this.find(id);
    if (!row) throw notFound("Merchant");
    const fields = parseCustomFields(row.custom_fields);
    if (!fields.some((f) => f.id === fieldId)) throw notFound("Custom field");
    return this.updateSettings(id, { custom_fields: fields.filter((f) => f.id !== fieldId) });
  }

  /**
   * Replaces a merchant's API key, web payments token and/or webhook signing secret. The old ones
   * stop working at once: this is the one place keys change (every lookup goes by the stored
   * hash, through this service).
   */
  async updateKeys(
    id: string,
    keys: { apiKey?: string; webPaymentsToken?: string; webhookSecret?: string },
  ): Promise<MerchantRow> {
    const row = await this.find(id);
    if (!row) throw notFound("Merchant");
    const apiKey = keys.apiKey ?? row.api_key;
    const token = keys.webPaymentsToken ?? row.web_payments_token;
    const secret = keys.webhookSecret ?? row.webhook_secret;
    try {
      await repo.updateMerchantKeys(
        this.db,
        id,
        {
          api_key: apiKey,
          api_key_hash: sha256Hex(apiKey),
          web_payments_token: token,
          web_payments_token_hash: sha256Hex(token),
          webhook_secret: secret,
        },
        this.clock.timestamp(id),
      );
    } catch (error) {
      if (error instanceof UniqueViolation) throw keyInUse();
      throw error;
    } finally {
      this.changed(); // the authentication cache holds the old keys
    }
    return (await this.find(id))!;
  }

  /**
   * New random secrets for the merchant (through updateKeys): the API key and web payments token
   * by default, the webhook signing secret when asked. The default merchant's key and token come
   * from the configuration and are restored at the next start.
   */
  regenerateKeys(
    id: string,
    which: readonly RegenerableKey[] = ["api_key", "web_payments_token"],
  ): Promise<MerchantRow> {
    return this.updateKeys(id, {
      apiKey: which.includes("api_key") ? randomToken("sk_sandbox_") : undefined,
      webPaymentsToken: which.includes("web_payments_token") ? randomToken("wpt_") : undefined,
      webhookSecret: which.includes("webhook_secret") ? randomToken("whsec_") : undefined,
    });
  }

  /**
   * The merchant of an `Authorization: Bearer <api_key>` header.
   * 401 when missing or unknown; 403 when it is the public web payments token.
   */
  async authenticateApiKey(authorization: string | null | undefined): Promise<MerchantRow> {
    if (!authorization) {
      throw new ApiError("unauthenticated", "Missing API key: send the header Authorization: Bearer <api_key>.");
    }
    const key = BEARER.exec(authorization)?.[1];
    if (!key) throw new ApiError("unauthenticated", "The Authorization header must be: Bearer <api_key>.");
    const merchant = await this.byHash("api_key_hash", key);
    if (merchant) return merchant;
    const issuedTo = this.ephemeralMerchant(key);
    const viaEphemeral = issuedTo && (await this.find(issuedTo));
    if (viaEphemeral) return viaEphemeral;
    if (key === WELL_KNOWN_KEYS.apiKey) throw new ApiError("unauthenticated", MERCHANT_MESSAGES.wellKnownRefused(key));
    if (await this.byHash("web_payments_token_hash", key)) {
      throw new ApiError(
        "forbidden",
        "The web payments token is public: it can tokenize and run pay(), nothing else. Use the merchant's API key.",
      );
    }
    throw new ApiError("unauthenticated", "Invalid API key.");
  }

  /** The merchant an ephemeral token names, or undefined; a 401 saying so once it has expired. */
  private ephemeralMerchant(key: string): string | undefined {
    try {
      return this.ephemeral?.verify(key);
    } catch (error) {
      if (error instanceof EphemeralExpired) throw new ApiError("unauthenticated", error.message);
      throw error;
    }
  }

  /** The merchant of a web payments token in a public URL; 401 when unknown. */
  async authenticateToken(token: string): Promise<MerchantRow> {
    const merchant = await this.byHash("web_payments_token_hash", token);
    if (!merchant && token === WELL_KNOWN_KEYS.webPaymentsToken)
      throw new ApiError("unauthenticated", MERCHANT_MESSAGES.wellKnownRefused(token));
    if (!merchant) throw new ApiError("unauthenticated", "Unknown web payments token.");
    return merchant;
  }
}
