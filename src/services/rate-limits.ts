/**
 * Rate-limit counters (`--rate-limit`): token buckets per key, refilled continuously. In memory for
 * one process (the SQLite sandbox: nothing to share, nothing to write per request), in the
 * database when several processes serve one PostgreSQL database, so the limit holds for the
 * whole sandbox however the balancer spreads the requests.
 */
import type { Database } from "../storage/database";
import { takeToken } from "../storage/repositories/rate-limits";

export interface RateLimit {
  /** Requests per minute per web payments token on public routes. */
  public: number;
  /** Requests per minute per API key on merchant routes. */
  merchant: number;
}

export interface RateLimitCounter {
  /** Takes one request from the key's bucket: null when allowed, else the seconds to wait. */
  take(kind: keyof RateLimit, key: string): Promise<number | null> | number | null;
}

/** Seconds until a bucket holding `tokens` has one again. */
function waitSeconds(tokens: number, perMinute: number): number {
  return Math.max(1, Math.ceil((1 - tokens) / (perMinute / 60_000) / 1000));
}

/** Token buckets in memory, per key (one process). */
export class RateLimiter implements RateLimitCounter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {}

  take(kind: keyof RateLimit, key: string): number | null {
    const perMinute = this.limit[kind];
    const perMs = perMinute / 60_000;
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: perMinute, at: now };
    bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      this.buckets.set(key, bucket);
      if (this.buckets.size > 10_000) this.evictFull();
      return null;
    }
    this.buckets.set(key, bucket);
    return waitSeconds(bucket.tokens, perMinute);
  }

  /** Forgets buckets that have refilled completely (they behave exactly like a new one). */
  private evictFull(): void {
    const now = this.now();
    for (const [key, bucket] of this.buckets) {
      const kind: keyof RateLimit = key.startsWith("t:") ? "public" : "merchant";
      const perMinute = this.limit[kind];
      if (bucket.tokens + ((now - bucket.at) * perMinute) / 60_000 >= perMinute) this.buckets.delete(key);
    }
  }
}

/** Token buckets in the database: every process on it draws from the same buckets. */
export class SharedRateLimiter implements RateLimitCounter {
  constructor(
    private readonly db: Database,
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {}

  async take(kind: keyof RateLimit, key: string): Promise<number | null> {
    const perMinute = this.limit[kind];
    const { tokens, allowed } = await takeToken(this.db, key, perMinute, this.now());
    return allowed ? null : waitSeconds(tokens, perMinute);
  }
}

/** The counter for a sandbox on `db`: shared in the database on PostgreSQL, in memory on SQLite. */
export function rateLimiterFor(db: Database, limit: RateLimit, now?: () => number): RateLimitCounter {
  return db.dialect === "postgres" ? new SharedRateLimiter(db, limit, now) : new RateLimiter(limit, now);
}
