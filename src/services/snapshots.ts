/**
 * Merchant snapshots (`/_sandbox/snapshots`): a named copy of one merchant's whole state — records,
 * clock, outboxes, webhooks and their deliveries, idempotency keys, settings — and the restore that
 * puts it back exactly. Other merchants are never touched: every statement names the merchant.
 *
 * Reads: `list(merchantId)`, `get(merchantId, name)`. Verbs: `create` (replaces a snapshot of the
 * same name), `restore`, `delete`.
 */
import type { Database } from "../storage/database";
import * as repo from "../storage/repositories/snapshots";
import { notFound } from "../domain/errors";
import type { SandboxClock } from "./clock";
import type { MerchantService } from "./merchants";
import type { WebhookService } from "./webhooks";

export interface Snapshot {
  name: string;
  /** Rows copied, all tables together. */
  records: number;
  /** The merchant's sandbox time when it was taken. */
  created_at: string;
  /** Rows copied, by table. */
  tables: Record<string, number>;
}

export class SnapshotService {
  constructor(
    private readonly db: Database,
    private readonly services: { merchants: MerchantService; webhooks: WebhookService },
    private readonly clock: SandboxClock,
  ) {}

  /** Takes a snapshot of the merchant's state, replacing one of the same name. */
  async create(merchantId: string, name: string): Promise<Snapshot> {
    const createdAt = this.clock.timestamp(merchantId);
    return this.db.transaction(async (tx) => {
      const row = await repo.captureSnapshot(tx, merchantId, name, createdAt);
      return this.withCounts(row, await repo.snapshotCounts(tx, merchantId, name));
    });
  }

  /** The merchant's snapshots, oldest first. */
  async list(merchantId: string): Promise<Snapshot[]> {
    const rows = await repo.listSnapshots(this.db, merchantId);
    return Promise.all(
      rows.map(async (row) => this.withCounts(row, await repo.snapshotCounts(this.db, merchantId, row.name))),
    );
  }

  /** A snapshot, or a 404. */
  async get(merchantId: string, name: string): Promise<Snapshot> {
    const row = await repo.findSnapshot(this.db, merchantId, name);
    if (!row) throw notFound("Snapshot");
    return this.withCounts(row, await repo.snapshotCounts(this.db, merchantId, name));
  }

  /** Puts the merchant's state back as the snapshot holds it (404 when there is none). */
  async restore(merchantId: string, name: string): Promise<Snapshot> {
    const restored = await this.db.transaction((tx) => repo.restoreSnapshot(tx, merchantId, name));
    if (!restored) throw notFound("Snapshot");
    // What this process remembers of the merchant was read before: its webhooks, its clock offset
    // (and last advance), its settings behind the key cache.
    this.services.webhooks.forget(merchantId);
    await this.clock.reload(merchantId);
    this.services.merchants.changed();
    return this.get(merchantId, name);
  }

  /** Deletes a snapshot (404 when there is none). */
  async delete(merchantId: string, name: string): Promise<void> {
    if (!(await this.db.transaction((tx) => repo.deleteSnapshot(tx, merchantId, name)))) throw notFound("Snapshot");
  }

  private withCounts(row: repo.SnapshotRow, counts: repo.SnapshotTableCount[]): Snapshot {
    const tables: Record<string, number> = {};
    for (const count of counts) tables[count.table_name] = Number(count.row_count);
    return { name: row.name, records: Number(row.records), created_at: row.created_at, tables };
  }
}
