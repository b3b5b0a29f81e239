/**
 * Ephemeral tokens (GET /ephemeral): a short-lived token for the merchant's user, accepted as
 * `Authorization: Bearer <token>` wherever the API key is, until it expires on the merchant's
 * sandbox clock (an advance past its expiry ends it, as real time would). A JWT (HS256) signed
 * with a secret of this database, so it is checked without being stored: it names the merchant
 * and its expiry, and nothing revokes it before then (rotating the API key does not).
 */
import { constantTimeEqual } from "../lib/crypto";
import type { SandboxClock } from "./clock";

/** How long an ephemeral token lasts, on the merchant's sandbox clock. */
export const EPHEMERAL_TTL_SECONDS = 3600;

export const EPHEMERAL_MESSAGES = {
  expired: (at: string) =>
    `The ephemeral token expired at ${at} (the merchant's sandbox clock); get a new one with GET /ephemeral.`,
  invalid: "Invalid API key.",
} as const;

/** What GET /ephemeral answers. */
export interface EphemeralToken {
  token: string;
  /** When it stops working, on the merchant's sandbox clock (YYYY-MM-DD HH:MM:SS). */
  expires_at: string;
}

interface Claims {
  typ: "ephemeral";
  sub: string;
  merchant_id: string;
  iat: number;
  exp: number;
}

const base64url = (value: string | Uint8Array) => Buffer.from(value).toString("base64url");
const HEADER = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));

function sign(secret: string, text: string): string {
  return base64url(new Bun.CryptoHasher("sha256", secret).update(text).digest());
}

const stamp = (seconds: number) => new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19);

export class EphemeralTokens {
  constructor(
    private readonly clock: SandboxClock,
    private readonly secret: string,
  ) {}

  /** A token for `userId` of the merchant, valid for EPHEMERAL_TTL_SECONDS of its sandbox time. */
  issue(merchantId: string, userId: string): EphemeralToken {
    const iat = Math.floor(this.clock.now(merchantId).getTime() / 1000);
    const claims: Claims = {
      typ: "ephemeral",
      sub: userId,
      merchant_id: merchantId,
      iat,
      exp: iat + EPHEMERAL_TTL_SECONDS,
    };
    const body = `${HEADER}.${base64url(JSON.stringify(claims))}`;
    return { token: `${body}.${sign(this.secret, body)}`, expires_at: stamp(claims.exp) };
  }

  /**
   * The merchant a token was issued for; undefined when it is not an ephemeral token of this
   * sandbox. Throws the expiry message once its time on the merchant's clock has passed.
   */
  verify(token: string): string | undefined {
    const parts = token.split(".");
    if (parts.length !== 3 || parts[0] !== HEADER) return undefined;
    if (!constantTimeEqual(parts[2]!, sign(this.secret, `${parts[0]}.${parts[1]}`))) return undefined;
    let claims: Claims;
    try {
      claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as Claims;
    } catch {
      return undefined;
    }
    if (claims.typ !== "ephemeral" || typeof claims.merchant_id !== "string") return undefined;
    if (this.clock.now(claims.merchant_id).getTime() >= claims.exp * 1000) {
      throw new EphemeralExpired(stamp(claims.exp));
    }
    return claims.merchant_id;
  }
}

/** An ephemeral token past its expiry: the caller answers 401 with the message. */
export class EphemeralExpired extends Error {
  constructor(readonly expiredAt: string) {
    super(EPHEMERAL_MESSAGES.expired(expiredAt));
  }
}
