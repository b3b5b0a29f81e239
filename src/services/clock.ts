import type { Database } from "../storage/database";
import * as repo from "../storage/repositories/clock";
import { formatTimestamp } from "../domain/time";

/**
 * The sandbox clock: real time plus a per-merchant offset that `POST /_sandbox/clock/advance`
 * moves forward. Every record timestamp, settlement and retry of a merchant reads this clock.
 */
/** Runs the jobs due for a merchant at `now` (settlement, webhook retries); awaited in turn. */
export type TickListener = (merchantId: string, now: Date) => Promise<unknown> | unknown;

/**
 * The merchants a job runner may have work for (read from an index, cheap). The real-time tick
 * visits only these, so its cost follows merchants with pending work, not merchants.
 */
export type PendingMerchants = () => Promise<Iterable<string>> | Iterable<string>;

/**
 * The earliest time (epoch ms) strictly after `afterMs` at which a job of the merchant falls due,
 * or null: an advance stops there too, so the job runs at its own sandbox time, in order with the
 * midnights around it.
 */
export type NextStop = (merchantId: string, afterMs: number) => Promise<number | null>;

const DAY_MS = 86_400_000;

/** No sandbox clock goes past this: later, timestamps stop being four-digit years and test cards all expire. */
export const LATEST_CLOCK_MS = Date.UTC(2099, 11, 31, 23, 59, 59);
/** LATEST_CLOCK_MS as the API writes timestamps. */
export const LATEST_CLOCK_TEXT = "2099-12-31 23:59:59";

/** The message of a refused advance past LATEST_CLOCK_MS. */
export function clockLimitMessage(nowText: string, maxSeconds: number): string {
  return `The sandbox clock goes no later than ${LATEST_CLOCK_TEXT} UTC; this merchant's clock is at ${nowText}, so advance at most ${maxSeconds} seconds (POST /_sandbox/reset brings it back to real time).`;
}

export class SandboxClock {
  private readonly offsets = new Map<string, number>();
  private readonly listeners: { run: TickListener; pending?: PendingMerchants }[] = [];
  private readonly secondListeners: (() => void)[] = [];
  private readonly stops: NextStop[] = [];
  /** Merchants whose clock reads a fixed time while a job runs (at()). */
  private readonly pinned = new Map<string, number>();
  /** Job runs of real-time ticks (one per merchant and runner), for tests that bound the tick's cost. */
  visits = 0;
  /** Each merchant's last advance: the sandbox times it jumped from and to, and the real time it happened. */
  private readonly jumps = new Map<string, { fromMs: number; toMs: number; realMs: number }>();

  constructor(
    private readonly db: Database,
    private readonly realNow: () => number = Date.now,
  ) {}

  /**
   * Reads every merchant's offset from the database (at start, and on each real-time tick): an
   * advance made by another process is seen here within a second.
   */
  async refresh(): Promise<void> {
    const advanced = await repo.advancedClocks(this.db);
    const ahead = new Set<string>();
    for (const { id, clock_offset_ms } of advanced) {
      ahead.add(id);
      this.offsets.set(id, Number(clock_offset_ms));
    }
    for (const id of this.offsets.keys()) if (!ahead.has(id)) this.offsets.set(id, 0);
  }

  /** Milliseconds the merchant's clock is ahead of real time (as last read from the database). */
  offsetMs(merchantId: string): number {
    return this.offsets.get(merchantId) ?? 0;
  }

  now(merchantId: string): Date {
    const pinned = this.pinned.get(merchantId);
    return new Date(pinned ?? this.realNow() + this.offsetMs(merchantId));
  }

  /**
   * Runs `work` with the merchant's clock reading `ms` in this process, so everything the job makes
   * is stamped with the time it fell due (an invoice schedule's occurrence), not the time it ran:
   * an advance, the real-time tick and a restart's catch-up stamp it alike. (Not clamped to now:
   * during an advance a real-time tick reads the stored target and may run a job the advance's
   * own stops have not reached yet; it is still stamped with its own time.)
   * @example await clock.at(merchantId, occurrenceMs, () => db.transaction((tx) => makeInvoice(tx)))
   */
  async at<T>(merchantId: string, ms: number, work: () => Promise<T>): Promise<T> {
    const before = this.pinned.get(merchantId);
    this.pinned.set(merchantId, ms);
    try {
      return await work();
    } finally {
      if (before === undefined) this.pinned.delete(merchantId);
      else this.pinned.set(merchantId, before);
    }
  }

  /** Registers where advances stop besides midnights (a job runner's due times). */
  addStops(next: NextStop): void {
    this.stops.push(next);
  }

