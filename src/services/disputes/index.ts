/**
 * Disputes of card payments (docs/settlement.md, "Disputes"): their records (`GET /underwriting/disputes`), the
 * merchant's answer — evidence files (`POST /file/dispute`, `DELETE /file/dispute/{id}`) and the
 * submission (`POST /underwriting/dispute/{id}/submit`) — and the disputes statement
 * (`GET /query/statement/v3/disputes`). Opening and deciding happen on the clock (./clock.ts).
 * Vocabulary: `get`, `find`, `list`, `ofTransaction`; the domain verbs `submit`, `addEvidence`,
 * `deleteEvidence`; `statement`.
 */
import type { Database, Executor } from "../../storage/database";
import * as repo from "../../storage/repositories/disputes";
import type { DisputeFilters, DisputeRow } from "../../storage/repositories/disputes";
import { countEvidence, deleteFile, evidenceFiles } from "../../storage/repositories/files";
import type { EventBus } from "../../domain/events";
import { ApiError, invalidState, notFound, ValidationFailed } from "../../domain/errors";
import { centsToNumber } from "../../domain/money";
import type { Listing, PageRequest } from "../../domain/pagination";
import type { DisputeRecord } from "../../domain/schemas/disputes";
import type { FileRecord } from "../../domain/schemas/files";
import { formatTimestamp, parseTimestamp } from "../../domain/time";
import { DISPUTE_REASONS, type DisputeReason } from "../../../packages/rules/test-data";
import type { SandboxClock } from "../clock";
import type { FileService } from "../files";
import { sniff } from "../files/content";
import { DECISION_DAYS, DISPUTE_MESSAGES, midnightAfterDays } from "./rules";

export type { DisputeRow };

/** One row of GET /query/statement/v3/disputes. */
export interface DisputeStatementRow {
  id: string;
  date: string;
  type: "HOLD" | "RELEASE";
  dispute_amount: number;
  fee_amount: number;
  dispute_id: string;
  transaction_id: string;
  reason: string;
  status: string;
  deposit_id: string | null;
  net: number;
}

