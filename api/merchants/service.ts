import type { Database, Statement } from "bun:sqlite";
import { constantTimeEqual, randomToken, sha256Hex } from "../../lib/crypto";
import { WELL_KNOWN_KEYS } from "../../config";
import { ApiError, notFound } from "../errors";
import type { SandboxClock } from "../../lib/clock";

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
  clock_offset_ms: number;
  is_default: number;
  created_at: string;
  updated_at: string;
}

export interface MerchantSettings {
  avs_zip: boolean;
  avs_street: boolean;
  advanced_customization: boolean;
  ach_settlement_days: number;
}

export interface Merchant {
  id: string;
  name: string;
  email: string;
  web_payments_token: string;
  api_key: string;
  webhook_secret: string;
  is_default: boolean;
  settings: MerchantSettings;
  created_at: string;
  updated_at: string;
}

/** The secrets regenerateKeys() can replace. */
export const REGENERABLE_KEYS = ["api_key", "web_payments_token", "webhook_secret"] as const;
export type RegenerableKey = (typeof REGENERABLE_KEYS)[number];

export const DEFAULT_MERCHANT_NAME = "Sandbox Merchant";

export const MERCHANT_MESSAGES = {
  wellKnownRefused: (key: string) =>
    `${key} is the documented sandbox key, and it is off: this sandbox listens beyond loopback (--host), so the default merchant has random keys. Use the ones printed at start (or GET /_sandbox/merchants from this machine).`,
} as const;

export function settingsOf(row: MerchantRow): MerchantSettings {
  return {
    avs_zip: row.avs_zip === 1,
    avs_street: row.avs_street === 1,
    advanced_customization: row.advanced_customization === 1,
    ach_settlement_days: row.ach_settlement_days,
  };
}

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