  /** The advance's next stop after `fromMs`: the next midnight UTC, or a job due before it. */
  private async nextStop(merchantId: string, fromMs: number): Promise<number> {
    let stop = Math.floor(fromMs / DAY_MS) * DAY_MS + DAY_MS;
    for (const next of this.stops) {
      const at = await next(merchantId, fromMs);
      if (at !== null && at > fromMs && at < stop) stop = at;
    }
    return stop;
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
   * order: the clock stops at each midnight UTC on the way (the settlement boundaries) and at each
   * time a job falls due (addStops: invoice schedule occurrences), and the job runners run there,
   * then at the new now. Returns the new now.
   */
  async advance(merchantId: string, ms: number): Promise<Date> {
    // The database is the truth: another process may have moved this clock.
    this.offsets.set(merchantId, await repo.clockOffset(this.db, merchantId));
    const offset = this.offsetMs(merchantId) + Math.max(0, Math.round(ms));
    const target = this.realNow() + offset;
    if (target > LATEST_CLOCK_MS) {
      throw new RangeError(
        `expected a clock no later than ${LATEST_CLOCK_TEXT}, got ${formatTimestamp(new Date(target))}`,
      );
    }
    this.jumps.set(merchantId, { fromMs: this.now(merchantId).getTime(), toMs: target, realMs: this.realNow() });
    const start = this.now(merchantId).getTime();
    // The new time is stored first: a job that fails on the way leaves the clock where it was asked
    // to be, and what it did not run is caught up by the next tick (jobs are decided by timestamps).
    await repo.setClockOffset(this.db, merchantId, offset);
    try {
      for (let stop = await this.nextStop(merchantId, start); stop <= target;) {
        this.offsets.set(merchantId, stop - this.realNow());
        await this.tick(merchantId);
        stop = await this.nextStop(merchantId, stop);
      }
    } finally {
      this.offsets.set(merchantId, offset);
    }
    await this.tick(merchantId);
    return this.now(merchantId);
  }

  /** Whole seconds the merchant's clock may still move forward. */
  maxAdvanceSeconds(merchantId: string): number {
    return Math.max(0, Math.floor((LATEST_CLOCK_MS - this.now(merchantId).getTime()) / 1000));
  }

  /** Puts the merchant's clock back on real time (POST /_sandbox/reset). */
  async resetToRealTime(merchantId: string): Promise<void> {
    await repo.setClockOffset(this.db, merchantId, 0);
    this.offsets.set(merchantId, 0);
    this.jumps.delete(merchantId);
  }

  /** Reads the merchant's offset again after a restore set it back (its last advance is forgotten too). */
  async reload(merchantId: string): Promise<void> {
    this.offsets.set(merchantId, await repo.clockOffset(this.db, merchantId));
    this.jumps.delete(merchantId);
  }

  /** Drops what the clock remembers of a deleted merchant. */
  forget(merchantId: string): void {
    this.offsets.delete(merchantId);
    this.jumps.delete(merchantId);
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

  /**
   * Registers a job runner called on every tick; `pending` names the merchants it may have work
   * for (without it, a real-time tick runs it for every merchant). Returns a function that removes it.
   */
  onTick(listener: TickListener, pending?: PendingMerchants): () => void {
    const entry = { run: listener, pending };
    this.listeners.push(entry);
    return () => {
      const at = this.listeners.indexOf(entry);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  /**
   * Registers a listener called once per real-time tick (not per merchant): a job runner that
   * finds its own work in the database. Returns a function that removes it.
   */
  onSecond(listener: () => void): () => void {
    this.secondListeners.push(listener);
    return () => {
      const at = this.secondListeners.indexOf(listener);
      if (at >= 0) this.secondListeners.splice(at, 1);
    };
  }

  /**
   * Runs the job runners for one merchant, or (the real-time tick) each runner for the merchants
   * it has pending work for.
   */
  async tick(merchantId?: string): Promise<void> {
    // The real-time tick first reads the clocks again (an advance by another process).
    if (!merchantId) await this.refresh();
    let everyone: string[] | undefined;
    // One failing job must not starve the others (or other merchants): run them all, then throw.
    const errors: unknown[] = [];
    for (const listener of [...this.listeners]) {
      let ids: Iterable<string>;
      try {
        ids = merchantId
          ? [merchantId]
          : listener.pending
            ? await listener.pending()
            : (everyone ??= await repo.merchantIds(this.db));
      } catch (error) {
        errors.push(error);
        continue;
      }
      for (const id of ids) {
        if (!merchantId) this.visits++;
        try {
          await listener.run(id, this.now(id));
        } catch (error) {
          errors.push(error);
        }
      }
    }
    if (!merchantId) {
      for (const listener of [...this.secondListeners]) {
        try {
          listener();
        } catch (error) {
          errors.push(error);
        }
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} clock jobs failed`);
  }
}
