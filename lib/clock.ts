import type { Database } from "bun:sqlite";
import { formatTimestamp } from "./time";

/**
 * The sandbox clock: real time plus a per-merchant offset that `POST /_sandbox/clock/advance`
 * moves forward. Every record timestamp, settlement and retry of a merchant reads this clock.
 */
/** Runs the jobs due for a merchant at `now` (settlement, webhook retries). Must be synchronous. */
export type TickListener = (merchantId: string, now: Date) => void;

const DAY_MS = 86_400_000;

export class SandboxClock {
  private readonly offsets = new Map<string, number>();
  private readonly listeners: TickListener[] = [];
  /** Each merchant's last advance: the sandbox times it jumped from and to, and the real time it happened. */
  private readonly jumps = new Map<string, { fromMs: number; toMs: number; realMs: number }>();

  constructor(
    private readonly db: Database,
    private readonly realNow: () => number = Date.now,
  ) {}

  /** Milliseconds the merchant's clock is ahead of real time. */
  offsetMs(merchantId: string): number {
    let offset = this.offsets.get(merchantId);
    if (offset === undefined) {
      const row = this.db
        .query<{ clock_offset_ms: number }, [string]>("SELECT clock_offset_ms FROM merchants WHERE id = ?")
        .get(merchantId);
      offset = row?.clock_offset_ms ?? 0;
      this.offsets.set(merchantId, offset);
    }
    return offset;
  }

  now(merchantId: string): Date {
    return new Date(this.realNow() + this.offsetMs(merchantId));
  }

  /** The merchant's now as a record timestamp. */
  timestamp(merchantId: string): string {
    return formatTimestamp(this.now(merchantId));
  }

  /** Real time, for what no merchant owns. */
  realDate(): Date {
    return new Date(this.realNow());
  }

  /**
   * Moves the merchant's clock forward (never back) and runs the jobs the time crosses in time
   * order: the clock stops at each midnight UTC on the way (the settlement boundaries) and the
   * job runners run there, then at the new now. Returns the new now.
   */
  advance(merchantId: string, ms: number): Date {
    const offset = this.offsetMs(merchantId) + Math.max(0, Math.round(ms));
    const target = this.realNow() + offset;
    this.jumps.set(merchantId, { fromMs: this.now(merchantId).getTime(), toMs: target, realMs: this.realNow() });
    const firstMidnight = Math.floor(this.now(merchantId).getTime() / DAY_MS) * DAY_MS + DAY_MS;
    // The new time is stored first: a job that fails on the way leaves the clock where it was asked
    // to be, and what it did not run is caught up by the next tick (jobs are decided by timestamps).
    this.db.query("UPDATE merchants SET clock_offset_ms = ? WHERE id = ?").run(offset, merchantId);
    try {
      for (let midnight = firstMidnight; midnight <= target; midnight += DAY_MS) {
        this.offsets.set(merchantId, midnight - this.realNow());
        this.tick(merchantId);
      }
    } finally {
      this.offsets.set(merchantId, offset);
    }
    this.tick(merchantId);
    return this.now(merchantId);
  }

  /**
   * The sandbox time at which a job due at `dueMs` runs when it runs now. Normally now; but a
   * job the last advance jumped over runs, in sandbox time, when it fell due (plus the real time
   * since the jump), not a day later where the jump landed — the way settlement stops at each
   * midnight on the way. A job already overdue before the jump runs at the jump's start.
   * Never later than now.
   * @example clock.advance(m, 86_400_000); clock.runTime(m, dueTenSecondsAfterTheStart) // ≈ start + 10 s, not start + 1 day
   */
  runTime(merchantId: string, dueMs: number): Date {
    const now = this.now(merchantId).getTime();
    const jump = this.jumps.get(merchantId);
    if (!jump || dueMs > jump.toMs) return new Date(now);
    const since = Math.max(0, this.realNow() - jump.realMs);
    return new Date(Math.min(now, Math.max(dueMs, jump.fromMs) + since));
  }

  /** Registers a job runner called on every tick; returns a function that removes it. */
  onTick(listener: TickListener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  /** Runs the job runners for one merchant, or for every merchant when none is given. */
  tick(merchantId?: string): void {
    const ids = merchantId
      ? [merchantId]
      : this.db
          .query<{ id: string }, []>("SELECT id FROM merchants")
          .all()
          .map((row) => row.id);
    // One failing job must not starve the others (or other merchants): run them all, then throw.
    const errors: unknown[] = [];
    for (const id of ids) {
      const now = this.now(id);
      for (const listener of this.listeners) {
        try {
          listener(id, now);
        } catch (error) {
          errors.push(error);
        }
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} clock jobs failed`);
  }
}