/** Merchants, their keys and settings; authentication of API keys and web payments tokens. */
export class MerchantService {
  /**
   * Merchants by the SHA-256 of their API key and of their web payments token: every authenticated
   * request resolves its merchant here instead of with a SELECT (README "Performance"). Only hits
   * are kept, so unknown keys cannot grow it. Every write to a merchant goes through this service
   * and empties both maps (`changed()`), so a changed key or setting is seen by the next request.
   */
  private readonly byApiKeyHash = new Map<string, MerchantRow>();
  private readonly byTokenHash = new Map<string, MerchantRow>();
  private readonly byId: Statement<MerchantRow, [string]>;
  private readonly byApiKeyHashQuery: Statement<MerchantRow, [string]>;
  private readonly byTokenHashQuery: Statement<MerchantRow, [string]>;

  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
  ) {
    this.byId = db.prepare("SELECT * FROM merchants WHERE id = ?");
    this.byApiKeyHashQuery = db.prepare("SELECT * FROM merchants WHERE api_key_hash = ?");
    this.byTokenHashQuery = db.prepare("SELECT * FROM merchants WHERE web_payments_token_hash = ?");
  }

  /** Forgets every cached merchant: each write of this service calls it, and so must a delete elsewhere. */
  changed(): void {
    this.byApiKeyHash.clear();
    this.byTokenHash.clear();
  }

  private byHash(column: "api_key_hash" | "web_payments_token_hash", secret: string): MerchantRow | null {
    const hash = sha256Hex(secret);
    const cache = column === "api_key_hash" ? this.byApiKeyHash : this.byTokenHash;
    let row = cache.get(hash) ?? null;
    if (!row) {
      row = (column === "api_key_hash" ? this.byApiKeyHashQuery : this.byTokenHashQuery).get(hash);
      if (row) cache.set(hash, row);
    }
    // The lookup is by hash, so its timing says nothing about the key; confirm in constant time.
    if (!row) return null;
    const stored = column === "api_key_hash" ? row.api_key : row.web_payments_token;
    return constantTimeEqual(stored, secret) ? row : null;
  }

  get(id: string): MerchantRow | null {
    return this.byId.get(id);
  }

  getDefault(): MerchantRow {
    const row = this.db.query<MerchantRow, []>("SELECT * FROM merchants WHERE is_default = 1").get();
    if (!row) throw new Error("the default merchant is missing; ensureDefault() was not called");
    return row;
  }

  /** Merchants besides the default one (the ones POST /_sandbox/merchants made). */
  countCreated(): number {
    return this.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM merchants WHERE is_default = 0").get()!.n;
  }

  list(): MerchantRow[] {
    return this.db.query<MerchantRow, []>("SELECT * FROM merchants ORDER BY created_at, rowid").all();
  }

  /**
   * Creates the default merchant with the configured keys, or brings its keys in line with them.
   * An empty key means "random, kept in the database": the stored one stays unless it is the
   * documented well-known key, which is replaced (with a new webhook secret) — a sandbox listening
   * beyond loopback must not answer to a key everyone knows.
   */
  ensureDefault(webPaymentsToken: string, apiKey: string): MerchantRow {
    const existing = this.db.query<MerchantRow, []>("SELECT * FROM merchants WHERE is_default = 1").get();
    const wanted = (configured: string, stored: string | undefined, wellKnown: string, prefix: string) =>
      configured !== "" ? configured : stored !== undefined && stored !== wellKnown ? stored : randomToken(prefix);
    const token = wanted(webPaymentsToken, existing?.web_payments_token, WELL_KNOWN_KEYS.webPaymentsToken, "wpt_");
    const key = wanted(apiKey, existing?.api_key, WELL_KNOWN_KEYS.apiKey, "sk_sandbox_");
    if (!existing)
      return this.create({ name: DEFAULT_MERCHANT_NAME, webPaymentsToken: token, apiKey: key, isDefault: true });
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

  create(input: {
    name: string;
    email?: string;
    webPaymentsToken?: string;
    apiKey?: string;
    isDefault?: boolean;
    settings?: Partial<MerchantSettings>;
  }): MerchantRow {
    const id = crypto.randomUUID();
    const token = input.webPaymentsToken ?? randomToken("wpt_");
    const apiKey = input.apiKey ?? randomToken("sk_sandbox_");
    const now = this.clock.timestamp(id);
    const s = input.settings ?? {};
    try {
      this.db
        .query(
          `INSERT INTO merchants (id, name, email, web_payments_token, web_payments_token_hash, api_key, api_key_hash,
             webhook_secret, avs_zip, avs_street, advanced_customization, ach_settlement_days, is_default, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          input.name,
          input.email ?? "",
          token,
          sha256Hex(token),
          apiKey,
          sha256Hex(apiKey),
          randomToken("whsec_"),
          s.avs_zip ? 1 : 0,
          s.avs_street ? 1 : 0,
          s.advanced_customization ? 1 : 0,
          s.ach_settlement_days ?? 2,
          input.isDefault ? 1 : 0,
          now,
          now,
        );
      this.changed();
    } catch (error) {
      if (String(error).includes("UNIQUE")) throw keyInUse();
      throw error;
    }
    return this.get(id)!;
  }

  updateSettings(id: string, settings: Partial<MerchantSettings>): MerchantRow {
    const row = this.get(id);
    if (!row) throw notFound("Merchant");
    const next = { ...settingsOf(row), ...settings };
    this.db
      .query(
        "UPDATE merchants SET avs_zip = ?, avs_street = ?, advanced_customization = ?, ach_settlement_days = ?, updated_at = ? WHERE id = ?",
      )
      .run(
        next.avs_zip ? 1 : 0,
        next.avs_street ? 1 : 0,
        next.advanced_customization ? 1 : 0,
        next.ach_settlement_days,
        this.clock.timestamp(id),
        id,
      );
    this.changed();
    return this.get(id)!;
  }

  /**
   * Replaces a merchant's API key, web payments token and/or webhook signing secret. The old ones
   * stop working at once: this is the one place keys change (every lookup goes by the stored
   * hash, through this service).
   */
  updateKeys(id: string, keys: { apiKey?: string; webPaymentsToken?: string; webhookSecret?: string }): MerchantRow {
    const row = this.get(id);
    if (!row) throw notFound("Merchant");
    const apiKey = keys.apiKey ?? row.api_key;
    const token = keys.webPaymentsToken ?? row.web_payments_token;
    const secret = keys.webhookSecret ?? row.webhook_secret;
    try {
      this.db
        .query(
          `UPDATE merchants SET api_key = ?, api_key_hash = ?, web_payments_token = ?, web_payments_token_hash = ?,
             webhook_secret = ?, updated_at = ? WHERE id = ?`,
        )
        .run(apiKey, sha256Hex(apiKey), token, sha256Hex(token), secret, this.clock.timestamp(id), id);
    } catch (error) {
      if (String(error).includes("UNIQUE")) throw keyInUse();
      throw error;
    } finally {
      this.changed(); // the authentication cache holds the old keys
    }
    return this.get(id)!;
  }

  /**
   * New random secrets for the merchant (through updateKeys): the API key and web payments token
   * by default, the webhook signing secret when asked. The default merchant's key and token come
   * from the configuration and are restored at the next start.
   */
  regenerateKeys(id: string, which: readonly RegenerableKey[] = ["api_key", "web_payments_token"]): MerchantRow {
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
  authenticateApiKey(authorization: string | null | undefined): MerchantRow {
    if (!authorization) {
      throw new ApiError("unauthenticated", "Missing API key: send the header Authorization: Bearer <api_key>.");
    }
    const key = BEARER.exec(authorization)?.[1];
    if (!key) throw new ApiError("unauthenticated", "The Authorization header must be: Bearer <api_key>.");
    const merchant = this.byHash("api_key_hash", key);
    if (merchant) return merchant;
    if (key === WELL_KNOWN_KEYS.apiKey) throw new ApiError("unauthenticated", MERCHANT_MESSAGES.wellKnownRefused(key));
    if (this.byHash("web_payments_token_hash", key)) {
      throw new ApiError(
        "forbidden",
        "The web payments token is public: it can tokenize and run pay(), nothing else. Use the merchant's API key.",
      );
    }
    throw new ApiError("unauthenticated", "Invalid API key.");
  }

  /** The merchant of a web payments token in a public URL; 401 when unknown. */
  authenticateToken(token: string): MerchantRow {
    const merchant = this.byHash("web_payments_token_hash", token);
    if (!merchant && token === WELL_KNOWN_KEYS.webPaymentsToken)
      throw new ApiError("unauthenticated", MERCHANT_MESSAGES.wellKnownRefused(token));
    if (!merchant) throw new ApiError("unauthenticated", "Unknown web payments token.");
    return merchant;
  }
}