export class DisputeService {
  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
    private readonly events: EventBus<Executor>,
    private readonly files: FileService,
  ) {}

  /** The record of a row, with its live evidence files. */
  async toRecord(ex: Executor, row: DisputeRow): Promise<DisputeRecord> {
    const files = await evidenceFiles(ex, row.id);
    return {
      id: row.id,
      transaction_id: row.transaction_id,
      merchant_id: row.merchant_id,
      reason: row.reason,
      amount: centsToNumber(row.amount_cents),
      status: row.status,
      respond_by: row.respond_by,
      created_at: row.created_at,
      updated_at: row.updated_at,
      reason_description: DISPUTE_REASONS[row.reason as DisputeReason] ?? row.reason,
      fee: centsToNumber(row.fee_cents),
      notes: row.notes,
      submitted_at: row.submitted_at,
      decision_at: row.closed_at ?? row.next_at,
      closed_at: row.closed_at,
      files: files.map((file) => this.files.toRecord(file)),
    };
  }

  /** A dispute's record, or undefined (the dashboard). */
  async find(merchantId: string, id: string): Promise<DisputeRecord | undefined> {
    const row = await repo.findDispute(this.db, merchantId, id);
    return row && this.toRecord(this.db, row);
  }

  /** A dispute's record, or a 404 (a dispute scheduled but not opened yet is not there). */
  async get(merchantId: string, id: string, ex: Executor = this.db): Promise<DisputeRecord> {
    const row = await repo.findDispute(ex, merchantId, id);
    if (!row) throw notFound("Dispute");
    return this.toRecord(ex, row);
  }

  /** GET /underwriting/disputes: the merchant's disputes, newest first unless `sort`/`order` say otherwise. */
  async list(merchantId: string, filters: DisputeFilters, page: PageRequest): Promise<Listing<DisputeRecord>> {
    const { rows, total } = await repo.listDisputes(this.db, merchantId, filters, {
      limit: page.perPage,
      offset: page.offset,
    });
    const records: DisputeRecord[] = [];
    for (const row of rows) records.push(await this.toRecord(this.db, row));
    return { rows: records, total };
  }

  /** The opened dispute of a transaction (the dashboard), or undefined. */
  async ofTransaction(merchantId: string, transactionId: string): Promise<DisputeRecord | undefined> {
    const row = await repo.disputeOfTransaction(this.db, merchantId, transactionId);
    return row && this.toRecord(this.db, row);
  }

  /** Locks a dispute the merchant may still answer: PENDING, and its respond_by not passed; else the 4xx that says why. */
  private async answerable(
    ex: Executor,
    merchantId: string,
    id: string,
    closedMessage: (status: string) => string,
  ): Promise<{ row: DisputeRow; now: string }> {
    const row = await repo.lockDispute(ex, merchantId, id);
    if (!row) throw notFound("Dispute");
    const now = this.clock.timestamp(merchantId);
    // Never answered and past its due date (lost or about to be): say so, rather than "closed".
    if (row.submitted_at === null && now >= row.respond_by) {
      throw invalidState(DISPUTE_MESSAGES.pastDue(row.respond_by), { respond_by: row.respond_by });
    }
    if (row.status !== "PENDING") throw invalidState(closedMessage(row.status), { status: row.status });
    return { row, now };
  }

  /** Sends update_dispute with the record, after stamping updated_at. */
  private async changed(ex: Executor, merchantId: string, id: string, now: string): Promise<DisputeRecord> {
    await repo.updateDispute(ex, id, { updated_at: now });
    const record = await this.get(merchantId, id, ex);
    await this.events.emit(ex, { merchantId, name: "update_dispute", record });
    return record;
  }

  /** POST /file/dispute: stores an evidence file for a dispute the merchant may still answer. */
  async addEvidence(merchantId: string, input: { dispute_id: string; name: string; file: Blob }): Promise<FileRecord> {
    const bytes = new Uint8Array(await input.file.arrayBuffer());
    const kind = await sniff(bytes);
    return this.db.transaction(async (tx) => {
      const { now } = await this.answerable(tx, merchantId, input.dispute_id, DISPUTE_MESSAGES.closed);
      const row = await this.files.store(
        tx,
        merchantId,
        { name: input.name, tag: "dispute", disputeId: input.dispute_id },
        bytes,
        kind,
      );
      await this.changed(tx, merchantId, input.dispute_id, now);
      return this.files.toRecord(row);
    });
  }

  /** DELETE /file/dispute/{id}: removes an evidence file of a dispute the merchant may still answer. */
  async deleteEvidence(merchantId: string, fileId: string): Promise<FileRecord> {
    return this.db.transaction(async (tx) => {
      const file = await this.files.getRow(tx, merchantId, fileId).catch((error: unknown) => {
        throw error instanceof ApiError ? new ApiError("not_found", DISPUTE_MESSAGES.notEvidence) : error;
      });
      if (file.dispute_id === null || file.deleted_at !== null) {
        throw new ApiError("not_found", DISPUTE_MESSAGES.notEvidence);
      }
      const { now } = await this.answerable(tx, merchantId, file.dispute_id, DISPUTE_MESSAGES.closed);
      await deleteFile(tx, file.id, now);
      await this.changed(tx, merchantId, file.dispute_id, now);
      return this.files.get(merchantId, file.id, tx);
    });
  }

  /**
   * POST /underwriting/dispute/{id}/submit: hands the evidence (and `notes`) to the issuer before
   * respond_by; decided on the clock at the first midnight DECISION_DAYS later.
   */
  async submit(merchantId: string, id: string, notes: string | undefined): Promise<DisputeRecord> {
    return this.db.transaction(async (tx) => {
      const { now } = await this.answerable(tx, merchantId, id, DISPUTE_MESSAGES.submitted);
      const text = notes?.trim() ? notes : null;
      if (text === null && (await countEvidence(tx, id)) === 0) {
        throw new ValidationFailed({ notes: [DISPUTE_MESSAGES.nothingToSubmit] });
      }
      const decisionAt = formatTimestamp(new Date(midnightAfterDays(parseTimestamp(now).getTime(), DECISION_DAYS)));
      await repo.updateDispute(tx, id, {
        status: "EVIDENCE_UPLOADED",
        notes: text,
        submitted_at: now,
        next_at: decisionAt,
        updated_at: now,
      });
      return this.changed(tx, merchantId, id, now);
    });
  }

  /** GET /query/statement/v3/disputes: the holds and releases within the range, oldest first, and their summary. */
  async statement(
    merchantId: string,
    range: repo.DateRange,
    page: PageRequest,
  ): Promise<{
    rows: DisputeStatementRow[];
    total: number;
    summary: { dispute_amount_total: number; fee_amount_total: number; count: number };
  }> {
    const totals = await repo.disputeMovementTotals(this.db, merchantId, range);
    const movements = await repo.listDisputeMovements(this.db, merchantId, range, page.perPage, page.offset);
    const rows = movements.map((row): DisputeStatementRow => {
      const hold = row.kind === "dispute";
      return {
        id: row.id,
        date: row.effective_at,
        type: hold ? "HOLD" : "RELEASE",
        dispute_amount: centsToNumber(Math.abs(row.amount_cents)),
        fee_amount: centsToNumber(hold ? row.fee_cents : 0),
        dispute_id: row.dispute_id,
        transaction_id: row.transaction_id,
        reason: row.reason,
        status: row.status,
        deposit_id: row.deposit_id,
        net: centsToNumber(row.amount_cents - (hold ? row.fee_cents : 0)),
      };
    });
    return {
      rows,
      total: totals.count,
      summary: {
        dispute_amount_total: centsToNumber(totals.amountCents),
        fee_amount_total: centsToNumber(totals.feeCents),
        count: totals.count,
      },
    };
  }
}
